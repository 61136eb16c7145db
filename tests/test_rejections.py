"""Every rejection reason is reachable, fails closed, and is reported the same way in every chunking;
misuse of the parser object (not model output) raises clear, documented errors."""

from __future__ import annotations

import pytest
from invariants import calls, check_stream, reasons

from streamparse import REASONS, ParserClosedError, Reason, StreamParser, ToolCallRejected, parse

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "count": {"type": "integer"}},
                "required": ["order_id"],
                "additionalProperties": False,
            },
        },
    }
]
GOOD = '<tool_call>{"name": "lookup_order", "arguments": {"order_id": "A-1"}}</tool_call>'
GATED_CALL = '{"name": "lookup_order", "arguments": {"order_id": "A-%d"}}'

# reason -> (input, options): the smallest realistic output that produces it, with text around.
CASES: dict[str, tuple[str, dict[str, object]]] = {
    "truncated": ('Checking. <tool_call>{"name": "lookup_order", "arguments": {"order_id": "A-', {}),
    "malformed": ('Checking. <tool_call>{"name": "lookup_order", "arguments": {order_id: 1}}</tool_call> ok', {}),
    "unknown_tool": ('Checking. <tool_call>{"name": "rm_rf", "arguments": {}}</tool_call> ok', {"tools": TOOLS}),
    "schema_violation": (
        'Checking. <tool_call>{"name": "lookup_order", "arguments": {"order_id": 7}}</tool_call> ok',
        {"tools": TOOLS},
    ),
    "too_large": (
        'Checking. <tool_call>{"name": "lookup_order", "arguments": {"order_id": "' + "9" * 400 + '"}}</tool_call> ok',
        {"max_call_chars": 200},
    ),
    "ambiguous": (
        "need_tool: yes\n" + GATED_CALL % 1 + "\nneed_tool: yes\n" + GATED_CALL % 2 + "\n",
        {"tools": TOOLS, "fallback": "gated"},
    ),
}


@pytest.mark.parametrize("reason", list(CASES))
def test_each_reason_is_reachable_and_chunking_invariant(reason: str) -> None:
    text, options = CASES[reason]
    result = check_stream(text, formats=["hermes"], **options)  # type: ignore[arg-type]
    assert reason in reasons(result)
    assert set(reasons(result)) == {reason}
    assert not result.tool_calls  # fail closed: nothing executable came out
    for rej in result.rejected:
        assert rej.reason in REASONS and isinstance(rej.detail, str) and rej.detail
        assert rej.raw and rej.raw not in result.text  # rejected markup is never visible (result rule)


def test_every_reason_except_the_reserved_one_is_covered() -> None:
    assert set(CASES) == set(REASONS) - {Reason.IN_REASONING.value}


def test_rejection_events_carry_index_name_format_and_raw() -> None:
    text = GOOD + '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>' + GOOD
    result = check_stream(text, formats=["hermes"], tools=TOOLS)
    assert [c.name for c in result.tool_calls] == ["lookup_order", "lookup_order"]
    (rej,) = result.rejected
    assert isinstance(rej, ToolCallRejected)
    assert (rej.index, rej.reason, rej.name, rej.format) == (1, "unknown_tool", "rm_rf", "hermes")
    assert rej.raw == '<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>'
    assert [c.id for c in result.tool_calls] == ["call_0", "call_2"]  # indices are shared with rejections


def test_an_unknown_tool_never_starts_streaming() -> None:
    parser = StreamParser(formats=["hermes"], tools=TOOLS)
    events = parser.feed('<tool_call>{"name": "rm_rf", "arguments": {"path": "/"}}</tool_call>') + parser.close()
    assert [type(e).__name__ for e in events] == ["ToolCallRejected"]


def test_schema_violation_names_the_problem_nothing_is_filled_and_strict_coerces_nothing() -> None:
    missing = parse('<tool_call>{"name": "lookup_order", "arguments": {}}</tool_call>', formats=["hermes"], tools=TOOLS)
    assert reasons(missing) == ["schema_violation"] and "order_id" in missing.rejected[0].detail
    extra = parse(
        '<tool_call>{"name": "lookup_order", "arguments": {"order_id": "A", "x": 1}}</tool_call>',
        formats=["hermes"],
        tools=TOOLS,
    )
    assert reasons(extra) == ["schema_violation"]
    wrong = parse(
        '<tool_call>{"name": "lookup_order", "arguments": {"order_id": "A", "count": "4"}}</tool_call>',
        formats=["hermes"],
        tools=TOOLS,
    )
    # Lenient typing (the default) converts "4" where the schema admits only an integer; strict does not.
    assert reasons(wrong) == [] and wrong.tool_calls[0].arguments["count"] == 4
    strict = parse(
        '<tool_call>{"name": "lookup_order", "arguments": {"order_id": "A", "count": "4"}}</tool_call>',
        formats=["hermes"],
        tools=TOOLS,
        coercion="strict",
    )
    assert reasons(strict) == ["schema_violation"]


