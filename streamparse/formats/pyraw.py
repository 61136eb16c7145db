"""Python-style calls whose string arguments are written as they are (a declared ``PythonName`` with
``strings="raw"``): a template that writes ``NAME(key='` + value + `')`` without escaping the value (LFM2.5)
means the text between the quotes, backslashes and quotes included. Reading such a call as Python would
decode ``C:\\tmp`` into a tab; :func:`read_raw_call` takes each keyword argument's single-quoted string
verbatim instead, up to the quote that the next ``name=`` or the call's ``)`` follows (the template's own
inverse), and reads the rest (numbers, ``True``/``None``, lists, JSON objects) as the strict reader does.
"""

from __future__ import annotations

import re
from typing import Any

from .pyliteral import parse_call

__all__ = ["read_raw_call", "raw_call_end"]

# What may follow the quote that ends an argument's string: the next ``name=``, or the call's ``)`` at the
# end of the call text. Bounded look-ahead.
_ARG_FOLLOWS = re.compile(r"\s{0,16}+(?:,\s{0,16}+[^\W\d]\w{0,63}+\s{0,16}+=|\)\s*+\Z)")


_IDENT = r"[^\W\d]\w{0,63}"
# While a raw string is open, a quote ends it when the next argument follows, or the call's ``)`` followed by
# the list's next call or its ``]`` (a quote followed by anything else is part of the value).
_NEXT_ARG = re.compile(r"\s{0,16},\s{0,16}" + _IDENT + r"\s{0,16}=")
_CALL_END = re.compile(r"\s{0,16}\)\s{0,16}(?:,\s{0,16}" + _IDENT + r"\s{0,16}\(|\])")
_FOLLOW_MAX = 3 * 16 + 64 + 4  # the most text either pattern reads after the quote


def raw_call_end(text: str, final: bool) -> tuple[int | None, int]:
    """Where the call that ``text`` begins with (``NAME(...``) ends when its string arguments are raw: (the
    index just past its ``)``, or None while more text must decide; the length of ``text`` no later decision
    can reach back into). A quote inside a raw value waits for up to :data:`_FOLLOW_MAX` characters after it
    (bounded look-ahead), so every chunking decides the same way."""
    depth, last, i, n = 0, "", 0, len(text)
    while i < n:
        c = text[i]
        if c == "'" and depth == 1 and last == "=":
            q = text.find("'", i + 1)
            while q >= 0:
                if _NEXT_ARG.match(text, q + 1) is not None:
                    break
                m = _CALL_END.match(text, q + 1)
                if m is not None:
                    return text.index(")", q + 1) + 1, n
                if not final and n - q - 1 < _FOLLOW_MAX:
                    return None, q  # the text after this quote is too short to tell
                q = text.find("'", q + 1)
            if q < 0:
                return None, n
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
                return i + 1, n
        if not c.isspace():
            last = c
        i += 1
    return None, n


def read_raw_call(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME(k='as written', ...)`` → (name, arguments); ``ValueError`` when it is no such call."""
    return parse_call(_requote(text))


def _requote(text: str) -> str:
    """The call with every top-level keyword argument's single-quoted string rewritten as a Python literal
    of its text as written; other quoted strings (inside lists and objects) are kept as they are."""
    out: list[str] = []
    i, n, depth, last = 0, len(text), 0, ""
    while i < n:
        c = text[i]
        if c == "'" and depth == 1 and last == "=":
            end = _argument_end(text, i)
            if end is None:
                raise ValueError(f"an argument string opened at {i} has no closing quote before the next argument")
            out.append(repr(text[i + 1 : end]))
            i, last = end + 1, "v"
            continue
        if c in "'\"":
            end = _string_end(text, i)
            out.append(text[i:end])
            i, last = end, "v"
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if not c.isspace():
            last = c
        out.append(c)
        i += 1
    return "".join(out)


def _argument_end(text: str, q: int) -> int | None:
    """The first quote after ``q`` that the next ``name=`` or the call's final ``)`` follows."""
    i = text.find("'", q + 1)
    while i >= 0:
        if _ARG_FOLLOWS.match(text, i + 1) is not None:
            return i
        i = text.find("'", i + 1)
    return None


def _string_end(text: str, q: int) -> int:
    """Just past the string literal opened at ``q`` (Python's escapes), or the end of the text."""
    quote, i, n = text[q], q + 1, len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return n
