"""The engine contract the vLLM adapters keep where an operator swaps them for vLLM's own parsers (issue 22):
reasoning parsers alone, tools from the request, id-less deltas, one instance for many requests, structural tags,
and the engine's conventions (Kimi ids, whitespace-only content)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_tokenizer import marker_tokenizer
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionNamedToolChoiceParam
from vllm.parser import ParserManager
from vllm_drive import chat_request, joined_arguments, stream, tool_deltas

from streamparse.integrations import vllm as adapter

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def _reason(name: str, text: str, **kwargs: Any) -> tuple[str | None, str | None]:
    parser = adapter.REASONING_PARSERS[name](marker_tokenizer(), **kwargs)
    return parser.extract_reasoning(text, chat_request())


def _reason_stream(parser: Any, text: str) -> tuple[str, str]:
    tok = marker_tokenizer()
    reasoning, content, previous = [], [], ""
    for token in tok.encode(text):
        piece = tok.decode([token])
        delta = parser.extract_reasoning_streaming(previous, previous + piece, piece, [], [], [token])
        previous += piece
        if delta is not None:
            reasoning.append(delta.reasoning or "")
            content.append(delta.content or "")
    return "".join(reasoning), "".join(content)


@pytest.mark.parametrize("family", ["qwen3", "deepseek_r1", "glm45", "minimax_m2", "ernie45", "kimi_k2"])
def test_a_family_reasoning_parser_alone_starts_inside_reasoning(family: str) -> None:
    assert _reason(f"streamparse_{family}", "step one</think>The answer.") == ("step one", "The answer.")
    assert _reason(f"streamparse_{family}", "still thinking") == ("still thinking", None)


def test_thinking_switched_off_by_the_request_means_no_reasoning() -> None:
    off = {"chat_template_kwargs": {"enable_thinking": False}}
    assert _reason("streamparse_qwen3", "The answer.", **off) == (None, "The answer.")
    assert _reason("streamparse_deepseek_v3", "The answer.") == (None, "The answer.")
    on = {"chat_template_kwargs": {"thinking": True}}
    assert _reason("streamparse_deepseek_v3", "step</think>The answer.", **on) == ("step", "The answer.")


def test_the_prompt_s_last_think_token_decides_where_the_output_starts() -> None:
    tok = marker_tokenizer()
    open_id, close_id = tok.convert_tokens_to_ids(["<think>", "</think>"])
    primed = adapter.REASONING_PARSERS["streamparse_hermes"](tok)
    primed.adjust_initial_state_from_prompt([5, 6, open_id])
    assert _reason_stream(primed, "step one</think>The answer.") == ("step one", "The answer.")
    closed = adapter.REASONING_PARSERS["streamparse_qwen3"](tok)
    closed.adjust_initial_state_from_prompt([5, open_id, 6, close_id])
    assert _reason_stream(closed, "The answer.") == ("", "The answer.")


@pytest.mark.parametrize(
    ("prompt_end", "expected"),
    [
        ("<|open|>think<|sep|>", ("Weigh it.", "It is 4.")),  # thinking on: the prompt opened the think channel
        ("<|open|>response<|sep|>", (None, "It is 4.")),  # thinking off: the output is the response
    ],
)
def test_a_kimi_k3_prompt_s_last_channel_decides_where_the_output_starts(
    prompt_end: str, expected: tuple[str | None, str]
) -> None:
    """No ``<think>`` token in K3's prompt: its decoded end is read by the parser's prompt rule (``prompt=``)."""
    from types import SimpleNamespace

    tok = marker_tokenizer()
    served = SimpleNamespace(served_model_name="moonshotai/Kimi-K3", model="moonshotai/Kimi-K3")
    parser = adapter.REASONING_PARSERS["streamparse"](tok, model_config=served)
    parser.adjust_initial_state_from_prompt(tok.encode("<|open|>user<|sep|>2+2?<|close|>user<|sep|>" + prompt_end))
    output = "It is 4.<|close|>response<|sep|>"
    if expected[0] is not None:
        output = expected[0] + "<|close|>think<|sep|><|open|>response<|sep|>" + output
    reasoning, content = parser.extract_reasoning(output, chat_request(model="moonshotai/Kimi-K3"))
    # Alone, the rest of the output is left verbatim for the engine's tool parser (channel markup included).
    assert reasoning == expected[0]
    assert content is not None and expected[1] in content and "Weigh" not in content


def test_alone_the_call_markup_is_left_verbatim_in_the_content_for_the_engine_s_tool_parser() -> None:
    text = "I need the weather.\n\n" + CALL.replace("<tool_call>", "<tool_call>\n") + " after"
    reasoning, content = _reason("streamparse_qwen3", text)
    # A call opener written inside reasoning ends it, as vLLM's Qwen3 parser has it.
    assert reasoning == "I need the weather.\n\n"
    assert content == text[len(reasoning) :]
    parser = adapter.REASONING_PARSERS["streamparse_qwen3"](marker_tokenizer())
    assert _reason_stream(parser, "step</think>\n" + CALL) == ("step", "\n" + CALL)
    assert parser.has_engine_confirmed_reasoning_end()


@pytest.mark.parametrize("interval", [1, 3])
def test_streamparse_reasoning_with_vllm_s_own_hermes_tool_parser_streams_the_call(interval: int) -> None:
    tok = marker_tokenizer()
    cls = ParserManager.get_parser(
        tool_parser_name="hermes", reasoning_parser_name="streamparse_qwen3", enable_auto_tools=True
    )
    req = chat_request(tools=[WEATHER])
    parser = cls(tok, req.tools)
    ids = tok.encode("I need the weather.</think>Checking. " + CALL)
    deltas = []
    for i in range(0, len(ids), interval):
        chunk = ids[i : i + interval]
        delta = parser.parse_delta(tok.decode(chunk), chunk, req, [], finished=i + interval >= len(ids))
        if delta is not None:
            deltas.append(delta)
    assert "".join(d.reasoning or "" for d in deltas) == "I need the weather."
    assert [tc.function.name for tc in tool_deltas(deltas) if tc.function.name] == ["get_weather"]
    assert json.loads(joined_arguments(deltas)) == {"city": "Paris"}


def test_count_reasoning_tokens_counts_the_tokens_inside_reasoning() -> None:
    tok = marker_tokenizer()
    open_id, close_id = tok.convert_tokens_to_ids(["<think>", "</think>"])
    parser = adapter.REASONING_PARSERS["streamparse_qwen3"](tok)
    assert parser.count_reasoning_tokens([open_id, 11, 12, close_id, 13]) == 2
    assert parser.count_reasoning_tokens([11, 12, close_id, 13]) == 2  # primed: the output starts inside


def test_names_are_checked_against_the_request_s_tools_not_the_parser_s() -> None:
    built_with = [{"type": "function", "function": {"name": "other", "parameters": {}}}]
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer(), built_with)
    info = parser.extract_tool_calls(CALL, chat_request(tools=[WEATHER]))
    assert [c.function.name for c in info.tool_calls] == ["get_weather"]
    refused = parser.extract_tool_calls(CALL, chat_request(tools=built_with))
    assert not refused.tool_calls
    # No tools in the request: no name check, as vLLM's parsers.
    assert [c.function.name for c in parser.extract_tool_calls(CALL, chat_request()).tool_calls] == ["get_weather"]


def test_deltas_without_token_ids_are_read_as_text() -> None:
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer())
    req, deltas = chat_request(), []
    for i in range(0, len(CALL), 4):
        piece = CALL[i : i + 4]
        deltas.append(parser.extract_tool_calls_streaming("", "", piece, [], [], [], req))
    deltas.append(parser.finish_streaming())
    assert json.loads(joined_arguments([d for d in deltas if d is not None])) == {"city": "Paris"}


def test_one_instance_serves_one_request_after_another() -> None:
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer())
    tok = marker_tokenizer()
    for _ in range(2):
        deltas = stream(parser, tok, chat_request(), "Sure. " + CALL, 2)
        assert [tc.index for tc in tool_deltas(deltas) if tc.function.name] == [0]
        assert "".join(d.content or "" for d in deltas) == "Sure. "


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder", "kimi_k2", "glm45"])
def test_required_and_named_tool_choice_get_the_format_s_structural_tag(fmt: str) -> None:
    cls = ParserManager.get_parser(tool_parser_name=f"streamparse_{fmt}", enable_auto_tools=True)
    req = chat_request(tools=[WEATHER], tool_choice="required")
    out = cls(marker_tokenizer(), req.tools).adjust_request(req)
    assert out.structured_outputs is not None and out.structured_outputs.structural_tag is not None
    named = chat_request(tools=[WEATHER])
    named.tool_choice = ChatCompletionNamedToolChoiceParam(function={"name": "get_weather"})
    out = cls(marker_tokenizer(), named.tools).adjust_request(named)
    assert out.structured_outputs is not None and "get_weather" in out.structured_outputs.structural_tag


def test_kimi_calls_keep_the_model_s_own_ids() -> None:
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    parser = adapter.TOOL_PARSERS["streamparse_kimi_k2"](marker_tokenizer())
    assert [c.id for c in parser.extract_tool_calls(text, chat_request()).tool_calls] == ["functions.get_weather:0"]
    deltas = stream(adapter.TOOL_PARSERS["streamparse_kimi_k2"](marker_tokenizer()), marker_tokenizer(), None, text)
    assert [tc.id for tc in tool_deltas(deltas) if tc.id] == ["functions.get_weather:0"]


def test_whitespace_only_content_around_calls_is_none() -> None:
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer())
    assert parser.extract_tool_calls("\n" + CALL + "\n", chat_request()).content is None


def test_without_a_reasoning_parser_reasoning_markup_stays_in_the_content() -> None:
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer())
    info = parser.extract_tool_calls("<think>hm</think>Sure. " + CALL, chat_request())
    assert info.content == "<think>hm</think>Sure. "
    deltas = stream(
        adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer()), marker_tokenizer(), None, "<think>hm</think>ok"
    )
    assert "".join(d.content or "" for d in deltas) == "<think>hm</think>ok"


@pytest.mark.parametrize("interval", [1, 2, 7])
def test_a_calls_header_goes_in_a_delta_of_its_own(interval: int) -> None:
    # vLLM's parsers send a call's id and name first, its arguments from the next delta on (vLLM's xLAM tests
    # read the header delta's arguments as empty); the fragments still join into the call's arguments. (A call
    # that starts and ends in one delta is sent whole.)
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer())
    deltas = stream(parser, marker_tokenizer(), chat_request(tools=[WEATHER]), "Sure. " + CALL + CALL, interval)
    headers = [tc for tc in tool_deltas(deltas) if tc.function.name]
    assert [tc.index for tc in headers] == [0, 1]
    assert all(not tc.function.arguments for tc in headers)
    for index in (0, 1):
        joined = "".join(tc.function.arguments or "" for tc in tool_deltas(deltas) if tc.index == index)
        assert json.loads(joined) == {"city": "Paris"}


@pytest.mark.parametrize(
    "wrapped",
    ["[TOOL_CALLS]{}", "<tool_call>{}</tool_call>", "\n```json\n{}\n```", "\n{}"],
    ids=["mistral", "hermes", "fence", "bare"],
)
def test_the_xlam_adapter_reads_the_wrappers_vllms_xlam_parser_reads(wrapped: str) -> None:
    calls = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    text = "I'll check." + wrapped.replace("{}", calls)
    parser = adapter.TOOL_PARSERS["streamparse_xlam"](marker_tokenizer())
    result = parser.extract_tool_calls(text, chat_request(tools=[WEATHER]))
    assert [(c.function.name, json.loads(c.function.arguments)) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert result.content == "I'll check."


@pytest.mark.parametrize(
    ("name", "call", "content"),
    [
        ("gemma4", '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>', "I'll check."),
        (
            "glm45",
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
            "I'll check.",
        ),
        (
            "qwen3_coder",
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
            "I'll check.",
        ),
        ("pythonic", "<|tool_call_start|>[get_weather(city='Paris')]<|tool_call_end|>", "I'll check."),
        ("hermes", CALL, "I'll check. "),
    ],
)
def test_content_whitespace_around_calls_is_the_engine_parsers(name: str, call: str, content: str) -> None:
    # vLLM's Gemma 4, GLM, Qwen3-Coder and LFM2 parsers strip the whitespace around calls from the content; its
    # Hermes parser hands it on.
    parser = adapter.TOOL_PARSERS[f"streamparse_{name}"](marker_tokenizer())
    result = parser.extract_tool_calls("I'll check. " + call, chat_request(tools=[WEATHER]))
    assert [c.function.name for c in result.tool_calls] == ["get_weather"]
    assert result.content == content


def test_whitespace_before_the_opening_think_is_no_reasoning_in_a_whole_output() -> None:
    # vLLM's DeepSeek R1 test `new_line`: the whole output's separator before <think> is dropped.
    assert _reason("streamparse_deepseek_r1", "\n<think>Plan.</think>\nDone.") == ("Plan.", "\nDone.")


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("<|assistant|><think>", ("Plan.", "4")),
        ("{% if enable_thinking %}<think>{% endif %}", (None, "Plan.</think>4")),
    ],
    ids=["no-switch", "switch"],
)
def test_a_thinking_switch_the_served_template_lacks_changes_nothing(template: str, expected: tuple[Any, Any]) -> None:
    # vLLM's GLM-5.3 test: its template always opens <think> (no enable_thinking in it), so a request's
    # enable_thinking=False must not turn the reasoning into content. With a switch, thinking off leaves the
    # whole output content, verbatim (vLLM's GLM-4.7 test).
    import copy

    tok = copy.copy(marker_tokenizer())
    tok.chat_template = template
    parser = adapter.REASONING_PARSERS["streamparse_glm45"](tok, chat_template_kwargs={"enable_thinking": False})
    assert parser.extract_reasoning("Plan.</think>4", chat_request()) == expected
