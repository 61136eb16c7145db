"""Every reasoning parser of vLLM's ``vllm/reasoning/`` and SGLang's ``DetectorMap`` that the presets gained in
issue 17: the model id's preset starts where the engine's parser starts (primed or not, by the request's
``chat_template_kwargs``), and the parser's own cases come out the same.

Cases are facts from the engines' parsers and tests (vLLM ``tests/reasoning/test_<name>_reasoning_parser.py``
where one exists; vllm-project/vllm at 3febd52, faefc5b, 05be40a, 76f6bec for plamo3, hyperclovax_seed_think,
kimi_k25, intern_s1), not their code. Each runs whole, per character, per UTF-8 byte and in random chunks
(``check_stream``), primed as the preset says and unprimed (the orphan-closer rule must reach the same result).
docs/FORMATS.md's reasoning-parser table lists these tests per registered name.
"""

from __future__ import annotations

from typing import Any

import pytest
from invariants import calls, check_stream

from streamparse import StreamParser
from streamparse.events import ParseResult

_PLAMO_OPEN, _PLAMO_CLOSE, _PLAMO_EOT = "<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>", "<|plamo:tag|>"
_HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
_KIMI_CALL = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>"
    '{"filePath": "file.txt"}<|tool_call_end|><|tool_calls_section_end|>'
)
_INTERN_CALL = '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>'
_QWEN_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
_WEATHER = [("get_weather", {"city": "Paris"})]

