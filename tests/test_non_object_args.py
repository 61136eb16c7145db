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
