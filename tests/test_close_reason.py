"""close(reason=...): a complete call body whose closing marker is missing is accepted on a normal stop
(a stop sequence ate the closer) and rejected as truncated when the stream stopped for length."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import byte_pieces, check_deltas, random_pieces

from streamparse import StreamParser, ToolCallEnd, ToolCallRejected
from streamparse.events import Event

BODY = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}'


def chunkings(text: str) -> list[list[Any]]:
    return [[text], list(text), byte_pieces(text)] + [random_pieces(text, seed) for seed in range(8)]


def run(chunks: list[Any], reason: str | None) -> list[Event]:
    parser = StreamParser(["hermes"])
    events = [ev for chunk in chunks for ev in parser.feed(chunk)]
    return events + parser.close(reason)


@pytest.mark.parametrize("tail", ["", "\n", "\n</tool_", "</tool_call"])
def test_a_complete_body_without_its_closer_is_accepted_on_a_normal_stop(tail: str) -> None:
    for chunks in chunkings(BODY + tail):
        events = run(chunks, "stop")
        check_deltas(events)
        (end,) = [ev for ev in events if isinstance(ev, ToolCallEnd)]
        assert (end.call.name, end.call.arguments) == ("final_answer", {"trigger": True})
        assert end.call.raw == (BODY + tail).rstrip()
        text = "".join(ev.text for ev in events if ev.type == "text")  # type: ignore[union-attr]
        assert not text.strip()  # no markup leaks into the text


@pytest.mark.parametrize("reason", ["length", None, "abort"])
def test_the_same_body_is_truncated_when_the_stream_did_not_stop_normally(reason: str | None) -> None:
    for chunks in chunkings(BODY):
        events = run(chunks, reason)
        assert not [ev for ev in events if isinstance(ev, ToolCallEnd)]
        (rejected,) = [ev for ev in events if isinstance(ev, ToolCallRejected)]
        assert rejected.reason == "truncated"


def test_an_incomplete_body_is_truncated_even_on_a_normal_stop() -> None:
    for chunks in chunkings('<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true'):
        events = run(chunks, "stop")
        assert [ev.reason for ev in events if isinstance(ev, ToolCallRejected)] == ["truncated"]


def test_text_after_the_body_is_not_a_stop_sequence_remainder() -> None:
    """Something other than the closer after the body is malformed markup, whatever the reason."""
    events = run([BODY + " and more"], "stop")
    assert [ev.reason for ev in events if isinstance(ev, ToolCallRejected)] == ["malformed"]


TAGGED = [
    ("glm45", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>", "</tool_call>"),
    ("qwen3_coder", "<tool_call>\n<function=get_weather>\n<parameter=city>\nBeijing\n</parameter>\n", "</function>"),
]


@pytest.mark.parametrize(("fmt", "body", "closer"), TAGGED)
@pytest.mark.parametrize("cut", [0, 4])
def test_tagged_bodies_follow_the_same_rule(fmt: str, body: str, closer: str, cut: int) -> None:
    text = body + closer[:cut]
    for chunks in chunkings(text):
        for reason, verdict in (
            ("stop", "tool_call_end"),
            ("length", "tool_call_rejected"),
            (None, "tool_call_rejected"),
        ):
            parser = StreamParser([fmt])
            events = [ev for chunk in chunks for ev in parser.feed(chunk)] + parser.close(reason)
            check_deltas(events)
            verdicts = [ev for ev in events if isinstance(ev, ToolCallEnd | ToolCallRejected)]
            assert [ev.type for ev in verdicts] == [verdict], (reason, chunks)
            if verdict == "tool_call_end":
                assert verdicts[0].call.arguments == {"city": "Beijing"}  # type: ignore[union-attr]


@pytest.mark.parametrize(("fmt", "body"), [(f, b) for f, b, _ in TAGGED])
def test_an_unfinished_tagged_value_is_truncated_on_a_normal_stop(fmt: str, body: str) -> None:
    text = body[: body.index("Beijing") + 4]
    parser = StreamParser([fmt])
    events = parser.feed(text) + parser.close("stop")
    assert [ev.reason for ev in events if isinstance(ev, ToolCallRejected)] == ["truncated"]
