"""Python-style calls whose string arguments are written as they are (a declared ``PythonName`` with
``strings="raw"``): a template that writes ``NAME(key='` + value + `')`` without escaping the value (LFM2.5)
means the text between the quotes, backslashes and quotes included. Reading such a call as Python would
decode ``C:\\tmp`` into a tab; :func:`read_raw_call` takes each keyword argument's single-quoted string
verbatim instead, up to the quote that the next ``name=`` or the call's ``)`` follows (the template's own
inverse), and reads the rest (numbers, ``True``/``None``, lists, JSON objects) as the strict reader does.
"""

from __future__ import annotations

import re
from typing import Any, Final

from ..core.json_reader import dump_json
from .pyliteral import parse_call

__all__ = ["RawCallScanner", "read_raw_call", "read_raw_call_json"]

# What may follow the quote that ends an argument's string: the next ``name=``, or the call's ``)`` at the
# end of the call text. Bounded look-ahead.
_ARG_FOLLOWS: Final = re.compile(r"\s{0,16}+(?:,\s{0,16}+[^\W\d]\w{0,63}+\s{0,16}+=|\)\s*+\Z)")


_IDENT: Final = r"[^\W\d]\w{0,63}"
# While a raw string is open, a quote ends it when the next argument follows, or the call's ``)`` followed by
# the list's next call or its ``]`` (a quote followed by anything else is part of the value).
_NEXT_ARG: Final = re.compile(r"\s{0,16},\s{0,16}" + _IDENT + r"\s{0,16}=")
_CALL_END: Final = re.compile(r"\s{0,16}\)\s{0,16}(?:,\s{0,16}" + _IDENT + r"\s{0,16}\(|\])")
_FOLLOW_MAX: Final = 3 * 16 + 64 + 4  # the most text either pattern reads after the quote


_CODE: Final = 0  # RawCallScanner's modes: between values, in a raw value, in a string literal
_RAW: Final = 1
_STR: Final = 2


class RawCallScanner:
    """Where a call (``NAME(...``) ends when its string arguments are raw, read incrementally: each
    character of the call is looked at once, whatever the chunking, so a long value costs linear time (the
    call's text is never scanned again from its start). A quote inside a raw value ends it when the next
    argument follows, or the call's ``)`` followed by the list's next call or its ``]``; it waits for up to
    :data:`_FOLLOW_MAX` characters after it (bounded look-ahead), so every chunking decides the same way."""

    __slots__ = ("depth", "last", "mode", "quote")

    def __init__(self) -> None:
        self.depth = 0
        self.last = ""  # the last character outside strings that is not blank ("v" after a value)
        self.mode = _CODE
        self.quote = ""  # the quote of the string literal open in _STR mode

    def feed(self, text: str, final: bool) -> tuple[int | None, int]:
        """``text`` is the call's text from where the last feed stopped: (the index in ``text`` just past
        the call's ``)``, or None while more text must decide; how much of ``text`` was read, which the next
        feed must not include). What is not read (a quote waiting for its look-ahead, a final backslash in a
        string literal) begins the next feed's text."""
        i, n = 0, len(text)
        while i < n:
            mode = self.mode
            if mode == _RAW:
                q = text.find("'", i)
                while q >= 0:
                    if _NEXT_ARG.match(text, q + 1) is not None:
                        break
                    if _CALL_END.match(text, q + 1) is not None:
                        return text.index(")", q + 1) + 1, n
                    if not final and n - q - 1 < _FOLLOW_MAX:
                        return None, q  # the text after this quote is too short to tell
                    q = text.find("'", q + 1)
                if q < 0:
                    return None, n
                i, self.last, self.mode = q + 1, "v", _CODE
                continue
            if mode == _STR:
                quote = self.quote
                while i < n:
                    c = text[i]
                    if c == "\\":
                        if i + 1 >= n:
                            return None, i  # the escaped character is still to come
                        i += 2
                        continue
                    i += 1
                    if c == quote:
                        self.last, self.mode = "v", _CODE
                        break
                continue
            c = text[i]
            i += 1
            if c == "'" and self.depth == 1 and self.last == "=":
                self.mode = _RAW
            elif c in "'\"":
                self.mode, self.quote = _STR, c
            elif c in "([{":
                self.depth += 1
                self.last = c
            elif c in ")]}":
                self.depth -= 1
                if self.depth == 0:
                    return i, i
                self.last = c
            elif not c.isspace():
                self.last = c
        return None, n


def read_raw_call(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME(k='as written', ...)`` → (name, arguments); ``ValueError`` when it is no such call."""
    return parse_call(_requote(text))


def read_raw_call_json(text: str) -> tuple[str, str]:
    """:func:`read_raw_call` with the arguments as JSON text (``json.dumps``, ``ensure_ascii`` off)."""
    name, args = read_raw_call(text)
    return name, dump_json(args)


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
