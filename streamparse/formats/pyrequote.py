"""Python-style calls that are not valid Python but say what they mean (vLLM's LFM2 tests): an argument string
holding unescaped quotes of its own kind, ``command='sed -n '360,450p' f.py'``. Tried only when the strict
reading (:func:`~streamparse.formats.pyliteral.parse_call`) fails, so valid Python is read as Python.
"""

from __future__ import annotations

import re
from typing import Any, Final

from ..core.json_reader import dump_json
from .pyliteral import STRING, parse_call
from .pyplain import plain_call_json

_SPACE: Final = re.compile(r"\s*+")


def read_call(text: str) -> tuple[str, dict[str, Any]]:
    """:func:`~streamparse.formats.pyliteral.parse_call`, and when that fails, the same text with an argument
    string's own quotes escaped (:func:`requote`); the strict reading's error is raised when both fail."""
    try:
        return parse_call(text)
    except ValueError:
        fixed = requote(text)
        if fixed is None:
            raise
        try:
            return parse_call(fixed)
        except ValueError:
            pass
        raise


def read_call_json(text: str) -> tuple[str, str]:
    """:func:`read_call` with the arguments as JSON text (``json.dumps``, ``ensure_ascii`` off): the commonest
    calls are read and written in one step (:func:`~streamparse.formats.pyplain.plain_call_json`)."""
    plain = plain_call_json(text)
    if plain is not None:
        return plain
    name, args = read_call(text)
    return name, dump_json(args)


# A quote followed by this can close an argument's string: the next ``name=``, or the call's ``)`` at the end
# of the call text. Bounded: a name longer than the cap is not looked at.
_ARG_FOLLOWS: Final = re.compile(r"\s{0,16}+(?:,\s{0,16}+[^\W\d]\w{0,63}+\s{0,16}+=|\)\s*+\Z)")
_STRING_AT: Final = re.compile(r"[rRuU]?(?:" + STRING + r")", re.S)
_VALUE_FOLLOWS: Final = frozenset(",)]}:")


def requote(text: str) -> str | None:
    """``command='sed -n '360,450p' f.py'``: a keyword argument's single-quoted string whose first closing
    quote cannot end it (what follows is not ``,`` ``)`` ``]`` ``}`` or ``:``) ends instead at the first quote
    of its kind that the next ``name=`` or the call's final ``)`` follows (issue 17: a closer ends a
    structure only where the structure can end), and the quotes before that are escaped. ``None`` when
    nothing changes or no quote can end such a string. One pass, bounded look-ahead per quote.
    """
    out: list[str] = []
    i, n, depth, changed, last = 0, len(text), 0, False, ""
    while i < n:
        c = text[i]
        if c in "'\"" or (c in "rRuU" and i + 1 < n and text[i + 1] in "'\"" and not (out and out[-1][-1:].isalnum())):
            m = _STRING_AT.match(text, i)
            q = i + (c not in "'\"")
            single = not text.startswith(text[q] * 3, q)
            if m is not None and (not single or depth != 1 or last != "=" or _follows_value(text, m.end())):
                out.append(m.group())
                i, last = m.end(), "v"
                continue
            if not single or depth != 1 or last != "=" or c in "rR":
                return None  # outside an argument's value, or raw (a backslash would stay): nothing to mend
            end = _argument_end(text, q)
            if end is None:
                return None
            out.append(text[i : q + 1])
            out.append(_escape_quotes(text[q + 1 : end], text[q]))
            out.append(text[q])
            i, last, changed = end + 1, "v", True
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if not c.isspace():
            last = c
        out.append(c)
        i += 1
    return "".join(out) if changed else None


def _follows_value(text: str, pos: int) -> bool:
    j = _SPACE.match(text, pos).end()  # type: ignore[union-attr]  # \s*+ always matches
    return j < len(text) and text[j] in _VALUE_FOLLOWS


def _argument_end(text: str, q: int) -> int | None:
    """The quote that ends the argument string opened at ``q``: the first unescaped one of its kind that
    the next ``name=`` or the call's final ``)`` follows."""
    quote, i, n = text[q], q + 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote and _ARG_FOLLOWS.match(text, i + 1) is not None:
            return i
        i += 1
    return None


def _escape_quotes(body: str, quote: str) -> str:
    """Escape the unescaped ``quote`` characters of a string body (escape pairs are kept as written)."""
    return re.sub(
        r"\\.|" + re.escape(quote), lambda m: m.group() if len(m.group()) == 2 else "\\" + quote, body, flags=re.S
    )
