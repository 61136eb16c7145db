"""Gemma 4 / FunctionGemma call bodies: ``call:NAME{...}`` after ``<|tool_call>``, parsed once when complete
(the tracker of :mod:`streamparse.formats.gemma_args` finds where each body closes)."""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, State
from ..core.lookahead import LOOKAHEAD, skip_ws, starts_or_prefix
from ..rejections import Reason
from .gemma_args import GemmaArgsTracker, gemma_args_to_json
from .pythonic import feed_tracker

# Gemma 4: another ``call:NAME{`` may follow a call inside the same wrapper.
GEMMA_HEAD: Final = re.compile(r"call:(?P<name>[^\s{}<>:,]{1,200})\{")
_MAYBE_GEMMA_HEAD: Final = re.compile(r"c(?:a(?:l(?:l(?::[^\s{}<>:,]*)?)?)?)?")
_BODY: Final = 0
_AFTER: Final = 1
_RECOVER: Final = 2


class GemmaCallState(State):
    """``call:NAME{...}`` bodies after a ``<|tool_call>`` opener (the name is already set), then the closer.

    Several ``call:`` bodies may follow one another before the closer; each is its own call.
    """

    __slots__ = ("fmt", "delim", "closer", "tracker", "parts", "phase")

    def __init__(self, fmt: str, delim: str, closer: str) -> None:
        self.fmt = fmt
        self.delim = delim
        self.closer = closer
        self.tracker = GemmaArgsTracker(delim)
        self.parts: list[str] = []
        self.phase = _BODY

    def step(self, eng: Engine, final: bool) -> bool:
        if self.phase == _BODY:
            return self._body(eng, final)
        if self.phase == _AFTER:
            return self._after(eng, final)
        return self._recover(eng, final)

    def _body(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        end, broken = feed_tracker(self.tracker, buf, pos)
        if broken:
            assert end is not None
            eng.pos = end
            self._reject(eng, "unbalanced brackets in the arguments")
            return True
        if end is None:
            self.parts.append(buf[pos:])
            eng.pos = len(buf)
            return False
        self.parts.append(buf[pos:end])
        text = "".join(self.parts)
        self.parts = []
        eng.pos = end
        try:
            args_json = gemma_args_to_json(text, self.delim)
        except ValueError as exc:
            self._reject(eng, f"unreadable arguments: {exc}")
            return True
        eng.args(args_json)
        self.phase = _AFTER
        return True

    def _reject(self, eng: Engine, detail: str) -> None:
        call = eng.call
        if call is not None and call.reject is None:
            call.reject, call.detail = Reason.MALFORMED, detail
        self.phase = _RECOVER

    def _after(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        j = skip_ws(buf, eng.pos)
        if j >= len(buf):
            # The closer is required (end-of-stream rule); at the end the engine rejects the call as truncated.
            return False
        ok = starts_or_prefix(buf, j, self.closer)
        if ok is None and not final:
            return False
        if ok:
            end = j + len(self.closer)
            eng.end_call(end)
            eng.pos = end
            eng.pop()
            return True
        m = GEMMA_HEAD.match(buf, j, min(len(buf), j + LOOKAHEAD))
        if m is None and not final and len(buf) - j < LOOKAHEAD and _MAYBE_GEMMA_HEAD.fullmatch(buf, j):
            return False
        if m is not None:  # calls concatenated inside one wrapper
            eng.end_call(eng.pos)
            eng.begin_call(self.fmt, j)
            eng.set_name(m.group("name"))
            eng.pos = m.end() - 1
            self.tracker = GemmaArgsTracker(self.delim)
            self.phase = _BODY
            return True
        call = eng.call
        if call is not None and call.reject is None:
            call.reject, call.detail = Reason.MALFORMED, f"expected {self.closer!r} after the arguments"
        self.phase = _RECOVER
        return True

    def _recover(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        idx = buf.find(self.closer, eng.pos)
        if idx < 0:
            eng.pos = max(eng.pos, len(buf) - len(self.closer) + 1)
            return False  # at the end of the stream the engine rejects the open call
        end = idx + len(self.closer)
        eng.fail_call(Reason.MALFORMED, "", end)
        eng.pos = end
        eng.pop()
        return True
