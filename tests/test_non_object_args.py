"""Arguments that are not a JSON object: a JSON string holding an object is that object (always); other
values are rejected by default and, with ``non_object_args="pass"``, handed on as their JSON text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from invariants import byte_pieces, random_pieces

from streamparse import StreamParser, ToolCallDelta, ToolCallEnd, ToolCallRejected
from streamparse.events import Event


def call(arguments: Any) -> str:
    return "<tool_call>" + json.dumps({"name": "f", "arguments": arguments}) + "</tool_call>"


def run(text: str, chunks: list[Any] | None = None, **options: Any) -> list[Event]:
    parser = StreamParser(["hermes"], **options)
    events = [ev for chunk in (chunks or [text]) for ev in parser.feed(chunk)]
    return events + parser.close()


def every_chunking(text: str, **options: Any) -> list[list[Event]]:
    variants = [[text], list(text), byte_pieces(text)] + [random_pieces(text, s) for s in range(8)]
    return [run(text, chunks, **options) for chunks in variants]


@pytest.mark.parametrize("policy", ["reject", "pass"])
def test_a_string_holding_an_object_is_that_object_under_every_policy(policy: str) -> None:
    for events in every_chunking(call('{"city": "Paris"}'), non_object_args=policy):
        (end,) = [ev for ev in events if isinstance(ev, ToolCallEnd)]
        assert end.call.arguments == {"city": "Paris"}
        assert "".join(ev.arguments for ev in events if isinstance(ev, ToolCallDelta)) == '{"city": "Paris"}'


@pytest.mark.parametrize("value", ["hello", "{hello world}", "[oops", '{"a": 1} tail text', [1, 2], 3, True])
def test_other_values_are_rejected_by_default(value: Any) -> None:
    for events in every_chunking(call(value)):
        assert not [ev for ev in events if isinstance(ev, ToolCallEnd)]
        assert [ev.reason for ev in events if isinstance(ev, ToolCallRejected)] == ["malformed"]


@pytest.mark.parametrize("value", ["hello", "{hello world}", "[oops", '{"a": 1} tail text', [1, 2], 3, True])
def test_pass_hands_other_values_on_as_their_json_text(value: Any) -> None:
    for events in every_chunking(call(value), non_object_args="pass"):
        (end,) = [ev for ev in events if isinstance(ev, ToolCallEnd)]
        joined = "".join(ev.arguments for ev in events if isinstance(ev, ToolCallDelta))
        assert joined == end.call.arguments_json
        assert json.loads(joined) == value
        assert end.call.arguments == {}  # no object to hand out; flagged so a dispatcher can tell
        assert "non_object_arguments" in end.call.repairs


def test_null_arguments_are_no_arguments() -> None:
    (end,) = [ev for ev in run(call(None)) if isinstance(ev, ToolCallEnd)]
    assert end.call.arguments_json == "{}"


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="non_object_args"):
        StreamParser(["hermes"], non_object_args="keep")  # type: ignore[arg-type]


KIMI = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"


def header_call(arguments_text: str) -> str:
    """A call whose name is in a header and whose body is the arguments (kimi_k2)."""
    return KIMI.replace("{}", arguments_text, 1)


def header_chunkings(text: str, **options: Any) -> list[list[Event]]:
    variants = [[text], list(text)] + [random_pieces(text, s) for s in range(6)]
    out = []
    for chunks in variants:
        parser = StreamParser(["kimi_k2"], **options)
        out.append([ev for chunk in chunks for ev in parser.feed(chunk)] + parser.close())
    return out


@pytest.mark.parametrize("policy", ["reject", "pass"])
def test_a_string_body_holding_an_object_is_that_object_in_header_formats(policy: str) -> None:
    for events in header_chunkings(header_call(json.dumps('{"a": 1}')), non_object_args=policy):
        (end,) = [ev for ev in events if isinstance(ev, ToolCallEnd)]
        assert end.call.arguments == {"a": 1}
        assert "".join(ev.arguments for ev in events if isinstance(ev, ToolCallDelta)) == '{"a": 1}'


@pytest.mark.parametrize("value", ['"hello"', "[1, 2]", "3"])
def test_header_formats_follow_the_non_object_policy(value: str) -> None:
    for events in header_chunkings(header_call(value)):
        assert [ev.reason for ev in events if isinstance(ev, ToolCallRejected)] == ["malformed"]
    for events in header_chunkings(header_call(value), non_object_args="pass"):
        (end,) = [ev for ev in events if isinstance(ev, ToolCallEnd)]
        assert "".join(ev.arguments for ev in events if isinstance(ev, ToolCallDelta)) == end.call.arguments_json
        assert json.loads(end.call.arguments_json) == json.loads(value)


def test_a_null_body_is_no_arguments() -> None:
    for events in header_chunkings(header_call("null")):
        (end,) = [ev for ev in events if isinstance(ev, ToolCallEnd)]
        assert end.call.arguments_json == "{}"