# (registered parser name, model id, chat_template_kwargs, output, reasoning, text, calls)
Case = tuple[str, str, dict[str, Any] | None, str, str, str, list[tuple[str, dict[str, Any]]]]
CASES: list[Case] = [
    # the template opens <think> unless enable_thinking=false; then the output is the answer alone
    ("telechat4", "Tele-AI/TeleChat4-35B", None, "Add them.\n</think>\n\n2 + 2 = 4.", "Add them.", "2 + 2 = 4.", []),
    ("telechat4", "Tele-AI/TeleChat4-35B", {"enable_thinking": False}, "2 + 2 = 4.", "", "2 + 2 = 4.", []),
    ("telechat", "Tele-AI/TeleChat3-36B-Thinking", None, "Add.</think>4", "Add.", "4", []),
    ("xingchen4", "XingChen4-32B", None, "Add them.</think>4", "Add them.", "4", []),
    ("xingchen4", "XingChen4-32B", {"thinking": False}, "4", "", "4", []),
    ("xing4_0", "Xing4.0-32B", None, "Add them.</think>4", "Add them.", "4", []),
    # enable_thinking (off by default) opens <think> in the prompt
    ("exaone4", "LGAI-EXAONE/EXAONE-4.0-32B", {"enable_thinking": True}, "Plan.\n</think>\n\nAnswer.", "Plan.", "Answer.", []),
    ("exaone4", "LGAI-EXAONE/EXAONE-4.0-32B", None, "Answer.", "", "Answer.", []),
    # vLLM's hyperclovax_seed_think tests: thinking=true primes, false (the default) does not
    ("hyperclovax_seed_think", "naver-hyperclovax/HyperCLOVAX-SEED-Think-32B", {"thinking": True},
     "step by step</think>\n\nfinal answer", "step by step", "final answer", []),
    ("hyperclovax_seed_think", "naver-hyperclovax/HyperCLOVAX-SEED-Think-32B", {"thinking": True},
     "reasoning</think>\n\n\nfinal", "reasoning", "final", []),
    ("hyperclovax_seed_think", "naver-hyperclovax/HyperCLOVAX-SEED-Think-32B", {"thinking": True},
     "thinking aloud, never closed", "thinking aloud, never closed", "", []),
    ("hyperclovax_seed_think", "naver-hyperclovax/HyperCLOVAX-SEED-Think-32B", {"thinking": True},
     "</think>only content", "", "only content", []),
    ("hyperclovax_seed_think_14b", "naver-hyperclovax/HyperCLOVAX-SEED-Think-14B", {"thinking": False},
     "direct answer", "", "direct answer", []),
    # vLLM's intern_s1 tests (the model writes <think>); calls are InternLM's action blocks
    ("intern_s1 / interns1", "internlm/Intern-S1", None, "<think>Need to think first.</think>Visible answer.",
     "Need to think first.", "Visible answer.", []),
    ("intern_s1 / interns1", "internlm/Intern-S1-mini", None, "<think>Need a tool.</think>" + _INTERN_CALL,
     "Need a tool.", "", [("get_weather", {"city": "Tokyo"})]),
    # Qwen3.5-style template: <think>\n in the prompt, the model closes it
    ("iquest / iquest_coder_v2", "IQuestLab/IQuest-Coder-V1-40B-Instruct", None,
     "\nPlan.\n</think>\n\nAnswer.", "Plan.", "Answer.", []),
    ("iquest / iquest_coder_v2", "IQuestLab/IQuest-Coder-V1-40B-Instruct", {"enable_thinking": False},
     "Answer.", "", "Answer.", []),
    ("kolibri1_engine", "Kolibri1-8B", None, "<think>Weather.</think>\n" + _HERMES_CALL, "Weather.", "", _WEATHER),
    # openPangu: <think> or [unused16]/[unused17] by tokenizer; `think` (default true) primes
    ("openpangu_v2", "openPangu-Ultra-MoE-718B-V2", None, "Plan.</think>Answer.", "Plan.", "Answer.", []),
    ("pangu", "FreedomIntelligence/openPangu-Embedded-7B-V1.1", None, "Plan.[unused17]Answer.", "Plan.", "Answer.", []),
    ("openpangu_v2", "openPangu-Ultra-MoE-718B-V2", {"think": False}, "Answer.", "", "Answer.", []),
    # RWKV: enable_thinking=true (only) primes; otherwise a written <think> opens
    ("rwkv", "RWKV/rwkv7-g1a-2.9b", {"enable_thinking": True}, "Plan.</think>Answer.", "Plan.", "Answer.", []),
    ("rwkv", "RWKV/rwkv7-g1a-2.9b", None, "<think>Plan.</think>Answer.", "Plan.", "Answer.", []),
    ("rwkv", "RWKV/rwkv7-g1a-2.9b", None, "Answer.", "", "Answer.", []),
    # vLLM's plamo3 tests: primed unless enable_thinking=false; <|plamo:tag|> ends the turn
    ("plamo3", "pfnet/plamo-3-31b", None, f"reasoning{_PLAMO_CLOSE}answer", "reasoning", "answer", []),
    ("plamo3", "pfnet/plamo-3-31b", None, f"{_PLAMO_OPEN}reasoning{_PLAMO_CLOSE}answer{_PLAMO_EOT}",
     "reasoning", "answer", []),
    ("plamo3", "pfnet/plamo-3-31b", None, "reasoning in progress", "reasoning in progress", "", []),
    ("plamo3", "pfnet/plamo-3-31b", {"enable_thinking": False}, f"answer{_PLAMO_EOT}", "", "answer", []),
    # holo2 (DeepSeekV3ReasoningWithThinking): thinking on by default
    ("holo2", "Hcompany/Holo2-8B", None, "Weather.</think>\n" + _HERMES_CALL, "Weather.", "", _WEATHER),
    # vLLM's kimi_k25 tests: thinking forced on; the tool section ends unclosed reasoning
    ("kimi_k25", "moonshotai/Kimi-K2.5", None, "This is a reasoning section</think>This is the rest",
     "This is a reasoning section", "This is the rest", []),
    ("kimi_k25", "moonshotai/Kimi-K2.5", None, "This\nThat</think>This is the rest\nThat", "This\nThat",
     "This is the rest\nThat", []),
    ("kimi_k25", "moonshotai/Kimi-K2.5", None, "<think>This is a reasoning section", "This is a reasoning section", "", []),
    ("kimi_k25", "moonshotai/Kimi-K2.5", None, "I should read that file" + _KIMI_CALL,
     "I should read that file", "", [("read", {"filePath": "file.txt"})]),
    ("kimi_k2", "moonshotai/Kimi-K2-Thinking", None, "<think>I should read that file" + _KIMI_CALL,
     "I should read that file", "", [("read", {"filePath": "file.txt"})]),
    ("kimi_k25", "moonshotai/Kimi-K2.5", None, "<think>I should read that file</think>" + _KIMI_CALL,
     "I should read that file", "", [("read", {"filePath": "file.txt"})]),
    # parser-engine families (vllm/parser/): Granite 4.2 is Nemotron V3's format, BerryLM primes and its
    # <tool_call> ends unclosed reasoning, MiniCPM-V is Qwen3's grammar with thinking off by default
    ("granite_thinking_engine", "ibm-granite/granite-4.2-8b", None, "Plan.\n</think>\n" + _QWEN_CALL, "Plan.", "",
     _WEATHER),
    ("granite_thinking_engine", "ibm-granite/granite-4.2-8b", {"enable_thinking": False}, "Answer.", "", "Answer.", []),
    ("berrylm_engine", "BerryLM-7B", None, "Weather." + _QWEN_CALL, "Weather.", "", _WEATHER),
    ("minicpmv", "openbmb/MiniCPM-V-4_5", None, "Answer.", "", "Answer.", []),
    ("minicpmv", "openbmb/MiniCPM-V-4_5", {"enable_thinking": True}, "<think>Plan.</think>Answer.", "Plan.",
     "Answer.", []),
    # vLLM's granite parser: Granite 3.2/3.3 with thinking=true write both plain-text markers
    ("granite", "ibm-granite/granite-3.2-8b-instruct", {"thinking": True},
     "Here is my thought process:\nPlan.\nHere is my response:\nAnswer.", "Plan.", "Answer.", []),
    ("granite", "ibm-granite/granite-3.3-8b-instruct", None, "Answer.", "", "Answer.", []),
    # vLLM's step3 and SGLang's step3 (DeepSeekR1Detector): everything before </think> is reasoning
    ("step3", "stepfun-ai/step3", None, "Plan.</think>Answer.", "Plan.", "Answer.", []),
    ("step3", "stepfun-ai/step3", None, "still thinking", "still thinking", "", []),
    # GigaChat 3.5: reasoning=true opens <think>; the Reasoning release always does
    ("gigachat35", "ai-sage/GigaChat3.5-10B-A1.8B", {"reasoning": True}, "Plan.</think>Answer.", "Plan.", "Answer.", []),
    ("gigachat35", "ai-sage/GigaChat3.5-10B-A1.8B", None, "Answer.", "", "Answer.", []),
    ("gigachat35 (with thinking)", "ai-sage/GigaChat3.5-10B-A1.8B-Reasoning", None, "Plan.</think>Answer.",
     "Plan.", "Answer.", []),
]  # fmt: skip


