"""granite_pythonic: Granite 3.3 and 4.0-H-Small as vLLM's ``granite_pythonic`` parser reads them (served with
vLLM's granite tool template): each call is a line of its own, ``NAME(key=value, ...)``, with no marker.

Nothing marks a call, so a line is one only when the whole of it is a single call with literal keyword
arguments (a line start: the output's start or after a newline). Until that is known the line is held, and
released as text when it is not one (start rule: prose is not a call); a line cut inside its call is a cut
call. The call text is read by pythonic's tracker and reader (:mod:`.pythonic`, :mod:`.pyrequote`).
"""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, State
from ..rejections import Reason
from .base import FormatSpec, Wiring
from .openers import Decision
from .pyliteral import PyCallTracker
from .pyrequote import read_call_json
from .pythonic import HEAD_UNDECIDED, _ends_line, feed_tracker, match_head

_FMT: Final = "granite_pythonic"
_BODY: Final = 0
_AFTER: Final = 1


class _LineCall(State):
    """A line that starts like a call, held from its name: the call up to its ``)`` on the same line, then only
    blanks up to the line's end. ``lead``: the newline before the line (text again if the line is not a call)."""

    __slots__ = ("lead", "parts", "size", "tracker", "phase", "done", "dropped")

    def __init__(self, lead: str) -> None:
        self.lead = lead
        self.parts: list[str] = []
        self.size = 0  # characters held
        self.tracker = PyCallTracker("call")
        self.phase = _BODY
        self.done: tuple[str, str] | None = None
        self.dropped = False  # rejected too_large: the rest of the call is swallowed, not held

    def step(self, eng: Engine, final: bool) -> bool:
        buf, pos = eng.buf, eng.pos
        if self.phase == _BODY:
            nl = buf.find("\n", pos)
            piece = buf[pos:] if nl < 0 else buf[pos:nl]  # a call ends on its own line
            end, broken = feed_tracker(self.tracker, piece, 0)
            used = len(piece) if end is None else end
            eng.pos = pos + used
            if not self.dropped:
                self.parts.append(piece[:used])
                self.size += used
                self._limit(eng)
            if self.dropped:  # the call's end, its line's end or a break ends what is swallowed
                if broken or end is not None or nl >= 0:
                    eng.end_call(eng.pos)
                    eng.pop()
                    return True
                return False
            if broken or (end is None and nl >= 0):
                return self._decline(eng)
            if end is None:
                return False
            try:
                self.done = read_call_json("".join(self.parts))
            except ValueError:
                return self._decline(eng)
            self.phase = _AFTER
            return True
        ends = _ends_line(buf, pos, final)
        if ends is None:
            return False
        if not ends:
            return self._decline(eng)
        assert self.done is not None
        name, args_json = self.done
        raw = "".join(self.parts)
        cand = eng.begin_call(_FMT, pos)
        cand.raw_parts.append(raw)
        cand.raw_len += len(raw)
        eng.set_name(name)
        eng.args(args_json)
        eng.end_call(pos)
        eng.pop()
        return True

    def _limit(self, eng: Engine) -> None:
        """Held past ``max_call_chars``: a call candidate too large to keep (its first ``limit`` characters are
        its raw text, whatever the chunking), as an open call would be rejected."""
        limit = eng.cfg.max_call_chars
        if limit is None or self.size <= limit:
            return
        raw = "".join(self.parts)[:limit]
        cand = eng.begin_call(_FMT, eng.pos)
        cand.raw_parts.append(raw)
        cand.raw_len += len(raw)
        eng.reject_too_large()
        self.parts, self.dropped = [], True

    def _decline(self, eng: Engine) -> bool:
        eng.text(self.lead + "".join(self.parts))
        eng.pop()
        return True

    def at_close(self, eng: Engine) -> None:
        """The output ended inside the call (before its ``)``): a cut call."""
        raw = "".join(self.parts)
        if self.phase == _BODY and raw and not self.dropped:
            cand = eng.begin_call(_FMT, eng.pos)
            cand.raw_parts.append(raw)
            cand.raw_len += len(raw)
            eng.fail_call(Reason.TRUNCATED, "the stream ended inside the call", eng.pos)


def _line_call(eng: Engine, at: int, lead: str, final: bool) -> Decision:
    m = match_head(eng.buf, at, final)
    if not isinstance(m, re.Match):
        return m
    eng.pos = at
    eng.push(_LineCall(lead))
    return True


def _after_newline(eng: Engine, s: int, e: int, final: bool) -> Decision:
    decision = _line_call(eng, e, eng.buf[s:e], final)
    if decision is None:  # (not final) the line's first word arriving in pieces: kept while it may be a name
        eng.wait_for(HEAD_UNDECIDED, e)
    return decision


def _at_start(eng: Engine, s: int, e: int, final: bool) -> Decision:
    return _line_call(eng, s, "", final)


def wire_granite_pythonic(w: Wiring) -> None:
    w.on("\n", _after_newline)
    w.start.append(_at_start)


SPECS: Final = [
    FormatSpec(
        _FMT,
        "Granite 3.3, Granite 4.0-H-Small (with vLLM's granite tool template)",
        "a line that is one call: NAME(key=value, ...)",
        'Checking.\nget_weather(city="Paris")',
        wire_granite_pythonic,
        opt_in=True,
        notes="named only: there is no marker, so a whole line must be one call with literal keyword arguments; "
        "any other line is text.",
    ),
]
