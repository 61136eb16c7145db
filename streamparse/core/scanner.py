"""One combined matcher for a set of literal markers, with earliest-release holdback.

A :class:`MarkerSet` compiles every marker of a scope (visible text, reasoning, a call body) into a single
trie-shaped regular expression. One ``search`` from the current position finds, in C, either the next
complete marker or a suffix of the buffer that is still a proper prefix of some marker (which must be held
back). The trie shape means no alternative is tried twice and the leading character set lets ``re`` skip
plain text without entering the pattern, so the cost per chunk does not grow with the number of markers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

NS_PREFIX: Final = r"[A-Za-z][\w-]{0,31}"
_NS_SPLIT: Final = re.compile("<(" + NS_PREFIX + "):")


def split_ns(tok: str) -> tuple[str, str] | None:
    """``<ns:suffix`` -> (``ns``, ``suffix``) for a namespaced marker match."""
    m = _NS_SPLIT.match(tok)
    if m is None:
        return None
    return m.group(1), tok[m.end() :]


_Trie = dict[str, "_Trie"]


def _trie(markers: Iterable[str]) -> _Trie:
    root: _Trie = {}
    for marker in markers:
        node = root
        for ch in marker:
            node = node.setdefault(ch, {})
        node[""] = {}
    return root


def _node_regex(node: _Trie) -> str:
    """Longest marker first; a branch may also stop at the end of the buffer (a possible prefix)."""
    alts = [re.escape(ch) + _node_regex(child) for ch, child in node.items() if ch]
    alts.append(r"\Z")
    if "" in node:
        alts.append("")
    return "(?:" + "|".join(alts) + ")"


# Where a marker of ordinary characters counts (docs/FORMATS.md, where a marker counts). WORD: only at the
# start of a word (not glued to a letter, digit or underscore before it), written as a negative look-behind
# placed after the marker's first character (so the pattern still starts with a literal and ``re`` skips to
# candidate characters in C); at the start of the searched string it cannot refuse, so a string searched
# without the text before it is judged conservatively. START: only before the output's first visible text
# (``MarkerTable.late`` leaves such markers out once it began).
WORD: Final = "word"
START: Final = "start"


def _word_start(marker: str) -> str:
    first = re.escape(marker[0])
    ahead = f"(?={re.escape(marker[1])}|\\Z)" if len(marker) > 1 else ""  # (most words go on differently)
    (child,) = (node for ch, node in _trie([marker]).items() if ch)
    return first + ahead + f"(?<!\\w{first})" + _node_regex(child)


class MarkerSet:
    """Finds the next marker, or a held partial marker at the end of the buffer.

    ``search(buf, pos)`` returns ``(start, end, marker)``: ``marker`` is the complete marker text, or None
    when ``buf[start:]`` is only a proper prefix of a marker (hold it); None overall when neither occurs.
    ``words`` count only at the start of a word (WORD), and so does their prefix at the end; they are tried
    before the other markers starting at the same character.
    """

    __slots__ = ("markers", "_search", "_match", "raw_search", "ns_suffixes", "extendable", "words", "prefixes")

    def __init__(self, markers: Iterable[str], ns_suffixes: Iterable[str] = (), words: Iterable[str] = ()) -> None:
        self.markers = frozenset(m for m in markers if m)
        self.ns_suffixes = frozenset(ns_suffixes)
        self.words = frozenset(words) & self.markers
        top = [_word_start(m) for m in sorted(self.words)]
        root = _trie(sorted(self.markers - self.words))
        top += [re.escape(ch) + _node_regex(child) for ch, child in root.items()]
        if self.ns_suffixes:
            # `<PREFIX:suffix` for any XML namespace prefix (FORMATS xml_invoke); the prefix may also be the
            # held end of the buffer.
            ns = _node_regex(_trie(sorted(self.ns_suffixes)))
            top.append(r"<(?:\Z|" + NS_PREFIX + r"(?:\Z|:" + ns + "))")
        pattern = "(?:" + "|".join(top) + ")" if top else "(?!)"
        compiled = re.compile(pattern, re.S)
        self._search = compiled.search
        self._match = compiled.match
        self.raw_search = self._search  # for callers that only need "anything here at all?"
        # Markers that are a proper prefix of another (``[`` and ``[TOOL_CALLS]``): found at the very end of
        # the buffer, they may still grow into the longer one, so a scanning state holds them until more
        # input (or the end of the stream) decides, whatever the chunking.
        self.extendable = frozenset(m for m in self.markers if any(o != m and o.startswith(m) for o in self.markers))
        # What ``match`` calls a held prefix (text at the end of the buffer that only more input decides): a
        # proper prefix of a marker that is no marker itself (the trie follows the text as far as it goes, and
        # at its end prefers ``\Z`` to stopping at a whole marker). A marker arriving in pieces is then waited
        # for with one set lookup a chunk instead of a match (FastPaths._still_waiting). Not for word starts
        # (a look-behind) or namespaces (any prefix): those keep the match.
        self.prefixes: frozenset[str] | None = None
        if not self.words and not self.ns_suffixes:
            self.prefixes = frozenset(m[:k] for m in self.markers for k in range(1, len(m))) - self.markers

    def match(self, buf: str, pos: int) -> tuple[int, int, str | None] | None:
        """Like :meth:`search`, anchored at ``pos``: a state that only accepts a marker right here must not
        scan the rest of the buffer for one (that is O(buffer) per call: quadratic on repeated openers)."""
        return self._decode(self._match(buf, pos))

    def search(self, buf: str, pos: int) -> tuple[int, int, str | None] | None:
        return self._decode(self._search(buf, pos))

    def search_near(self, buf: str, pos: int, limit: int) -> tuple[int, int, str | None] | None:
        """Like :meth:`search`, for a marker (or held prefix) that starts at or before ``limit`` only: looks no
        further than that, so a state asking "is a marker near?" costs O(limit - pos), not O(buffer).

        The window ends just after ``limit``; a match that reaches the window's end may be cut by it, so it is
        read again anchored in the whole buffer (at most a marker's length): a prefix that does not become a
        marker there is skipped and the search goes on inside the window."""
        end = min(len(buf), limit + 1)
        while pos <= limit:
            m = self._search(buf, pos, end)
            if m is None:
                return None
            if m.end() < end or end == len(buf):
                return self._decode(m)
            whole = self._match(buf, m.start())
            if whole is not None:
                return self._decode(whole)
            pos = m.start() + 1
        return None

    def _decode(self, m: re.Match[str] | None) -> tuple[int, int, str | None] | None:
        if m is None:
            return None
        tok = m.group()
        start, end = m.span()  # (one call on the match, not two: this runs for every marker found)
        if tok in self.markers:
            return start, end, tok
        if self.ns_suffixes:
            parts = split_ns(tok)
            if parts is not None and parts[1] in self.ns_suffixes:
                return start, end, tok
        return start, end, None


@lru_cache(maxsize=512)
def marker_set(
    markers: frozenset[str],
    ns_suffixes: frozenset[str] = frozenset(),
    words: frozenset[str] = frozenset(),
) -> MarkerSet:
    """Compiled marker sets are shared by every parser with the same configuration."""
    return MarkerSet(markers, ns_suffixes, words)