def test_a_truncated_call_after_complete_ones_keeps_them() -> None:
    result = check_stream(GOOD + GOOD[:-5], formats=["hermes"])
    assert calls(result) == [("lookup_order", {"order_id": "A-1"})]
    assert reasons(result) == ["truncated"]
    assert result.text == ""  # the partial markup is not visible (end-of-stream rule)


def test_a_single_gated_candidate_passes_the_gates() -> None:
    result = check_stream("need_tool: yes\n" + GATED_CALL % 1, formats=["hermes"], tools=TOOLS, fallback="gated")
    assert calls(result) == [("lookup_order", {"order_id": "A-1"})]
    assert result.tool_calls[0].fallback_used and result.tool_calls[0].validation == "pass"


def test_without_intent_a_gated_candidate_is_plain_text() -> None:
    text = GATED_CALL % 1
    result = check_stream(text, formats=["hermes"], tools=TOOLS, fallback="gated")
    assert not result.tool_calls and not result.rejected and result.text == text


def test_ambiguous_rejects_every_gated_candidate_at_close() -> None:
    text, options = CASES["ambiguous"]
    parser = StreamParser(formats=["hermes"], **options)  # type: ignore[arg-type]
    during = parser.feed(text)
    assert not any(isinstance(e, ToolCallRejected) for e in during)  # the count is only known at the end
    at_close = [e for e in parser.close() if isinstance(e, ToolCallRejected)]
    assert [e.reason for e in at_close] == ["ambiguous", "ambiguous"]
    assert parser.finish_reason == "stop"


# -- misuse of the parser object raises, clearly --------------------------------------------------------


def test_feed_after_close_raises_parser_closed_error() -> None:
    parser = StreamParser()
    parser.feed("hello")
    parser.close()
    assert parser.closed
    with pytest.raises(ParserClosedError, match="reset"):
        parser.feed("more")
    with pytest.raises(ParserClosedError):
        parser.feed(b"more")
    with pytest.raises(ParserClosedError):
        parser.close()
    assert issubclass(ParserClosedError, RuntimeError)


def test_reset_makes_a_closed_parser_usable_again() -> None:
    parser = StreamParser(formats=["hermes"])
    parser.feed(GOOD)
    parser.close()
    parser.reset()
    events = parser.feed(GOOD) + parser.close()
    assert [type(e).__name__ for e in events][-1] == "ToolCallEnd"
    assert parser.stats.calls_accepted == 1


@pytest.mark.parametrize("chunk", [None, 42, 1.5, ["a"], {"a": 1}, object()], ids=repr)
def test_feeding_something_that_is_not_text_raises_type_error(chunk: object) -> None:
    parser = StreamParser()
    with pytest.raises(TypeError, match="str or bytes"):
        parser.feed(chunk)  # type: ignore[arg-type]
    assert parser.feed("still usable") != []


@pytest.mark.parametrize("chunk", [bytearray(b"<tool"), memoryview(b"<tool")], ids=type)
def test_bytes_like_chunks_are_accepted(chunk: bytes) -> None:
    parser = StreamParser(formats=["hermes"])
    events = parser.feed(chunk) + parser.feed('_call>{"name": "f", "arguments": {}}</tool_call>') + parser.close()
    assert [type(e).__name__ for e in events] == ["ToolCallStart", "ToolCallDelta", "ToolCallEnd"]


def test_invalid_utf8_never_raises() -> None:
    parser = StreamParser()
    events = parser.feed(b"ok \xff\xfe <tool_call>\xc3") + parser.close()
    assert "".join(getattr(e, "text", "") for e in events).startswith("ok \ufffd\ufffd")


def test_unknown_options_and_formats_raise_value_error() -> None:
    with pytest.raises(ValueError, match="hermes"):
        StreamParser(formats=["hermez"])
    with pytest.raises(ValueError):
        StreamParser(calls_in_reasoning="execute")


def test_schema_violation_carries_the_complete_arguments_other_rejections_do_not() -> None:
    from streamparse import StreamParser
    from streamparse.events import ToolCallRejected

    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}]  # fmt: skip
    parser = StreamParser(formats=["hermes"], tools=tools)
    text = '<tool_call>{"name": "f", "arguments": {"n": "x"}}</tool_call><tool_call>{"name": "g", "arguments": {}}</tool_call>'
    events = [e for ch in text for e in parser.feed(ch)] + parser.close()
    rejected = [e for e in events if isinstance(e, ToolCallRejected)]
    assert [(e.reason, e.arguments) for e in rejected] == [("schema_violation", '{"n": "x"}'), ("unknown_tool", None)]
