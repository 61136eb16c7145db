"""Lenient typing planned once per tool (states/lenient.py, ``lenient_targets``) gives exactly what looking
each key up as it comes gives: the same events feed by feed (so the same earliest release), the same raw
markup and verdicts, under 1-character, 1-byte and random chunkings, while an arguments object none of whose
members can be converted is read without a callback per member.

The reference is the same parser with ``lenient_targets`` giving None: the reader reports every member and
each key's schema is looked up as it comes, as before the plan."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import byte_pieces, random_pieces

from streamparse import StreamParser
from streamparse.events import Event, ToolCallEnd, ToolCallRejected
from streamparse.states import lenient
from streamparse.tools import ToolSet

LANE = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOOLS = ToolSet(
    {
        "get_weather": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["C", "F"]}},
            "required": ["city"],
        },
        "set_alarm": {
            "type": "object",
            "properties": {"minutes": {"type": "integer", "minimum": 1}, "label": {"type": "string"}},
            "required": ["minutes"],
        },
        "lookup_order": {
            "type": "object",
            "properties": {"order_id": {"type": "string", "pattern": "^[A-Z]-[0-9]{4}$"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
    }
)

# String content: what JSON escapes (quotes, backslashes, control characters), astral characters (a
# surrogate pair when escaped with ensure_ascii), marker look-alikes.
TEXT = st.text(alphabet=st.sampled_from(list('ab "\\\n\t/é東🚀<>{}[],:u')), max_size=12)
VALUE = st.one_of(
    TEXT,
    st.integers(-5, 200),
    st.integers(0, 99).map(str),  # an integer written as a string: lenient typing converts it for minutes
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 9), max_size=3),
    st.dictionaries(st.sampled_from(["k", "k2"]), st.integers(0, 9), max_size=2),
)
KEYS = st.sampled_from(["city", "unit", "minutes", "label", "order_id", "extra", 'q"k', "é"])


@st.composite
def calls(draw: st.DrawFn) -> str:
    """One Hermes call: a declared or unknown tool, members the schema allows or not, keys in either order,
    compact or spaced JSON, escaped or not."""
    name = draw(st.sampled_from(["get_weather", "set_alarm", "lookup_order", "no_such_tool"]))
    args: dict[str, Any] = draw(st.dictionaries(KEYS, VALUE, max_size=3))
    obj = {"name": name, "arguments": args}
    if draw(st.booleans()):
        obj = {"arguments": args, "name": name}  # the arguments before the name: they stream once it is known
    separators = draw(st.sampled_from([(", ", ": "), (",", ":"), (" , ", " : ")]))
    body = json.dumps(obj, ensure_ascii=draw(st.booleans()), separators=separators)
    return "<tool_call>\n" + body + "\n</tool_call>"


@st.composite
def streams(draw: st.DrawFn) -> str:
    parts = draw(st.lists(calls(), min_size=1, max_size=3))
    text = draw(st.sampled_from(["", "ok ", "\n", "a <tool"])).join(parts)
    if draw(st.booleans()):  # cut anywhere: a call truncated at close, a marker's prefix at the end
        text = text[: draw(st.integers(0, len(text)))]
    return text


def chunkings(text: str) -> dict[str, list[str] | list[bytes]]:
    out: dict[str, list[str] | list[bytes]] = {"chars": list(text), "bytes": byte_pieces(text), "whole": [text]}
    out.update({f"random{seed}": random_pieces(text, seed, 6) for seed in range(4)})
    return out


def per_feed(chunks: list[str] | list[bytes], **options: Any) -> list[list[Event]]:
    parser = StreamParser(formats=["hermes"], **options)
    return [parser.feed(c) for c in chunks] + [parser.close()]


@contextmanager
def general_path() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lenient, "lenient_targets", lambda eng: None)
        yield


def _compare(text: str, **options: Any) -> None:
    for label, chunks in chunkings(text).items():
        fast = per_feed(chunks, **options)
        with general_path():
            slow = per_feed(chunks, **options)
        assert fast == slow, label  # feed by feed: the same events at the same moment


@LANE
@given(text=streams())
def test_the_plan_gives_the_events_of_the_general_path(text: str) -> None:
    _compare(text, tools=TOOLS)


@LANE
@given(text=streams())
def test_without_tools_or_lenient_typing_too(text: str) -> None:
    _compare(text)
    _compare(text, tools=TOOLS, coercion="strict")


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "set_alarm", "arguments": {"minutes": "45", "label": "tea"}}',  # converted: an int it must be
        '{"name": "set_alarm", "arguments": {"minutes": "4\\u0035"}}',  # an escape split across chunks
        '{"name": "get_weather", "arguments": {"city": "\\ud83d\\ude80 \\"x\\" \\\\", "unit": "K"}}',  # enum
        '{"name": "lookup_order", "arguments": {"order_id": "A-12"}}',  # a pattern it misses
        '{"name": "nope", "arguments": {"a": 1}}',  # unknown tool
        '{"name": "get_weather", "arguments": {"city": "Oslo",}}',  # a trailing comma (repair)
        "{'name': 'get_weather', 'arguments': {'city': 'Oslo'}}",  # single quotes (repair)
        '{"name": "get_weather", "arguments": {"city": "Oslo"',  # truncated at close
        '{"name": "get_weather", "arguments": {"city": "Oslo" x}}',  # malformed
    ],
)
def test_chosen_calls_give_the_events_of_the_general_path(body: str) -> None:
    text = "a <tool_call>\n" + body + "\n</tool_call> b <tool"
    _compare(text, tools=TOOLS)
    _compare(text, tools=TOOLS, max_call_chars=30)  # (the limited path feeds in pieces)


def _watch_inside_arguments(body: str) -> tuple[int, int]:
    """(the reader's watch depth, the arguments' depth) once the arguments object of ``body`` has begun: the
    reader reports members (a callback each) only at depths up to its watch. Read off the state, not by
    patching a method, so the compiled build (make test-compiled) is judged as the Python one."""
    parser = StreamParser(formats=["hermes"], tools=TOOLS)
    head = body[: body.index('"arguments": {') + len('"arguments": {')]
    parser.feed("<tool_call>\n" + head)
    sink = parser._engine.state.sink
    return sink.reader.watch, sink.args_depth


def test_the_small_call_workload_converts_with_fewer_callbacks() -> None:
    """The workload of ``make bench`` (tools given, so lenient typing on): a quoted integer is still converted,
    and the arguments of a tool with nothing to convert cost no callback per member."""
    calls = [
        '{"name": "set_alarm", "arguments": {"minutes": "45", "label": "tea"}}',
        '{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "C"}}',
    ]
    text = "".join("<tool_call>\n" + body + "\n</tool_call>\n" for body in calls)
    chunks = random_pieces(text, 3, 6)
    events = [e for feed in per_feed(chunks, tools=TOOLS) for e in feed]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.call.arguments for e in ends] == [{"minutes": 45, "label": "tea"}, {"city": "Oslo", "unit": "C"}]
    assert ["lenient_types" in e.call.repairs for e in ends] == [True, False]
    assert not [e for e in events if isinstance(e, ToolCallRejected)]
    with general_path():
        assert [e for feed in per_feed(chunks, tools=TOOLS) for e in feed] == events
    # set_alarm's members are reported (minutes converts); get_weather's are not: the reader stops watching.
    watch, depth = _watch_inside_arguments(calls[0])
    assert watch == depth + 1
    watch, depth = _watch_inside_arguments(calls[1])
    assert watch == depth


def test_a_tool_with_nothing_to_convert_is_read_without_member_callbacks() -> None:
    """Planned once per tool: only a member whose schema admits no string can change, so a tool without one
    costs no per-member callback, and one with one converts only it."""
    parser = StreamParser(formats=["hermes"], tools=TOOLS)
    events = parser.feed('<tool_call>{"name": "get_weather", "arguments": {"city": "5", "unit": "C"}}</tool_call>')
    events += parser.feed('<tool_call>{"name": "set_alarm", "arguments": {"label": "7", "minutes": "7"}}</tool_call>')
    events += parser.close()
    ends = [e.call for e in events if isinstance(e, ToolCallEnd)]
    assert [c.arguments for c in ends] == [{"city": "5", "unit": "C"}, {"label": "7", "minutes": 7}]
    watch, depth = _watch_inside_arguments('{"name": "get_weather", "arguments": {"city": "5"}}')
    assert watch == depth  # get_weather's members are never reported
    watch, depth = _watch_inside_arguments('{"name": "set_alarm", "arguments": {"label": "7"}}')
    assert watch == depth + 1
