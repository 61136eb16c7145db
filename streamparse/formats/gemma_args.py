"""The Gemma 4 / FunctionGemma argument grammar, read safely and turned into JSON text.

``<|tool_call>call:NAME{k:V,...}<tool_call|>``: keys are bare words, strings sit between ``<|"|>``
delimiters (FunctionGemma: ``<escape>``) with no escaping at all, numbers and ``true``/``false``/``null``
are bare, ``{}`` and ``[]`` nest. Commas, colons and brackets inside a delimited string are literal.

JSON text is written while reading (no intermediate object handed to ``json.dumps``), with an explicit
stack, so the cost is linear and deep nesting cannot raise ``RecursionError``.
"""

from __future__ import annotations

import math
import re
from json.encoder import encode_basestring  # the C string escaper json.dumps(ensure_ascii=False) uses
from typing import Final

from .pyliteral import MAX_DEPTH, MAX_INT_DIGITS

GEMMA4_STRING_DELIM: Final = '<|"|>'
FUNCTIONGEMMA_STRING_DELIM: Final = "<escape>"

# A bare word runs to whitespace, punctuation or the start of a delimiter (``<``) / a stray quote.
_WORD: Final = re.compile(r'[^\s:,{}\[\]<"]++')
# A bare key runs to its colon: the template prints keys as they are (``{{ key }}:``), spaces included.
_KEY_WORD: Final = re.compile(r'[^:,{}\[\]<"\n]++')
_SPACE: Final = re.compile(r"\s*+")
_JSON_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*+)(?P<frac>\.[0-9]++)?(?P<exp>[eE][+-]?[0-9]++)?")
# Gemma 4's chat template prints a Python ``None`` / ``True`` / ``False`` argument as such, so a model
# trained on it writes them too: read as JSON's null / true / false.
_LITERALS: Final = {"true": "true", "false": "false", "null": "null", "None": "null", "True": "true", "False": "false"}

_KEY: Final = 0
_VALUE: Final = 1
_AFTER: Final = 2


def _check_delim(string_delim: str) -> None:
    if not string_delim or any(c in string_delim for c in "{}[]"):
        raise ValueError("the string delimiter must be non-empty and hold no brackets")


def _scalar(word: str, at: int) -> str:
    """A bare value as JSON text: a JSON number or ``true``/``false``/``null``."""
    literal = _LITERALS.get(word)
    if literal is not None:
        return literal
    m = _JSON_NUMBER.fullmatch(word)
    if m is None:
        raise ValueError(f"bare value {word[:40]!r} at {at} is not a number, true, false or null")
    if m.group("frac") or m.group("exp"):
        if not math.isfinite(float(word)):
            raise ValueError(f"number out of range at {at}")
    elif len(word) > MAX_INT_DIGITS:
        raise ValueError(f"number too long at {at}")  # json.loads would refuse it
    return word


