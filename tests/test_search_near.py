"""``MarkerSet.search_near``: the bounded "is a marker near?" search equals the whole-buffer search cut at
its limit, so a state that asks it (Kimi K2's section noise) never scans the buffer: what once made 1 MB of
repeated ``<|tool_calls_section_begin|>`` fed whole cost minutes (quadratic), found by ``make bench``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse import StreamParser
from streamparse.core.scanner import marker_set

MARKERS = frozenset({"<|tool_call_begin|>", "<|tool_calls_section_end|>", "[", "[TOOL_CALLS]", "<a>", "<ab>"})
WORDS = frozenset({"to="})
SETS = [marker_set(MARKERS), marker_set(MARKERS | WORDS, words=WORDS)]
PIECES = st.sampled_from(
    [
        "x",
        " ",
        "\n",
        "<",
        "<|",
        "<|tool",
        "_call_begin|>",
        "<|tool_call_begin|>",
        "[",
        "[TOOL",
        "_CALLS]",
        "<a",
        "b>",
        "to",
        "=",
        "ato=",
    ]
)


def reference(ms: object, buf: str, pos: int, limit: int) -> tuple[int, int, str | None] | None:
    hit = ms.search(buf, pos)  # type: ignore[attr-defined]
    return hit if hit is not None and hit[0] <= limit else None


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=40), st.integers(0, 12), st.integers(0, 40), st.sampled_from([0, 1]))
def test_search_near_is_the_whole_search_cut_at_its_limit(pieces: list[str], pos: int, width: int, which: int) -> None:
    buf = "".join(pieces)
    ms = SETS[which]
    pos = min(pos, len(buf))
    assert ms.search_near(buf, pos, pos + width) == reference(ms, buf, pos, pos + width)


def test_stray_section_openers_fed_whole_are_dropped_as_before() -> None:
    # Many stray openers inside a Kimi K2 section, fed in one piece and one character at a time: same events.
    text = "Hi <|tool_calls_section_begin|>" + "<|tool_calls_section_begin|>" * 300 + "<|tool_calls_section_end|> bye"
    whole = StreamParser(formats=["kimi_k2"])
    a = list(whole.feed(text)) + list(whole.close())
    each = StreamParser(formats=["kimi_k2"])
    b = [e for ch in text for e in each.feed(ch)] + list(each.close())
    assert "".join(getattr(e, "text", "") for e in a) == "".join(getattr(e, "text", "") for e in b)
    assert [type(e).__name__ for e in a if not hasattr(e, "text")] == [
        type(e).__name__ for e in b if not hasattr(e, "text")
    ]
