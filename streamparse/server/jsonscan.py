"""A JSON request body checked and mapped without building it: where each top-level value lies, and each
element of the ``tools`` array, as byte spans of the body.

Parsed JSON takes about ten times its text in Python objects (a ``{"type": "integer"}`` schema: 18 bytes
of text, ~250 bytes of dicts and strings), and the proxy forwards the body as it came. So the body is
scanned token by token (one regex match per token, C-speed inside strings), checking the grammar, the
nesting depth and UTF-8, and recording spans; values are decoded later, one span at a time, only when
something needs them. The scan's work is one step per token, and the caller bounds the tokens (the value
count of ``limits.py``) before it starts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

__all__ = ["ScanError", "Scan", "scan"]

_WS = rb"[ \t\n\r]*"
_STRING = rb'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_SCALAR = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null|NaN|Infinity|-Infinity"
# One token: a string (with the colon that makes it a key), a number or literal, an opening or closing
# bracket, or a comma. Groups: 1 string, 2 colon, 3 scalar, 4 open, 5 close, 6 comma.
_TOKEN = re.compile(_WS + rb"(?:(" + _STRING + rb")(" + _WS + rb":)?|(" + _SCALAR + rb")|([{\[])|([}\]])|(,))")
_TRAILING = re.compile(_WS)
_PAIRS = {ord("}"): ord("{"), ord("]"): ord("[")}

# What the next token may be.
_VALUE, _FIRST_VALUE, _KEY, _FIRST_KEY, _AFTER = range(5)


class ScanError(ValueError):
    """The body is not valid JSON (``depth`` False) or nests deeper than allowed (``depth`` True)."""

    def __init__(self, message: str, *, depth: bool = False) -> None:
        super().__init__(message)
        self.depth = depth


@dataclass
class Scan:
    """Where things are in a body whose top level is an object (``is_object``): ``keys`` maps each
    top-level key (decoded; the last one wins, as ``json.loads``) to its value's span, ``tools`` the
    spans of the elements of the top-level ``tools`` array."""

    is_object: bool = False
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    tools: list[tuple[int, int]] = field(default_factory=list)


def _key(raw: bytes) -> str:
    decoded = json.loads(raw)
    assert isinstance(decoded, str)
    return decoded


def _bad(pos: int) -> ScanError:
    return ScanError(f"invalid JSON at byte {pos}")


def scan(body: bytes | bytearray, max_depth: int) -> Scan:
    """The :class:`Scan` of ``body``; :class:`ScanError` when it is not JSON or nests past ``max_depth``."""
    out = Scan()
    stack = bytearray()  # the open containers' brackets
    state = _VALUE
    top_key: str | None = None  # the top-level key whose value is being read
    opened = [0, 0, 0]  # where the open container at depth 1 and 2 started
    in_tools = False  # inside the top-level "tools" array
    pos, end = 0, len(body)
    match = _TOKEN.match
    while True:
        m = match(body, pos)
        if m is None:
            after = _TRAILING.match(body, pos)
            stop = after.end() if after is not None else pos
            if state == _AFTER and not stack and stop == end:
                break
            raise _bad(stop)
        pos = m.end()
        kind = m.lastindex or 0
        kind = 1 if kind == 2 else kind
        depth = len(stack)
        if kind == 6:  # a comma
            if state != _AFTER or not stack:
                raise _bad(m.start(6))
            state = _KEY if stack[-1] == 0x7B else _VALUE
            continue
        if kind == 1 and m.start(2) >= 0:  # a key
            if state not in (_KEY, _FIRST_KEY):
                raise _bad(m.start(1))
            if depth == 1:
                top_key = _key(m.group(1))
            state = _VALUE
            continue
        if kind == 5:  # a closing bracket: the container's value ends here
            if not stack or stack[-1] != _PAIRS[body[m.start(5)]] or state in (_VALUE, _KEY):
                raise _bad(m.start(5))
            stack.pop()
            depth -= 1
            start = opened[depth] if depth in (1, 2) else 0
        else:
            if state not in (_VALUE, _FIRST_VALUE):
                raise _bad(m.start(kind))
            start = m.start(kind)
            if kind == 4:  # an opening bracket
                if depth >= max_depth:
                    where = f" (at $.{top_key[:100]})" if top_key is not None else ""
                    raise ScanError(f"the request body nests deeper than {max_depth} levels{where}", depth=True)
                bracket = body[start]
                if depth == 0:
                    out.is_object = bracket == 0x7B
                elif depth == 1 and top_key == "tools":
                    in_tools = bracket == 0x5B
                    out.tools = []  # a repeated key: the last one wins
                if depth in (1, 2):
                    opened[depth] = start
                stack.append(bracket)
                state = _FIRST_KEY if bracket == 0x7B else _FIRST_VALUE
                continue
        state = _AFTER  # a value ended at ``pos``, at ``depth``
        if depth == 2 and in_tools:
            out.tools.append((start, pos))
        elif depth == 1 and top_key is not None:
            out.keys[top_key] = (start, pos)
            in_tools = False
    if not body.isascii():
        try:
            str(body, "utf-8")  # strict: invalid UTF-8 is invalid JSON (RFC 8259), as json.loads says
        except UnicodeDecodeError as exc:
            raise ScanError(f"the request body is not valid UTF-8 at byte {exc.start}") from None
    return out
