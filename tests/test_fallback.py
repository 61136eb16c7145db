"""``StreamParser(fallback=...)``: where unmarked formats are tried, and the gated fallback."""

from __future__ import annotations

import json

import pytest
from invariants import calls, check_stream, reasons

from streamparse import StreamParser, parse
from streamparse.events import ToolCallEnd, ToolCallStart
from streamparse.states.gates import GATED_MAX_CHARS

SEARCH = {
    "type": "function",
    "function": {
        "name": "search_web",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}
TOOLS = [SEARCH]
CALL = json.dumps({"tool": "search_web", "arguments": {"query": "weather in Antwerp"}})
OTHER = json.dumps({"tool": "search_web", "arguments": {"query": "news"}})


def test_default_tries_unmarked_formats_at_the_start_as_fallbacks() -> None:
    result = check_stream(CALL, formats="auto")
    assert calls(result) == [("search_web", {"query": "weather in Antwerp"})]
    assert result.tool_calls[0].fallback_used is True
    assert StreamParser(formats="auto", fallback="start").formats  # "start" is the default's name


def test_named_formats_are_not_fallbacks_and_claim_line_starts() -> None:
    text = "Let me search.\n" + CALL
    result = check_stream(text, formats=["json"])
    assert calls(result) == [("search_web", {"query": "weather in Antwerp"})]
    assert result.tool_calls[0].fallback_used is False
    assert result.text == "Let me search."


def test_stats_count_fallback_calls() -> None:
    p = StreamParser(formats="auto")
    p.feed(CALL)
    p.close()
    assert p.stats.fallback_calls == 1


def test_off_never_tries_formats_that_were_not_named() -> None:
    result = check_stream(CALL, formats="auto", fallback="off")
    assert result.text == CALL and not result.tool_calls
    named = check_stream(CALL, formats=["json"], fallback="off")
    assert calls(named) == [("search_web", {"query": "weather in Antwerp"})]


def test_off_keeps_marked_formats() -> None:
    text = '<tool_call>{"name": "search_web", "arguments": {"query": "a"}}</tool_call>'
    assert calls(check_stream(text, formats="auto", fallback="off")) == [("search_web", {"query": "a"})]


def test_unknown_fallback_value_raises() -> None:
    with pytest.raises(ValueError, match="fallback"):
        StreamParser(fallback="sometimes")


# -- gated ---------------------------------------------------------------------------------------------------


def test_gated_without_intent_is_text() -> None:
    result = check_stream(CALL, formats="auto", fallback="gated", tools=TOOLS)
    assert result.text == CALL and not result.tool_calls and not result.rejected


@pytest.mark.parametrize(
    "intent", ["need_tool: yes\n", "need_tool: YES \n", "CALL_TOOL\n", "CALL_TOOL: ", "x CALL_TOOL "]
)
def test_gated_with_intent_single_candidate_is_accepted(intent: str) -> None:
    result = check_stream(intent + CALL, formats="auto", fallback="gated", tools=TOOLS)
    assert calls(result) == [("search_web", {"query": "weather in Antwerp"})]
    call = result.tool_calls[0]
    assert call.fallback_used is True and call.validation == "pass"
    assert "need_tool" not in result.text and "CALL_TOOL" not in result.text  # the intent marker is markup


def test_gated_verdict_waits_for_close() -> None:
    p = StreamParser(formats="auto", fallback="gated", tools=TOOLS)
    events = p.feed("need_tool: yes\n" + CALL + "\nDone.")
    assert any(isinstance(e, ToolCallStart) for e in events)
    assert not any(isinstance(e, ToolCallEnd) for e in events)  # a second candidate could still come
    assert [type(e) for e in p.close() if isinstance(e, ToolCallEnd)] == [ToolCallEnd]
    assert p.finish_reason == "tool_calls"


def test_gated_two_candidates_are_both_ambiguous() -> None:
    text = "need_tool: yes\n" + CALL + "\n" + OTHER
    result = check_stream(text, formats="auto", fallback="gated", tools=TOOLS)
    assert not result.tool_calls and reasons(result) == ["ambiguous", "ambiguous"]
    two_intents = "CALL_TOOL " + CALL + "\nCALL_TOOL " + OTHER
    result = check_stream(two_intents, formats="auto", fallback="gated", tools=TOOLS)
    assert reasons(result) == ["ambiguous", "ambiguous"]
    a_list = "CALL_TOOL [" + CALL + ", " + OTHER + "]"
    assert reasons(check_stream(a_list, formats="auto", fallback="gated", tools=TOOLS)) == ["ambiguous", "ambiguous"]


def test_gated_needs_an_allowlist() -> None:
    result = check_stream("CALL_TOOL " + CALL, formats="auto", fallback="gated")
    assert reasons(result) == ["unknown_tool"] and not result.tool_calls
    other = json.dumps({"tool": "rm_rf", "arguments": {}})
    assert reasons(check_stream("CALL_TOOL " + other, formats="auto", fallback="gated", tools=TOOLS)) == [
        "unknown_tool"
    ]


def test_gated_strict_schema_validation() -> None:
    bad = json.dumps({"tool": "search_web", "arguments": {"query": "a", "extra": 1}})
    result = check_stream("CALL_TOOL " + bad, formats="auto", fallback="gated", tools=TOOLS)
    assert reasons(result) == ["schema_violation"]


def test_gated_size_cap() -> None:
    big = json.dumps({"tool": "search_web", "arguments": {"query": "q" * GATED_MAX_CHARS}})
    result = check_stream("CALL_TOOL " + big, formats="auto", fallback="gated", tools=TOOLS, seeds=2)
    assert reasons(result) == ["too_large"] and not result.tool_calls
    args_first = json.dumps({"arguments": {"query": "q" * GATED_MAX_CHARS}, "tool": "search_web"})
    held_too_long = check_stream("CALL_TOOL " + args_first, formats="auto", fallback="gated", tools=TOOLS, seeds=2)
    assert held_too_long.text == args_first and not held_too_long.rejected


def test_gated_candidate_must_follow_the_intent() -> None:
    text = "need_tool: yes\nLet me think about it.\n" + CALL
    result = check_stream(text, formats="auto", fallback="gated", tools=TOOLS)
    assert not result.tool_calls and result.text.endswith(CALL)


def test_need_tool_no_is_text() -> None:
    text = "need_tool: no\n" + CALL
    result = check_stream(text, formats="auto", fallback="gated", tools=TOOLS)
    assert result.text == text and not result.tool_calls


def test_gated_fallback_beside_a_named_primary_format() -> None:
    primary = '<tool name="search_web">{"query": "a"}</tool>'
    result = check_stream(primary + "\nCALL_TOOL " + CALL, formats=["tag_json"], fallback="gated", tools=TOOLS)
    assert [(c.name, c.format, c.fallback_used) for c in result.tool_calls] == [
        ("search_web", "tag_json", False),
        ("search_web", "json", True),
    ]
    # The primary format is never gated; unnamed formats without intent are text.
    plain = check_stream(CALL, formats=["tag_json"], fallback="gated", tools=TOOLS)
    assert plain.text == CALL and not plain.tool_calls


def test_gated_not_call_shaped_after_intent_is_text() -> None:
    text = 'CALL_TOOL {"name": "pkg", "version": "1"}'
    result = check_stream(text, formats="auto", fallback="gated", tools=TOOLS)
    assert result.text == '{"name": "pkg", "version": "1"}' and not result.rejected


def test_default_fallback_in_parse() -> None:
    assert parse(CALL).tool_calls[0].fallback_used
    assert not parse(CALL, fallback="off").tool_calls


def test_gates_apply_to_every_start_handler_not_only_json() -> None:
    bracket = '[search_web(query="Antwerp")]'
    assert check_stream(bracket, formats=["tag_json"], fallback="gated", tools=TOOLS).text == bracket
    result = check_stream("CALL_TOOL\n" + bracket, formats=["tag_json"], fallback="gated", tools=TOOLS)
    assert [(c.name, c.format, c.fallback_used) for c in result.tool_calls] == [("search_web", "pythonic", True)]
