"""Look-ahead helpers every handler uses: skip whitespace, test a word or its prefix, read a bounded header.

Each returns a decision or "wait": a handler that cannot decide before more input arrives returns None and
the engine holds the text from the marker on. Every look-ahead is bounded by :data:`LOOKAHEAD` characters,
so a held candidate never grows without limit.
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

WS: Final = " \t\r\n"
LOOKAHEAD: Final = 256  # bound on whitespace / header text examined before deciding


def skip_ws(buf: str, i: int, limit: int = LOOKAHEAD) -> int:
    """Index of the first non-whitespace character at or after ``i`` (or ``len(buf)``), bounded."""
    n = len(buf)
    stop = min(n, i + limit)
    while i < stop and buf[i] in WS:
        i += 1
    return i


def starts_or_prefix(buf: str, i: int, word: str) -> bool | None:
    """True if ``word`` starts at ``i``; None if the rest of the buffer is a proper prefix of it."""
    rest = len(buf) - i
    if rest >= len(word):
        return buf.startswith(word, i)
    return None if word.startswith(buf[i:]) else False


def read_header(
    buf: str, i: int, terminator: str, pattern: re.Pattern[str], final: bool, limit: int = LOOKAHEAD
) -> re.Match[str] | None | Literal[False]:
    """Match ``pattern`` against ``buf[i:]`` up to and including ``terminator``, within ``limit`` chars.

    Returns the match, None when more input is needed, or False when it cannot match.
    """
    idx = buf.find(terminator, i, i + limit + len(terminator))
    if idx < 0:
        if len(buf) < i + limit and not final:
            return None
        return False
    m = pattern.fullmatch(buf, i, idx + len(terminator))
    return m if m is not None else False


_UNDECIDED: dict[tuple[str, tuple[str, ...], int], re.Pattern[str]] = {}


def undecided(held: str, stops: tuple[str, ...], room: int) -> re.Pattern[str]:
    """A pattern of the text a header reader (:func:`read_header`) leaves undecided, for
    ``Engine.wait_for``: ``held`` (the opener, and what the reader already accepted after it), then at most
    ``room`` characters in which none of ``stops`` (the header's terminator, and any text that decides the
    header otherwise) begins. While each chunk keeps the held text so, the reader's answer stays "more
    input", and the engine only keeps the chunk instead of running the states again."""
    key = (held, stops, room)
    found = _UNDECIDED.get(key)
    if found is None:
        if len(_UNDECIDED) >= 512:  # (openers and the whitespace after them: a few per format)
            _UNDECIDED.clear()
        found = _UNDECIDED[key] = re.compile(re.escape(held) + _none_of(stops, max(room, 0)))
    return found


def _none_of(stops: tuple[str, ...], room: int) -> str:
    """A pattern of at most ``room`` characters in which none of ``stops`` begins: ``(?:(?!STOPS)[\\s\\S]){0,room}``,
    written so that only a character that can begin a stop is looked at twice (the rest is skipped in runs,
    possessively: a held header is matched again with every piece)."""
    if not stops or not all(stops):
        avoid = "|".join(re.escape(w) for w in stops)
        return f"(?:(?!{avoid})[\\s\\S]){{0,{room}}}"
    avoid = "|".join(re.escape(w) for w in stops)
    first = "".join(sorted({re.escape(w[0]) for w in stops}))
    return f"(?=[\\s\\S]{{0,{room}}}\\Z)[^{first}]*+(?:(?!{avoid})[{first}][^{first}]*+)*+"


_BLANKS_THEN: dict[tuple[str, ...], re.Pattern[str]] = {}


def blanks_then_prefix(words: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern of the text that :func:`after_ws` and :func:`starts_or_prefix` leave undecided after a
    marker, for ``Engine.wait_for``: fewer than :data:`LOOKAHEAD` blanks, then nothing or a proper prefix of
    one of ``words`` that does not begin with any of them whole (what a handler or state answers "more
    input" to while the next marker arrives in pieces)."""
    found = _BLANKS_THEN.get(words)
    if found is None:
        if len(_BLANKS_THEN) >= 512:  # (a few tuples per format)
            _BLANKS_THEN.clear()
        head = f"[ \\t\\r\\n]{{0,{LOOKAHEAD - 1}}}"
        prefixes = {w[:k] for w in words for k in range(1, len(w))}
        if "" in words or not prefixes:  # (an empty word begins everywhere: only blanks wait)
            found = re.compile(head)
        else:
            whole = "|".join(re.escape(w) for w in words)
            some = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
            found = re.compile(f"{head}(?:(?!{whole})(?:{some}))?")
        _BLANKS_THEN[words] = found
    return found


def fence_at(buf: str, j: int, final: bool) -> Any:  # int | None | bool (see after_ws)
    """A ```json (or bare ```) fence line at ``j``: index after its newline, None (more), False (no)."""
    if not buf.startswith("```", j):
        ok = starts_or_prefix(buf, j, "```")
        return None if ok is None and not final else False
    nl = buf.find("\n", j + 3, j + 3 + 32)
    if nl < 0:
        return None if (len(buf) < j + 35 and not final) else False
    info = buf[j + 3 : nl].strip().lower()
    return nl + 1 if info in ("", "json") else False


# -- JSON call objects ------------------------------------------------------------------------------


def word_char(c: str) -> bool:
    """A character of a word (a marker glued to one is part of the word, not a marker)."""
    return c.isalnum() or c == "_"


def after_ws(buf: str, i: int, final: bool) -> Any:
    """Look past whitespace from ``i``, then decide or wait: the index of the next non-whitespace character;
    None when the buffer ends first and more input may still come; False when the stream ended or
    :data:`LOOKAHEAD` characters of whitespace were seen (the continuation is not there).

    Typed Any, not ``int | None | Literal[False]``: mypyc folds a union of int and bool into int, and a
    compiled caller would see False as 0 (scripts/compile.py).
    """
    j = skip_ws(buf, i)
    if j < len(buf) and buf[j] not in WS:
        return j
    if final or j - i >= LOOKAHEAD:
        return False
    return None
