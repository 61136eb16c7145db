"""The common prefix and the marker a position cuts (streamparse.derive.text), computed without a character
loop and without scanning past the position, answer as the plain definitions do."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from streamparse.derive.text import Markers, common_prefix

PIECES = st.sampled_from(
    ["a", "b", "<", ">", "<tool_call>", "</tool_call>", "<|im_end|>", "[TOOL_CALLS]", "\n", "é", "x"]
)
TEXTS = st.lists(PIECES, max_size=30).map("".join)
MARKERS = Markers(["<|im_end|>", "<extra>"])


def _plain_prefix(a: str, b: str, markers: Markers) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    for text in (a, b):
        cut = next(((x, y) for x, y in markers.spans(text) if x < n < y), None)
        if cut:
            n = min(n, cut[0])
    return n


@settings(max_examples=1000, deadline=None)
@given(TEXTS, TEXTS, TEXTS)
@example("", "", "")
@example("<tool_call>", "", "<tool_")
def test_common_prefix_is_the_plain_definitions(shared: str, a: str, b: str) -> None:
    a, b = shared + a, shared + b
    assert common_prefix(a, b, MARKERS) == _plain_prefix(a, b, MARKERS)
    assert common_prefix(a, a + b, MARKERS) == _plain_prefix(a, a + b, MARKERS)


@settings(max_examples=500, deadline=None)
@given(TEXTS, st.integers(0, 200))
def test_the_marker_a_position_cuts_is_the_first_span_around_it(text: str, pos: int) -> None:
    expected = next(((x, y) for x, y in MARKERS.spans(text) if x < pos < y), None)
    assert MARKERS.inside(text, pos) == expected
