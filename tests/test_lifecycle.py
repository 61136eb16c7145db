"""The call life cycle, for every format and every rejection reason, under every chunking (docs/API.md).

"Every ToolCallStart is followed by exactly one ToolCallEnd or ToolCallRejected with the same index";
a rejection without a Start says so (``started=False``): the candidate never became a call, so a UI that
draws a card on Start never has one to close. ``check_stream`` checks both, plus the snapshots, for the
whole text, one character and one byte at a time and random pieces.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from invariants import check_stream

from streamparse import ToolCallRejected, ToolCallStart, formats, parse
from streamparse.events import Event

FORMATS = formats.names()
OTHER_TOOL = {"some_other_tool": {"type": "object", "properties": {}}}


def _names(name: str) -> list[str]:
    result = parse(formats.get(name).example, formats=[name])
    assert result.tool_calls, f"the example of {name} has no call"
    return [c.name for c in result.tool_calls]


def _strict_tools(names: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": {"zz_missing": {"type": "string"}}, "required": ["zz_missing"]}
    return dict.fromkeys(names, schema)


def _starts(events: list[Event]) -> set[int]:
    return {ev.index for ev in events if isinstance(ev, ToolCallStart)}


@pytest.mark.parametrize("name", FORMATS)
def test_an_undeclared_tool_is_rejected_without_a_start(name: str) -> None:
    result = check_stream(formats.get(name).example, formats=[name], tools=OTHER_TOOL)
    assert not result.tool_calls
    assert result.rejected and {r.reason for r in result.rejected} == {"unknown_tool"}
    assert all(not r.started for r in result.rejected)
    assert not _starts(result.events) and result.snapshots == []


@pytest.mark.parametrize("name", FORMATS)
def test_a_schema_invalid_call_is_rejected_after_its_start(name: str) -> None:
    example = formats.get(name).example
    result = check_stream(example, formats=[name], tools=_strict_tools(_names(name)))
    assert not result.tool_calls
    assert result.rejected and {r.reason for r in result.rejected} == {"schema_violation"}
    assert all(r.started for r in result.rejected)
    assert {r.index for r in result.rejected} == _starts(result.events)
    assert [s.status for s in result.snapshots] == ["rejected"] * len(result.rejected)


@pytest.mark.parametrize("name", FORMATS)
def test_a_call_cut_off_anywhere_keeps_the_life_cycle(name: str) -> None:
    example = formats.get(name).example
    raw = parse(example, formats=[name]).tool_calls[0].raw
    start = example.index(raw)
    cuts = sorted({start + max(1, len(raw) * k // 6) for k in range(1, 6)})
    seen: set[str] = set()
    for cut in cuts:
        result = check_stream(example[:cut], seeds=3, formats=[name])
        seen.update(r.reason for r in result.rejected)
        for r in result.rejected:
            assert r.started == (r.index in _starts(result.events))
    assert "truncated" in seen, f"{name}: no cut gave a truncated call ({sorted(seen)})"


@pytest.mark.parametrize("name", FORMATS)
def test_a_call_too_large_keeps_the_life_cycle(name: str) -> None:
    example = formats.get(name).example
    raw = parse(example, formats=[name]).tool_calls[0].raw
    result = check_stream(example, seeds=3, formats=[name], max_call_chars=max(1, len(raw) - 3))
    assert "too_large" in {r.reason for r in result.rejected}


@pytest.mark.parametrize("name", FORMATS)
def test_a_damaged_call_keeps_the_life_cycle(name: str) -> None:
    """One character deleted at spread positions of the call's markup: whatever the verdict (often
    malformed), the life cycle and the snapshots hold under every chunking."""
    example = formats.get(name).example
    raw = parse(example, formats=[name]).tool_calls[0].raw
    start = example.index(raw)
    for k in range(8):
        i = start + len(raw) * k // 8
        check_stream(example[:i] + example[i + 1 :], seeds=2, formats=[name])


def test_malformed_calls_with_and_without_a_start() -> None:
    started = check_stream('<tool_call>{"name": "f", "arguments": {"a": 1,,}}</tool_call>', formats=["hermes"])
    assert [(r.reason, r.started) for r in started.rejected] == [("malformed", True)]
    nameless = check_stream('<tool_call>{"arguments": {"a": 1}}</tool_call>', formats=["hermes"])
    assert [(r.reason, r.started) for r in nameless.rejected] == [("malformed", False)]
    empty = check_stream('<tool_call>{"name": "", "arguments": {}}</tool_call>', formats=["hermes"])
    assert [(r.reason, r.started) for r in empty.rejected] == [("malformed", False)]


def test_ambiguous_gated_candidates_keep_the_life_cycle() -> None:
    tools = {"search_web": {"type": "object", "properties": {"query": {"type": "string"}}}}
    one = json.dumps({"tool": "search_web", "arguments": {"query": "a"}})
    two = json.dumps({"tool": "search_web", "arguments": {"query": "b"}})
    result = check_stream("need_tool: yes\n" + one + "\n" + two, formats="auto", fallback="gated", tools=tools)
    assert [r.reason for r in result.rejected] == ["ambiguous", "ambiguous"]
    for r in result.rejected:
        assert r.started == (r.index in _starts(result.events))


def test_started_is_in_the_json_form_of_a_rejection() -> None:
    from streamparse.events import event_to_dict

    ev = ToolCallRejected(3, "unknown_tool", "raw", "nope", "", "hermes", False)
    assert event_to_dict(ev)["started"] is False
