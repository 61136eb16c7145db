"""A buffered call holds at most 3 bytes per argument character, whatever the chunking (issue 12): its
arguments and raw markup are kept as joined text (core/parts.py), not as one string object per piece.
Measured with tracemalloc (bytes, not time)."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse import StreamParser

HEADS = {
    "hermes": ('<tool_call>\n{"name": "write_file", "arguments": {"content": "', '"}}\n</tool_call>'),
    "qwen3_coder": ("<tool_call>\n<function=write_file>\n<parameter=content>\n", "\n</parameter>\n</function>\n</tool_call>"),
}  # fmt: skip
CHARS = 30_000


def _held_and_peak(parser: StreamParser, body: str, chunk: int) -> tuple[int, int]:
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(0, len(body), chunk):
            parser.feed(body[i : i + chunk])
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return held - base, peak - base


@pytest.mark.parametrize("fmt", sorted(HEADS))
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 64])
def test_buffered_call_holds_at_most_three_bytes_per_argument_character(fmt: str, chunk: int) -> None:
    head, tail = HEADS[fmt]
    body = ("lorem ipsum dolor sit amet " * (CHARS // 27 + 1))[:CHARS]
    parser = StreamParser(formats=[fmt])
    parser.feed(head)
    held, peak = _held_and_peak(parser, body, chunk)
    assert held <= 3 * CHARS and peak <= 3 * CHARS, (held / CHARS, peak / CHARS)
    events = parser.feed(tail) + parser.close()
    ends = [e for e in events if e.type == "tool_call_end"]
    assert [json.loads(e.call.arguments_json) for e in ends] == [{"content": body}]  # type: ignore[attr-defined]


def test_parts_join_keeps_order_across_levels() -> None:
    from streamparse.core.parts import FAN, Parts

    parts = Parts()
    assert not parts and parts.join() == ""
    pieces = [str(i % 10) * (i % 3) for i in range(FAN**3 * 2 + 17)]
    for piece in pieces:
        parts.append(piece)
    assert parts.join() == "".join(pieces)
    assert len(parts.tail) < FAN and all(len(level) <= FAN for level in parts.levels[:-1])
    empty = Parts()
    empty.append("")
    assert empty and empty.join() == ""


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_a_tag_value_with_a_newline_on_every_line_is_kept_once(chunk: int) -> None:
    # The tag state holds each line's newline (it may be markup before the closing tag) and the next piece
    # brings it back: the raw markup keeps referring to the argument text instead of splitting off a copy.
    head, tail = HEADS["qwen3_coder"]
    line = '    if value < limit and name != "x":  # check {braces} and \\ here\n'
    body = (line * (CHARS // len(line) + 1))[:CHARS].rstrip("\n")
    parser = StreamParser(formats=["qwen3_coder"])
    parser.feed(head)
    held, _ = _held_and_peak(parser, body, chunk)
    assert held <= 1.2 * CHARS, held / CHARS
    ends = [e for e in parser.feed(tail) + parser.close() if e.type == "tool_call_end"]
    assert [json.loads(e.call.arguments_json) for e in ends] == [{"content": body}]  # type: ignore[attr-defined]
    assert ends[0].call.raw in head + body + tail  # type: ignore[attr-defined]


def test_parts_of_long_pieces_are_never_joined_past_a_block() -> None:
    # A join briefly holds its text twice: long text is kept in blocks of at most BLOCK characters.
    from streamparse.core.parts import BLOCK, FAN, Parts

    parts = Parts()
    pieces = [chr(97 + i % 26) * 64 for i in range(FAN**3 + 5)]  # 2 MB in 64-character pieces
    for piece in pieces:
        parts.append(piece)
    assert max(len(s) for s in parts.pieces()) <= BLOCK
    assert parts.join() == "".join(pieces)


def test_parts_of_chunk_sized_pieces_end_in_long_strings() -> None:
    # Each string held costs ~57 bytes: 2 MB kept as 2 KB strings was 3 % over the text, as 64 KB ones 0.1 %.
    from streamparse.core.parts import BLOCK, FAN, Parts

    parts = Parts()
    pieces = [chr(97 + i % 26) * 66 for i in range(FAN**3)]  # (32 x 32 of them: just over a BLOCK)
    for piece in pieces:
        parts.append(piece)
    assert len(parts.pieces()) <= 2 * FAN + len(pieces) * 66 // (BLOCK // 2)
    assert parts.join() == "".join(pieces)


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.sampled_from([0, 1, 7, 64, 3000, 40_000, 70_000]), max_size=400))
def test_parts_keep_order_and_levels_below_a_block(sizes: list[int]) -> None:
    from streamparse.core.parts import BLOCK, FAN, LEVELS, Parts

    parts = Parts()
    pieces = [chr(97 + i % 26) * n for i, n in enumerate(sizes)]
    for piece in pieces:
        parts.append(piece)
        assert all(len(level) < FAN and sum(map(len, level)) <= BLOCK for level in parts.levels[: LEVELS - 1])
    assert parts.join() == "".join(pieces)


@pytest.mark.parametrize("fmt", sorted(HEADS))
def test_a_finished_call_keeps_its_text_once_in_its_tool_call(fmt: str) -> None:
    """After its end a call is kept for ``StreamParser.calls``: its arguments and markup are the strings its
    ``ToolCall`` holds (shared), not also the pieces they were joined from. Three copies remain, the
    ToolCall's own (the decoded value, ``arguments_json``, ``raw``): at most 3.4 bytes a character in all,
    4.5 when the pieces were kept as well."""
    head, tail = HEADS[fmt]
    body = ("lorem ipsum dolor sit amet " * (CHARS // 27 + 1))[:CHARS]
    calls = 5
    parser = StreamParser(formats=[fmt])
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        text = (head + body + tail + "\n") * calls
        for i in range(0, len(text), 64):
            parser.feed(text[i : i + 64])
        parser.close()
        held = tracemalloc.get_traced_memory()[0] - base - len(text)  # (less the input, a test's own string)
    finally:
        tracemalloc.stop()
    assert held / (calls * CHARS) <= 3.4
    for cand in parser._engine.started_calls:
        call = cand.outcome
        assert cand.args.join() is call.arguments_json and cand.raw_parts.join() is call.raw
    assert [s.arguments["content"] for s in parser.calls] == [body] * calls
