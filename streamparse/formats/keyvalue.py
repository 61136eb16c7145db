"""The body of a key_value call (docs/FORMATS.md ``key_value``): ``NAME for K V K V ...`` up to the end of the line.

Values are ``"..."`` (spaces allowed, ``\\"`` and ``\\\\`` escapes) or a run of non-spaces, typed by the tool
schema (text-value rule). Tokens are consumed as they arrive (the buffer is never re-scanned), and each key/value pair
is written to the arguments JSON as soon as its value is complete.
"""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, State
from ..core.json_reader import dump_json
from ..rejections import Reason
from ..states.coerce import coerce_text_value

_BLANK: Final = " \t\r"
_QUOTED_STOP: Final = re.compile(r'["\\\n]')
_BARE_STOP: Final = re.compile(r"[ \t\r\n]")


class KeyValueState(State):
    """After ``✦ tool_call: NAME``: the optional ``for`` clause, then the end of the line ends the call."""

    __slots__ = ("tokens", "part", "quoted", "escape", "in_token", "npairs", "key")

    def __init__(self) -> None:
        self.tokens = 0  # complete tokens after the name (``for`` is the first)
        self.part: list[str] = []  # the token being read
        self.quoted = False
        self.escape = False
        self.in_token = False
        self.npairs = 0
        self.key = ""

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        n = len(buf)
        if self.in_token:
            return self._token(eng, final)
        while pos < n and buf[pos] in _BLANK:
            pos += 1
        eng.pos = pos
        if pos >= n:
            if final:
                self._end(eng, pos)
                return True
            return False
        if buf[pos] == "\n":
            self._end(eng, pos)
            return True
        self.in_token = True
        self.quoted = buf[pos] == '"'
        if self.quoted:
            eng.pos = pos + 1
        return True

    def _token(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        if not self.quoted:
            m = _BARE_STOP.search(buf, pos)
            end = len(buf) if m is None else m.start()
            self.part.append(buf[pos:end])
            eng.pos = end
            if m is None and not final:
                return False
            self._done(eng)
            return True
        while True:
            if self.escape and pos < len(buf):
                self.escape = False  # a backslash escapes exactly the next character (not a newline)
                c = buf[pos]
                if c != "\n":
                    self.part.append(c if c in '"\\' else "\\" + c)
                    pos += 1
                    continue
            m = _QUOTED_STOP.search(buf, pos)
            if m is None:
                self.part.append(buf[pos:])
                eng.pos = len(buf)
                if final:
                    eng.fail_call(Reason.TRUNCATED, "the stream ended inside a quoted value", eng.pos)
                    eng.pop()
                    return True
                return False
            c = m.group()
            self.part.append(buf[pos : m.start()])
            if c == "\\":
                self.escape = True
                pos = m.end()
                continue
            if c == '"':
                eng.pos = m.end()
                self._done(eng)
                return True
            break
        # A newline inside a quoted value: the line (and so the call) ended with the quote open.
        eng.fail_call(Reason.MALFORMED, "unterminated quoted value", m.start())
        eng.pos = m.start()
        eng.pop()
        return True

    def _done(self, eng: Engine) -> None:
        text = "".join(self.part)
        self.part = []
        self.in_token = False
        quoted = self.quoted
        self.quoted = False
        call = eng.call
        if call is None:
            return
        index = self.tokens
        self.tokens += 1
        if index == 0:
            if (text != "for" or quoted) and call.reject is None:
                call.reject, call.detail = Reason.MALFORMED, f"expected 'for' after the name, got {text[:40]!r}"
            return
        if index % 2 == 1:
            self.key = text
            return
        schema = None
        tools = eng.cfg.tools
        if tools is not None and call.name is not None and call.name in tools:
            schema = tools.property_schema(call.name, self.key)
        value = coerce_text_value(text, schema)
        prefix = "{" if self.npairs == 0 else ", "
        self.npairs += 1
        eng.args(prefix + dump_json(self.key) + ": " + dump_json(value))

    def _end(self, eng: Engine, end: int) -> None:
        call = eng.call
        if call is not None and self.tokens > 1 and self.tokens % 2 == 0 and call.reject is None:
            call.reject, call.detail = Reason.MALFORMED, f"key {self.key[:40]!r} has no value"
        eng.args("}" if self.npairs else "{}")
        eng.end_call(end)
        eng.pos = end
        eng.pop()