def gemma_args_to_json(text: str, string_delim: str = GEMMA4_STRING_DELIM) -> str:
    """``{label:<|"|>standup, daily<|"|>,minutes:15}`` → ``'{"label": "standup, daily", "minutes": 15}'``.

    ``text`` is the whole ``{...}`` (whitespace around tokens allowed). Keys are bare words or delimited
    strings; a trailing comma is tolerated. Raises ValueError on anything else.
    """
    _check_delim(string_delim)
    dlen = len(string_delim)
    pos = _SPACE.match(text).end()  # type: ignore[union-attr]  # \s*+ always matches
    if not text.startswith("{", pos):
        raise ValueError("the arguments must be an object '{...}'")
    out = ["{"]
    stack = ["}"]  # the closer each open container expects
    pos += 1
    state = _KEY
    first = True  # no item written yet in the innermost container
    closable = True  # the innermost container may close now (empty, or after a comma)
    n = len(text)
    while True:
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if state == _AFTER:
            if not stack:
                if pos != n:
                    raise ValueError(f"unexpected text at {pos} after the arguments")
                return "".join(out)
            char = text[pos] if pos < n else ""
            pos += 1
            if char == ",":
                state = _KEY if stack[-1] == "}" else _VALUE
                closable = True
            elif char == stack[-1]:
                out.append(stack.pop())
            else:
                found = repr(char) if char else "end of text"
                raise ValueError(f"expected ',' or {stack[-1]!r} at {pos - 1}, got {found}")
            continue
        if pos >= n:
            raise ValueError("truncated arguments")
        char = text[pos]
        if closable and char == stack[-1] and (state == _KEY or char == "]"):
            out.append(stack.pop())
            pos += 1
            state, first = _AFTER, False
            continue
        if state == _KEY:
            if text.startswith(string_delim, pos):
                end = text.find(string_delim, pos + dlen)
                if end < 0:
                    raise ValueError(f"unterminated string at {pos}")
                key = text[pos + dlen : end]
                pos = end + dlen
            else:
                m = _KEY_WORD.match(text, pos)
                if m is None:
                    raise ValueError(f"expected a key at {pos}, got {char!r}")
                key, pos = m.group().rstrip(), m.end()
            pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            if not text.startswith(":", pos):
                raise ValueError(f"expected ':' after key {key[:40]!r} at {pos}")
            pos += 1
            out.append(("" if first else ", ") + encode_basestring(key) + ": ")
            state, first = _VALUE, False
            continue
        # _VALUE: an array item needs its separator here; an object value got it with its key.
        if stack[-1] == "]":
            if not first:
                out.append(", ")
            first = False
        if char in "{[":
            if len(stack) >= MAX_DEPTH:
                raise ValueError(f"nesting deeper than {MAX_DEPTH}")
            out.append(char)
            stack.append("}" if char == "{" else "]")
            pos += 1
            state = _KEY if char == "{" else _VALUE
            first = closable = True
            continue
        if text.startswith(string_delim, pos):
            end = text.find(string_delim, pos + dlen)
            if end < 0:
                raise ValueError(f"unterminated string at {pos}")
            out.append(encode_basestring(text[pos + dlen : end]))
            pos = end + dlen
        else:
            m = _WORD.match(text, pos)
            if m is None:
                raise ValueError(f"expected a value at {pos}, got {char!r}")
            out.append(_scalar(m.group(), pos))
            pos = m.end()
        state, closable = _AFTER, False


_BRACKETS: Final = {"{": "}", "[": "]"}


class GemmaArgsTracker:
    """Incremental: where does the top-level ``{...}`` close (outside delimited strings)?

    Feed the candidate from its ``{``. A delimiter split across pieces (``<|"`` + ``|>``) is handled by
    carrying the longest piece suffix that could still begin one (shorter than the delimiter), so the
    total work stays linear.
    """

    __slots__ = ("_delim", "_scan", "_stack", "_in_string", "_carry", "_broken", "_closed")

    def __init__(self, string_delim: str = GEMMA4_STRING_DELIM) -> None:
        _check_delim(string_delim)
        self._delim = string_delim
        self._scan = re.compile(r"[{}\[\]]|" + re.escape(string_delim))
        self._stack: list[str] = []
        self._in_string = False
        self._carry = ""  # the tail of earlier pieces that may be the start of a delimiter
        self._broken = False
        self._closed = False

    @property
    def depth(self) -> int:
        return len(self._stack)

    @property
    def broken(self) -> bool:
        """A closer that does not match, or anything but ``{`` opening the candidate."""
        return self._broken

    @property
    def closed(self) -> bool:
        return self._closed

    def _keep_tail(self, buf: str, start: int) -> None:
        delim = self._delim
        for k in range(min(len(delim) - 1, len(buf) - start), 0, -1):
            if delim.startswith(buf[len(buf) - k :]):
                self._carry = buf[len(buf) - k :]
                return
        self._carry = ""

    def feed(self, text: str) -> int | None:
        """Consume the next piece; return the offset in it just past the closing ``}``, else None.

        After the object closed or the candidate broke, further pieces are ignored (None).
        """
        if self._broken or self._closed:
            return None
        base = len(self._carry)
        buf = self._carry + text if base else text
        self._carry = ""
        delim, i = self._delim, 0
        while True:
            if self._in_string:
                end = buf.find(delim, i)
                if end < 0:
                    self._keep_tail(buf, i)
                    return None
                i = end + len(delim)
                self._in_string = False
                continue
            m = self._scan.search(buf, i)
            if m is None:
                self._keep_tail(buf, i)
                return None
            token, i = m.group(), m.end()
            if token in _BRACKETS:
                if not self._stack and token != "{":
                    self._broken = True
                    return None
                self._stack.append(_BRACKETS[token])
            elif token == delim:
                if not self._stack:
                    self._broken = True
                    return None
                self._in_string = True
            elif not self._stack or self._stack.pop() != token:
                self._broken = True
                return None
            elif not self._stack:
                self._closed = True
                return i - base