def _options(model_id: str, kwargs: dict[str, Any] | None) -> dict[str, Any]:
    parser = StreamParser.for_model(model_id, chat_template_kwargs=kwargs)
    assert parser.preset is not None and parser.preset.matched, f"no preset for {model_id}"
    return {"formats": list(parser.formats), "start_in_reasoning": parser._config.start_in_reasoning}


def _check(result: ParseResult, reasoning: str, text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    assert (result.reasoning, result.text) == (reasoning, text)
    assert calls(result) == expected


@pytest.mark.parametrize(("name", "model", "kwargs", "output", "reasoning", "text", "expected"), CASES)
def test_registered_parser_case_parses_as_the_engine_does_under_the_models_preset(
    name: str, model: str, kwargs: dict[str, Any] | None, output: str, reasoning: str, text: str, expected: Any
) -> None:
    _check(check_stream(output, **_options(model, kwargs)), reasoning, text, expected)


@pytest.mark.parametrize(("name", "model", "kwargs", "output", "reasoning", "text", "expected"), CASES)
def test_registered_parser_case_is_the_same_unprimed(
    name: str, model: str, kwargs: dict[str, Any] | None, output: str, reasoning: str, text: str, expected: Any
) -> None:
    """Not told that the prompt opened the reasoning (no preset priming), the orphan closer or the written
    opener reaches the same split: only an output that ends inside primed reasoning differs (it is text)."""
    options = _options(model, kwargs) | {"start_in_reasoning": False}
    markers = ("</think>", "[unused17]", _PLAMO_CLOSE, "<think>", "Here is my response:")
    closed = not reasoning or any(m in output for m in markers)
    result = check_stream(output, **options)
    if closed:
        _check(result, reasoning, text, expected)
    else:
        _check(result, "", reasoning + text, expected)


@pytest.mark.parametrize(
    ("model", "kwargs", "primed"),
    [
        ("Tele-AI/TeleChat4-35B", None, True),
        ("Tele-AI/TeleChat4-35B", {"enable_thinking": False}, False),
        ("XingChen4-32B", {"enable_thinking": False}, False),
        ("LGAI-EXAONE/EXAONE-4.0-32B", None, False),
        ("LGAI-EXAONE/EXAONE-4.0-32B", {"enable_thinking": True}, True),
        ("naver-hyperclovax/HyperCLOVAX-SEED-Think-32B", None, False),
        ("naver-hyperclovax/HyperCLOVAX-SEED-Think-32B", {"thinking": True}, True),
        ("internlm/Intern-S1", {"enable_thinking": True}, False),
        ("IQuestLab/IQuest-Coder-V1-40B-Instruct", None, True),
        ("openPangu-Ultra-MoE-718B-V2", {"think": False}, False),
        ("RWKV/rwkv7-g1a-2.9b", None, False),
        ("RWKV/rwkv7-g1a-2.9b", {"enable_thinking": True}, True),
        ("pfnet/plamo-3-31b", None, True),
        ("pfnet/plamo-3-31b", {"enable_thinking": False}, False),
        ("Hcompany/Holo2-8B", None, True),
        ("moonshotai/Kimi-K2.5", None, True),
        ("ai-sage/GigaChat3.5-10B-A1.8B", None, False),
        ("ai-sage/GigaChat3.5-10B-A1.8B", {"reasoning": True}, True),
        ("ai-sage/GigaChat3.5-10B-A1.8B-Reasoning", None, True),
        ("ibm-granite/granite-4.2-8b", None, True),
        ("ibm-granite/granite-4.2-8b", {"enable_thinking": False}, False),
        ("BerryLM-7B", None, True),
        ("stepfun-ai/step3", None, True),
        ("openbmb/MiniCPM-V-4_5", {"enable_thinking": True}, False),
    ],
)
def test_the_request_switch_decides_priming_as_the_engines_parser_does(
    model: str, kwargs: dict[str, Any] | None, primed: bool
) -> None:
    assert _options(model, kwargs)["start_in_reasoning"] is primed


def test_kimis_tool_section_ends_even_a_written_think_block_but_no_other_formats_call_does() -> None:
    """vLLM's kimi_k25 and SGLang's KimiK2Detector end a written, unclosed ``<think>`` at
    ``<|tool_calls_section_begin|>`` (a special token prose never spells); hermes's ``<tool_call>`` inside a
    written block stays reasoning (docs/FORMATS.md, R10)."""
    kimi = check_stream("<think>I should read that file" + _KIMI_CALL, **_options("moonshotai/Kimi-K2.5", None))
    _check(kimi, "I should read that file", "", [("read", {"filePath": "file.txt"})])
    hermes = check_stream("<think>I could call " + _HERMES_CALL, formats=["hermes"])
    assert (hermes.reasoning, calls(hermes)) == ("I could call " + _HERMES_CALL, [])


@pytest.mark.parametrize(
    ("opener", "closer"),
    [(_PLAMO_OPEN, _PLAMO_CLOSE), ("[unused16]", "[unused17]"), ("<mm:think>", "</mm:think>"), ("◁think▷", "◁/think▷")],
)
def test_an_opener_the_model_writes_at_the_start_of_primed_reasoning_is_markup(opener: str, closer: str) -> None:
    """vLLM's plamo3 and pangu (R1) parsers drop a begin tag the model repeats after the prompt opened it."""
    result = check_stream(f"{opener}Plan.{closer}Answer.", formats="auto", start_in_reasoning=True)
    _check(result, "Plan.", "Answer.", [])
