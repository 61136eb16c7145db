"""Shared checks of the docs/API.md invariants, used by every format's tests.

Every chunking also checks the call life cycle (every ``ToolCallStart`` gets exactly one ``ToolCallEnd``
or ``ToolCallRejected`` with its index; ``ToolCallRejected.started`` says whether a Start came) and the
running snapshots (``StreamParser.snapshot`` after each feed equals the arguments read at once from the
deltas so far; at the end ``StreamParser.calls`` equals ``ParseResult.snapshots``).

``check_stream(text, **options)`` parses ``text`` whole, one character at a time, one UTF-8 byte at a time
and in seeded random pieces, asserts that the merged event sequences are identical (chunking invariance), that each
call's deltas join to its ``arguments_json`` and load to its ``arguments`` (2), and that nothing leaks or is
lost (6, as far as it can be checked without knowing the markup), and returns the ParseResult.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any

from streamparse import StreamParser
from streamparse.events import (
    Event,
    ParseResult,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
    merge_events,
)
from streamparse.partial import partial_arguments

SNAPSHOT_CHECK_CHARS = 4000  # longer argument texts are checked at the end only (the check re-reads them)


def run(chunks: Iterable[str | bytes], snapshots: bool = False, **options: Any) -> list[Event]:
    parser = StreamParser(**options)
    events: list[Event] = []
    parts: dict[int, list[str]] = {}
    for chunk in chunks:
        new = parser.feed(chunk)
        events.extend(new)
        if snapshots:
            check_running_snapshots(parser, new, parts)
    events.extend(parser.close())
    if snapshots:
        check_final_snapshots(parser, events)
    return events


def check_running_snapshots(parser: StreamParser, new: list[Event], parts: dict[int, list[str]]) -> None:
    """After a feed: each open call's snapshot holds the arguments of its deltas so far, read at once."""
    touched: set[int] = set()
    for ev in new:
        if isinstance(ev, ToolCallStart):
            parts[ev.index] = []
            touched.add(ev.index)
        elif isinstance(ev, ToolCallDelta):
            parts[ev.index].append(ev.arguments)
            touched.add(ev.index)
    for index in touched:
        snap = parser.snapshot(index)
        assert snap.index == index
        if snap.status != "streaming":
            continue
        text = "".join(parts[index])
        if len(text) <= SNAPSHOT_CHECK_CHARS:
            assert snap.arguments == partial_arguments(text), (text, snap.arguments)


def check_final_snapshots(parser: StreamParser, events: list[Event]) -> None:
    """At the end: one snapshot per started call, done, equal to the one ``ParseResult`` builds from events."""
    expected = ParseResult.from_events(events).snapshots
    got = parser.calls
    assert got == expected, (got, expected)
    assert all(s.done for s in got), "a call is still streaming after close()"
    ends = {ev.index: ev.call for ev in events if isinstance(ev, ToolCallEnd)}
    for snap in got:
        if snap.complete:
            assert snap.arguments == ends[snap.index].arguments


def random_pieces(text: str, seed: int, max_size: int = 9) -> list[str]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, max_size)
        out.append(text[i : i + k])
        i += k
    return out


def byte_pieces(text: str) -> list[bytes]:
    data = text.encode("utf-8")
    return [data[i : i + 1] for i in range(len(data))]


def check_deltas(events: list[Event]) -> None:
    """Invariant 2, plus event order: Start before deltas, deltas before End, one verdict per index."""
    parts: dict[int, list[str]] = {}
    started: set[int] = set()
    finished: set[int] = set()
    for ev in events:
        if isinstance(ev, ToolCallStart):
            assert ev.index not in started, f"call {ev.index} started twice"
            started.add(ev.index)
            parts[ev.index] = []
        elif isinstance(ev, ToolCallDelta):
            assert ev.index in started and ev.index not in finished, "delta outside its call"
            parts[ev.index].append(ev.arguments)
        elif isinstance(ev, ToolCallEnd):
            assert ev.index in started and ev.index not in finished
            finished.add(ev.index)
            joined = "".join(parts[ev.index])
            assert joined == ev.call.arguments_json, (joined, ev.call.arguments_json)
            assert json.loads(joined) == ev.call.arguments
            assert isinstance(ev.call.arguments, dict)
        elif isinstance(ev, ToolCallRejected):
            assert ev.index not in finished, f"call {ev.index} got two verdicts"
            assert ev.started == (ev.index in started), f"call {ev.index}: started={ev.started} but Start seen"
            finished.add(ev.index)
    assert started <= finished, f"calls started but never finished: {started - finished}"
    indices = [
        ev.index
        for ev in events
        if isinstance(ev, ToolCallStart) or (isinstance(ev, ToolCallRejected) and not ev.started)
    ]
    assert indices == sorted(set(indices)), f"call indices not increasing: {indices}"


def check_nothing_lost(text: str, result: ParseResult) -> None:
    """Invariant 6 (checkable part): visible text, reasoning and raw markup are taken from the input in
    order, without inventing characters: each is a subsequence of the input."""

    def subsequence(part: str, whole: str) -> bool:
        it = iter(whole)
        return all(ch in it for ch in part)

    assert subsequence(result.text, text), "visible text contains characters that are not in the input"
    pieces = [c.raw for c in result.tool_calls] + [r.raw for r in result.rejected]
    for raw in pieces:
        assert raw in text or subsequence(raw, text), f"raw {raw[:60]!r} is not from the input"


def check_stream(text: str, seeds: int = 12, **options: Any) -> ParseResult:
    whole = run([text], snapshots=True, **options)
    ref = merge_events(whole)
    check_deltas(whole)
    variants: list[tuple[str, list[Any]]] = [
        ("chars", list(text)),
        ("bytes", byte_pieces(text)),
    ]
    variants += [(f"random{seed}", random_pieces(text, seed)) for seed in range(seeds)]
    for label, chunks in variants:
        events = run(chunks, snapshots=True, **options)
        check_deltas(events)
        got = merge_events(events)
        assert got == ref, f"chunking {label} changed the result:\n{got}\n!=\n{ref}"
    result = ParseResult.from_events(whole)
    check_nothing_lost(text, result)
    return result


def released_after_each_char(text: str, **options: Any) -> list[str]:
    """Visible text emitted after each prefix (one character per feed)."""
    parser = StreamParser(**options)
    out, acc = [], []
    for ch in text:
        for ev in parser.feed(ch):
            if isinstance(ev, TextDelta):
                acc.append(ev.text)
        out.append("".join(acc))
    return out


def calls(result: ParseResult) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in result.tool_calls]


def reasons(result: ParseResult) -> list[str]:
    return [r.reason for r in result.rejected]


def visible(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def reasoning(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))
