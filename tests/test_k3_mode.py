"""Kimi K3's thinking mode comes from what is really known (issue 17): the rendered prompt (``prompt=``),
else the request's ``thinking`` kwarg, else nothing; told nothing, the output starts as text and an orphan
``<|close|>think<|sep|>`` moves it to reasoning, so content is never emitted as reasoning."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, run

from streamparse import ReasoningDelta, StreamParser, TextWasReasoning

MODEL = "moonshotai/Kimi-K3"
# The end of the generation prompt of llama.cpp's models/templates/Kimi-K3.jinja (commit 181a4a8f, the
# template the fixtures in tests/data/real/templates.json were rendered from), rendered by
# streamparse.derive.render with the default kwargs (thinking on) and with thinking=False.
PROMPT_THINKING = '<|sep|><|end_of_msg|><|open|>message role="assistant"<|sep|><|open|>think<|sep|>'
PROMPT_NO_THINKING = '<|sep|><|end_of_msg|><|open|>message role="assistant"<|sep|><|open|>response<|sep|>'
K3_CALL = (
    '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" '
    'type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>'
)


def _k3_cases() -> list[dict[str, Any]]:
    data = json.loads((Path(__file__).parent / "data/real/templates.json").read_text(encoding="utf-8"))
    return [c for c in data["cases"] if c["model"] == MODEL]


CASES = _k3_cases()


def _reasoning_events(text: str, **options: Any) -> list[Any]:
    return [e for e in run([text], **options) if isinstance(e, (ReasoningDelta, TextWasReasoning))]


def test_the_real_fixtures_cover_both_modes() -> None:
    assert {bool(c["chat_template_kwargs"].get("thinking", True)) for c in CASES} == {True, False}


@pytest.mark.parametrize("case", CASES, ids=[f"{c['scenario']}-{c['chat_template_kwargs']}" for c in CASES])
def test_the_rendered_prompt_decides_the_mode(case: dict[str, Any]) -> None:
    thinking = case["chat_template_kwargs"].get("thinking", True)
    prompt = PROMPT_THINKING if thinking else PROMPT_NO_THINKING
    # the prompt wins over a request that says the opposite
    parser = StreamParser.for_model(MODEL, chat_template_kwargs={"thinking": not thinking}, prompt=prompt)
    result = check_stream(case["generated"], seeds=4, formats=parser.formats, prompt=prompt)
    expected = case["expected"]
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        (c["name"], c["arguments"]) for c in expected["calls"]
    ]
    assert (result.text, result.reasoning) == (expected["text"], expected["reasoning"])
    if not thinking:
        assert _reasoning_events(case["generated"], formats=parser.formats, prompt=prompt) == []
    else:  # primed: the reasoning streams as reasoning, no correction needed
        assert not any(isinstance(e, TextWasReasoning) for e in run([case["generated"]], prompt=prompt))


def test_for_model_takes_the_prompt_over_the_request() -> None:
    on = StreamParser.for_model(MODEL, chat_template_kwargs={"thinking": False}, prompt=PROMPT_THINKING)
    off = StreamParser.for_model(MODEL, chat_template_kwargs={"thinking": True}, prompt=PROMPT_NO_THINKING)
    assert on._config.start_in_reasoning and not off._config.start_in_reasoning
    assert StreamParser.for_model(MODEL, chat_template_kwargs={"thinking": True})._config.start_in_reasoning
    explicit = StreamParser.for_model(MODEL, prompt=PROMPT_THINKING, start_in_reasoning=False)
    assert not explicit._config.start_in_reasoning


def test_told_nothing_content_is_never_reasoning_and_reasoning_is_moved() -> None:
    parser = StreamParser.for_model(MODEL)
    off = "Let me check.<|close|>response<|sep|>" + K3_CALL + "<|close|>message<|sep|>"
    result = check_stream(off, formats=parser.formats)
    assert (result.text, result.reasoning, calls(result)) == ("Let me check.", "", [("get_weather", {"city": "Paris"})])
    assert _reasoning_events(off, formats=parser.formats) == []
    on = "Plan it.<|close|>think<|sep|><|open|>response<|sep|>Checking.<|close|>response<|sep|>" + K3_CALL
    result = check_stream(on, formats=parser.formats)
    assert (result.text, result.reasoning) == ("Checking.", "Plan it.")
    assert any(isinstance(e, TextWasReasoning) for e in run([on], formats=parser.formats))


@pytest.mark.parametrize(
    "text",
    [
        "<|open|>response<|sep|>Hi.<|close|>response<|sep|>" + K3_CALL,
        "<|close|>response<|sep|>" + K3_CALL,
        K3_CALL + "<|close|>message<|sep|>",
    ],
)
def test_an_output_that_starts_in_a_channel_ends_the_primed_reasoning(text: str) -> None:
    # even when the request (wrongly) said thinking: the output says it is not reasoning
    result = check_stream(text, formats=["kimi_k3"], start_in_reasoning=True)
    assert result.reasoning == "" and calls(result) == [("get_weather", {"city": "Paris"})]
    assert _reasoning_events(text, formats=["kimi_k3"], start_in_reasoning=True) == []


@pytest.mark.parametrize(
    ("prompt", "primed"),
    [
        ("<|im_start|>assistant\n<think>\n", True),
        ("<|im_start|>assistant\n<think>\n\n</think>\n\n", False),
        ("<|im_start|>assistant\n", False),
        (PROMPT_THINKING + "\n", True),
    ],
)
def test_a_prompt_primes_reasoning_exactly_when_it_ends_with_an_opener(prompt: str, primed: bool) -> None:
    fmts = ["hermes", "kimi_k3"]
    result = check_stream("Plan.</think>Hi.", formats=fmts, prompt=prompt)
    assert (result.reasoning, result.text) == ("Plan.", "Hi.")
    moved = any(isinstance(e, TextWasReasoning) for e in run(["Plan.</think>Hi."], formats=fmts, prompt=prompt))
    assert moved is not primed  # primed: streamed as reasoning; else released as text, then moved


_CONTENT = st.text(
    alphabet=st.sampled_from([chr(c) for c in range(32, 127) if chr(c) not in "<`"] + ["\n", "é"]), max_size=40
)  # (` opens code)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(content=_CONTENT)
def test_property_told_nothing_response_text_is_never_reasoning(content: str) -> None:
    formats = StreamParser.for_model(MODEL).formats
    text = content + "<|close|>response<|sep|>" + K3_CALL + "<|close|>message<|sep|>"
    result = check_stream(text, seeds=2, formats=formats)
    assert result.reasoning == "" and result.text == content.strip()
    assert _reasoning_events(text, formats=formats) == []
