"""functionary v3.2: messages addressed ``>>>RECIPIENT``; ``all`` is visible text, a tool name takes JSON
arguments, ``python`` takes raw code. A call ends where the next recipient or the end of message begins."""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, MarkerTable, State
from ..core.json_reader import dump_json
from ..core.lookahead import after_ws, skip_ws
from ..rejections import Reason
from ..states.json_body import JsonArgsState
from .base import FormatSpec, Wiring
from .openers import NAME_MAX, Decision

# -- functionary_v3 ---------------------------------------------------------------------------------------

RECIPIENT_MARK: Final = ">>>"
_RECIPIENT: Final = re.compile(r"[A-Za-z_][\w.\-]{0,199}")
_MESSAGE_ENDS: Final = ("<|eot_id|>", "<|eom_id|>")
_CODE_END: Final = MarkerTable({RECIPIENT_MARK: [], **{t: [] for t in _MESSAGE_ENDS}})


def _recipient(buf: str, e: int, final: bool) -> re.Match[str] | bool | None:
    """``RECIPIENT\\n`` right after ``>>>`` (``>>> `` with a space is a REPL prompt): match, False, None."""
    m = _RECIPIENT.match(buf, e)
    if m is None:
        return False if e < len(buf) or final else None
    i = m.end()
    if i >= len(buf):
        return False if final or i - e >= NAME_MAX else None
    return m if buf[i] == "\n" else False


class CodeBodyState(State):
    """The raw code body of a ``>>>python`` message, streamed as ``{"code": "..."}`` up to the next
    recipient header, an end-of-message token or the end of the stream."""

    __slots__ = ()

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        found = _CODE_END.markers.search(buf, pos)
        if found is None or (found[2] is None and final):
            self._write(eng, buf[pos:])
            eng.pos = len(buf)
            return False
        s, e, tok = found
        self._write(eng, buf[pos:s])
        eng.pos = s
        if tok is None:
            return False
        if tok == RECIPIENT_MARK:
            header = _recipient(buf, e, final)
            if header is None:
                return False
            if header is False:
                self._write(eng, buf[s : s + 1])
                eng.pos = s + 1
                return True
        self._finish(eng)
        return True

    @staticmethod
    def _write(eng: Engine, text: str) -> None:
        if text:
            eng.args(dump_json(text)[1:-1])

    @staticmethod
    def _finish(eng: Engine) -> None:
        eng.args('"}')
        eng.end_call(eng.pos)
        eng.pop()

    def at_close(self, eng: Engine) -> None:
        if eng.call is not None:
            self._finish(eng)


def recipient_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``>>>RECIPIENT\n``: ``all`` → the text that follows is visible; ``python`` → raw code (rejected unless
    declared); any other recipient is a tool name with a JSON body."""
    m = _recipient(eng.buf, e, final)
    if not isinstance(m, re.Match):
        return m
    return _open_message(eng, s, m)


def primed_recipient(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """The prompt ends with ``>>>``, so the output may begin with ``all\n`` or ``NAME\n{`` (formats named
    explicitly only: prose could begin with a word on its own line). ``python`` needs its ``>>>``."""
    buf = eng.buf
    m = _recipient(buf, s, final)
    if not isinstance(m, re.Match):
        return m
    if m.group() == "python":
        return False
    if m.group() != "all":
        j = after_ws(buf, m.end(), final)
        if j is None or isinstance(j, bool):
            return j
        if buf[j] != "{":
            return False
    return _open_message(eng, s, m)


def _open_message(eng: Engine, s: int, m: re.Match[str]) -> bool:
    body = m.end() + 1
    recipient = m.group()
    if recipient == "all":
        eng.pos = body
        return True
    eng.begin_call("functionary_v3", s)
    if recipient == "python":
        tools = eng.cfg.tools
        if tools is not None and "python" in tools:
            eng.set_name("python")
        else:
            cand = eng.call
            assert cand is not None
            cand.name = "python"
            cand.reject, cand.detail = Reason.UNKNOWN_TOOL, "the code interpreter 'python' is not declared"
        eng.args('{"code": "')
        eng.pos = body
        eng.push(CodeBodyState())
        return True
    eng.set_name(recipient)
    eng.pos = body
    eng.push(_FunctionaryBody())
    return True


class _FunctionaryBody(State):
    """Whitespace before a recipient's JSON body, then the body (an object; anything else is malformed)."""

    __slots__ = ()

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        j = skip_ws(buf, eng.pos)
        if j >= len(buf):
            eng.pos = j  # whitespace is part of the call's raw text
            return False
        eng.pos = j
        eng.pop()
        eng.push(JsonArgsState(eng, stops=(RECIPIENT_MARK,) + _MESSAGE_ENDS))
        return True


def wire_functionary_v3(w: Wiring) -> None:
    w.on(RECIPIENT_MARK, recipient_open)
    if w.explicit:
        w.start.append(primed_recipient)


# -- catalog -------------------------------------------------------------------------------------

_ARGS: Final = '{"minutes": 15}'

SPECS: Final = [
    FormatSpec(
        "functionary_v3",
        "functionary v3.2 (meetkai/functionary-small-v3.2, -medium-v3.2)",
        ">>>RECIPIENT\\nBODY: all → visible text; NAME → JSON arguments; python → raw code",
        '>>>all\nChecking.>>>lookup_order\n{"order_id": "A-1001"}',
        wire_functionary_v3,
        notes="The prompt ends with `>>>`: when functionary_v3 is named explicitly, an output that starts with "
        "`all\\n` or `NAME\\n{` is read as the first message; in auto mode re-add `>>>`. `python` is rejected "
        'unless declared; its arguments are {"code": BODY}.',
    ),
]
