"""Raw-string Python calls (a declared ``PythonName(strings="raw")``, LFM2.5): where a call ends is found
incrementally, each character read once, and decides exactly as reading the whole call text at once."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream

from streamparse import StreamParser, formats
from streamparse.formats import Call, Declaration, PythonName
from streamparse.formats.pyraw import _CALL_END, _FOLLOW_MAX, _NEXT_ARG, RawCallScanner, _string_end

RAW = "x_pyraw_scan"


@pytest.fixture(autouse=True, scope="module")
def _raw_format() -> Iterator[None]:
    formats.register(Declaration(RAW, Call("<<py>>", "<</py>>", PythonName(strings="raw"))))
    yield
    formats.unregister(RAW)


def reference_end(text: str, final: bool) -> int | None:
    """The rule read over the whole call text from its start (what the scanner must decide alike)."""
    depth, last, i, n = 0, "", 0, len(text)
    while i < n:
        c = text[i]
        if c == "'" and depth == 1 and last == "=":
            q = text.find("'", i + 1)
            while q >= 0:
                if _NEXT_ARG.match(text, q + 1) is not None:
                    break
                if _CALL_END.match(text, q + 1) is not None:
                    return text.index(")", q + 1) + 1
                if not final and n - q - 1 < _FOLLOW_MAX:
                    return None
                q = text.find("'", q + 1)
            if q < 0:
                return None
            i, last = q + 1, "v"
            continue
        if c in "'\"":
            i, last = _string_end(text, i), "v"
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        if not c.isspace():
            last = c
        i += 1
    return None


def fed_in_pieces(text: str, cuts: list[int]) -> tuple[int | None, int]:
    """The scanner fed ``text`` cut at ``cuts`` (what it did not read begins the next feed), then told the
    text is final: (the end it found, as an index of ``text``; the characters it was handed in all)."""
    scanner, start, pending, handed = RawCallScanner(), 0, "", 0
    bounds = sorted({c for c in cuts if 0 < c < len(text)}) + [len(text)]
    for k, stop in enumerate(bounds):
        piece = pending + text[start:stop]
        base = stop - len(piece)
        handed += len(piece)
        end, read = scanner.feed(piece, k == len(bounds) - 1)
        if end is not None:
            return base + end, handed
        pending, start = piece[read:], stop
    return None, handed


CALL_TEXT = st.text(alphabet="ab=,()[]'\"\\ x", max_size=60).map(lambda body: "f(k='" + body)


@settings(max_examples=400, deadline=None)
@given(CALL_TEXT, st.lists(st.integers(min_value=1, max_value=80), max_size=12))
def test_the_scanner_fed_in_pieces_ends_where_the_whole_text_ends(text: str, cuts: list[int]) -> None:
    assert fed_in_pieces(text, cuts)[0] == reference_end(text, True)


def test_a_long_raw_value_is_read_once_not_from_the_calls_start_at_every_chunk() -> None:
    """Linear work: over 3-character feeds of a 60,000-character value holding quotes, the scanner is handed
    each character once, plus at most the look-ahead a waiting quote keeps, per feed."""
    value = "x' y " * 12_000
    text = f"write(path='{value}', n=1)]"
    cuts = list(range(3, len(text), 3))
    end, handed = fed_in_pieces(text, cuts)
    assert end == len(text) - 1
    assert handed <= len(text) + (len(cuts) + 1) * (_FOLLOW_MAX + 1)


def test_a_long_raw_value_streams_through_the_parser_under_small_chunks() -> None:
    value = "line 'quoted' \\n and (parens) " * 2_000
    out = f"Sure. <<py>>[write(path='{value}', n=1)]<</py>> Done."
    parser = StreamParser(formats=[RAW])
    events = [e for i in range(0, len(out), 5) for e in parser.feed(out[i : i + 5])] + parser.close()
    ends = [e for e in events if e.type == "tool_call_end"]
    assert [(e.call.name, e.call.arguments) for e in ends] == [("write", {"path": value, "n": 1})]


def test_a_closer_split_across_feeds_still_bounds_the_call() -> None:
    """A value that runs into the list's closer is malformed, also when the closer arrives in two pieces."""
    out = "<<py>>[write(path='a b<</py>> after"
    result = check_stream(out, formats=[RAW])
    assert calls(result) == [] and [r.reason for r in result.rejected] == ["malformed"]
    assert re.search(r"after$", result.text)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="ab ,=()[]'\"\\<>/py", max_size=40))
def test_any_raw_call_text_parses_alike_under_every_chunking(body: str) -> None:
    """Whatever a raw value holds (quotes, brackets, pieces of the closer), the result is the same whole,
    one character or one byte at a time and in random chunks (check_stream compares them)."""
    check_stream(f"Sure. <<py>>[write(path='{body}', n=1)]<</py>> Done.", formats=[RAW])
