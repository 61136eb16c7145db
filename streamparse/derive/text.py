"""Text helpers of the differential analysis: marker spans, and common prefixes/suffixes that never cut one.

A *marker* is a run the model writes as one piece: a special token of the tokenizer (when known), or
markup shaped like one: ``<...>`` / ``</...>`` without blanks (``<tool_call>``, ``<|im_end|>``,
``<｜tool▁sep｜>``), ``[UPPER_CASE]`` (``[TOOL_CALLS]``), ``<|...|>``, and bracket pairs of other scripts
(``◁think▷``, ``【...】``). Boundaries found by comparing renders are moved so that no marker is cut: a
split inside ``<｜tool▁call▁begin｜>`` would make a marker out of half a token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "Markers",
    "common_prefix",
    "common_suffix",
    "strip_ws",
]

_SHAPES = (
    r"<</?[A-Za-z_][\w:.\-]{0,40}>>",  # <<fn>>, <</fn>>
    r"\[\[/?[A-Za-z_][\w:.\-]{0,40}\]\]",  # [[TOOLS]]
    r"<\|[^|<>\n]{1,40}\|>",  # <|im_end|>
    r"<｜[^｜<>\n]{1,40}｜>",  # <｜tool▁sep｜>
    r"</?[^\s<>\"'=|｜]{1,48}>",  # <tool_call>, </seed:think>, <minimax:tool_call>
    r"</?｜[^\s<>\"'=｜]{1,20}｜ ?[^\s<>\"'=]{0,40}>",  # </｜DSML｜parameter>, </｜DSML｜ parameter>
    r"\[/?[A-Z][A-Z_]{1,30}\]",  # [TOOL_CALLS], [/INST]
    r"◁[^◁▷\s]{1,32}▷",  # ◁think▷
    r"【[^【】\s]{1,32}】",
    r"<\|[A-Za-z_]{1,40}>|<[A-Za-z_]{1,40}\|>",  # <|channel>, <turn|> (Gemma 4)
)


class Markers:
    """Finds marker spans in a text: the tokenizer's special tokens first, then the shapes above."""

    def __init__(self, special_tokens: Iterable[str] = ()) -> None:
        tokens = sorted({t for t in special_tokens if t and not t.isspace()}, key=len, reverse=True)
        parts = [re.escape(t) for t in tokens] + list(_SHAPES)
        self.pattern = re.compile("|".join(parts))
        self.special = frozenset(tokens)

    def spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in self.pattern.finditer(text)]

    def inside(self, text: str, pos: int) -> tuple[int, int] | None:
        """The marker span that ``pos`` cuts (strictly inside it), if any."""
        for m in self.pattern.finditer(text):
            a, b = m.span()
            if a >= pos:  # spans come in order and do not overlap: none after this one starts before pos
                return None
            if pos < b:
                return a, b
        return None

    def is_marker(self, text: str) -> bool:
        return bool(self.pattern.fullmatch(text))

    def first(self, text: str) -> str:
        m = self.pattern.search(text)
        return m.group() if m else ""

    def last(self, text: str) -> str:
        found = self.pattern.findall(text)
        return found[-1] if found else ""


def _same_start(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` have in common (compared in C, by halving: a prompt of
    a few KB against its render with a turn is the common case, a character loop its cost)."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while hi - lo > 1:  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def common_prefix(a: str, b: str, markers: Markers) -> int:
    """Length of the longest common prefix of ``a`` and ``b`` that ends outside any marker of either."""
    n = _same_start(a, b)
    for text in (a, b):
        cut = markers.inside(text, n)
        if cut:
            n = min(n, cut[0])
    return n


def common_suffix(a: str, b: str, markers: Markers) -> int:
    """Length of the longest common suffix of ``a`` and ``b`` that starts outside any marker of either."""
    n = 0
    limit = min(len(a), len(b))
    while n < limit and a[len(a) - 1 - n] == b[len(b) - 1 - n]:
        n += 1
    for text in (a, b):
        cut = markers.inside(text, len(text) - n)
        if cut:
            n = min(n, len(text) - cut[1])
    return n


def strip_ws(text: str) -> str:
    return text.strip(" \t\r\n")
