"""Reasoning meets calls (issue 10 items 1-2): no complete call is lost, the orphan ``</think>`` rule.

Every case runs whole, per character, per UTF-8 byte and in random pieces (``check_stream``), and
``ParseResult.from_events`` of every chunking equals ``parse`` of the whole text.
"""

from __future__ import annotations

from typing import Any

import pytest
from invariants import byte_pieces, calls, check_stream, random_pieces, run

from streamparse import StreamParser, TextWasReasoning, parse
from streamparse.events import ParseResult
from streamparse.providers.openai_writer import completion_from_result

WEATHER = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def _same_result_every_chunking(text: str, **options: Any) -> ParseResult:
    whole = parse(text, **options)
    for chunks in (list(text), byte_pieces(text), random_pieces(text, 3)):
        got = ParseResult.from_events(run(chunks, **options))
        assert (got.text, got.reasoning) == (whole.text, whole.reasoning)
        assert calls(got) == calls(whole)
    return whole


def test_naming_a_primed_format_does_not_start_in_reasoning() -> None:
    text = '<minimax:tool_call>\n<invoke name="fn">\n<parameter name="x">1</parameter>\n</invoke>\n</minimax:tool_call>'
    assert StreamParser(formats=["minimax"])._config.start_in_reasoning is False
    result = check_stream(text, formats=["minimax"])
    assert calls(result) == [("fn", {"x": "1"})]


def test_native_opener_ends_primed_reasoning_of_a_preset() -> None:
    result = check_stream("<tool_call>get_location</tool_call>", **_preset("zai-org/GLM-4.7"))
    assert calls(result) == [("get_location", {})]
    assert result.reasoning == ""


def _preset(model: str) -> dict[str, Any]:
    parser = StreamParser.for_model(model)
    assert parser.preset is not None
    return {"formats": list(parser.formats), "start_in_reasoning": parser.preset.start_in_reasoning}


def test_primed_reasoning_then_a_call_without_closer_keeps_both() -> None:
    text = "The user wants Paris weather." + WEATHER
    result = check_stream(text, formats=["hermes"], start_in_reasoning=True)
    assert result.reasoning == "The user wants Paris weather."
    assert calls(result) == [("get_weather", {"city": "Paris"})]


def test_a_written_think_block_keeps_calls_inside_it_as_reasoning() -> None:
    text = "<think>I could emit " + WEATHER + " now</think>Done."
    result = check_stream(text, formats=["hermes"], start_in_reasoning=True)
    assert calls(result) == []
    assert "get_weather" in result.reasoning
    assert result.text == "Done."


def test_text_before_an_orphan_closer_is_reasoning() -> None:
    text = "Need the weather.\n</think>\n\n" + WEATHER
    result = _same_result_every_chunking(text)
    assert result.reasoning == "Need the weather."
    assert result.text.strip() == ""
    assert calls(result) == [("get_weather", {"city": "Paris"})]
    check_stream(text)


@pytest.mark.parametrize("formats", ["auto", ["hermes"], ["deepseek_v31"], ["minimax"]])
def test_orphan_closer_rule_holds_for_every_format_choice(formats: Any) -> None:
    text = "Thinking it over.</think>The answer is 4."
    result = _same_result_every_chunking(text, formats=formats)
    assert (result.reasoning, result.text) == ("Thinking it over.", "The answer is 4.")


def test_the_retraction_event_counts_the_released_text() -> None:
    events = run(list("abc</think>def"))
    marks = [e for e in events if isinstance(e, TextWasReasoning)]
    assert marks == [TextWasReasoning(3)]
    assert ParseResult.from_events(events).reasoning == "abc"


def test_an_orphan_closer_after_a_reasoning_block_is_only_markup() -> None:
    result = _same_result_every_chunking("<think>a</think>b</think>c")
    assert (result.reasoning, result.text) == ("a", "bc")


def test_an_orphan_closer_after_a_call_is_only_markup() -> None:
    result = _same_result_every_chunking(WEATHER + "x</think>y", formats=["hermes"])
    assert result.text.strip() == "xy"
    assert result.reasoning == ""


def test_whitespace_before_an_orphan_closer_is_not_reasoning() -> None:
    events = run(["\n</think>\n\nHello"])
    assert not any(isinstance(e, TextWasReasoning) for e in events)
    assert ParseResult.from_events(events).text.strip() == "Hello"


def test_non_streaming_response_puts_the_moved_text_in_reasoning() -> None:
    result = parse("Need the weather.\n</think>\n\n" + WEATHER)
    message = completion_from_result(result, "m")["choices"][0]["message"]
    assert message["reasoning_content"] == "Need the weather."
    assert message["tool_calls"][0]["function"]["name"] == "get_weather"
