"""JSON call bodies for formats without an end marker, or whose malformed bodies must not leak.

:class:`OpenJsonCall` / :class:`OpenJsonArgs` are the shared JSON states (:mod:`streamparse.calls`) with two
changes: with no closer the call ends the moment its JSON closes (invariant 4, instead of waiting for the
next character), and malformed JSON is swallowed up to a marker the format names (``ends``, consumed, or
``stops``, left for the scan) or to the end of the stream, so the rest of the call becomes the rejection's
raw text instead of visible text. A required closer missing after complete JSON is handled the same way.
"""

from __future__ import annotations

from .calls import JsonArgsState, JsonCallState, skip_ws, starts_or_prefix
from .engine import Engine
from .rejections import Reason


def swallow(eng: Engine, fmt: str, ends: tuple[str, ...], stops: tuple[str, ...], final: bool) -> bool:
    """Malformed JSON: the call runs to the first of ``ends`` (included) or ``stops`` (excluded), else to
    the end of the stream; all of it is the rejection's raw text."""
    buf = eng.buf
    pos = eng.pos
    if eng.call is None:  # junk between the objects of a list: it becomes a rejected call of its own
        cand = eng.begin_call(fmt, pos)
        cand.reject, cand.detail = Reason.MALFORMED, "invalid JSON between calls"
    cut = end = -1
    for marker in ends:
        i = buf.find(marker, pos)
        if i >= 0 and (cut < 0 or i < cut):
            cut, end = i, i + len(marker)
    for marker in stops:
        i = buf.find(marker, pos)
        if i >= 0 and (cut < 0 or i < cut):
            cut, end = i, i
    if cut < 0:
        if not final:
            keep = max((len(m) for m in ends + stops), default=1) - 1
            eng.pos = max(pos, len(buf) - keep)
            return False
        end = len(buf)
    eng.fail_call(Reason.MALFORMED, "invalid JSON", end)
    eng.pos = end
    eng.pop()
    return True


def _junk_before_closer(state: JsonCallState | JsonArgsState, eng: Engine, final: bool) -> bool:
    """A required closer is missing after the JSON: the text up to it is part of the (malformed) call, so
    recover (phase 2) instead of leaving it, and the closer, visible."""
    if state.optional_close or state.fenced or eng.call is None or state.list_form:
        return False
    buf = eng.buf
    j = skip_ws(buf, eng.pos)
    if j >= len(buf):
        return False
    if any(starts_or_prefix(buf, j, c) is not False for c in state.closers):
        return False
    cand = eng.call
    if cand.reject is None:
        cand.reject, cand.detail = Reason.MALFORMED, f"expected {state.closers[0]!r} after the JSON"
    state.phase = 2
    return True


class OpenJsonCall(JsonCallState):
    """:class:`JsonCallState` that ends as soon as its JSON closes when there is no closer, and recovers
    from malformed JSON up to ``ends`` (consumed; default: the closers) or ``stops`` (left for the scan)."""

    __slots__ = ("ends", "stops")

    def __init__(
        self,
        eng: Engine,
        fmt: str,
        closers: tuple[str, ...] = (),
        *,
        list_form: bool = False,
        optional_close: bool = False,
        fenced: bool = False,
        ends: tuple[str, ...] | None = None,
        stops: tuple[str, ...] = (),
    ) -> None:
        super().__init__(eng, fmt, closers, list_form=list_form, optional_close=optional_close, fenced=fenced)
        self.ends = closers if ends is None else ends
        self.stops = stops

    def _close(self, eng: Engine, final: bool) -> bool:
        if not self.closers and not self.fenced:
            self._finish(eng, eng.pos)
            return True
        if _junk_before_closer(self, eng, final):
            return True
        return super()._close(eng, final)

    def _recover(self, eng: Engine, final: bool) -> bool:
        return swallow(eng, self.fmt, self.ends, self.stops, final)


class OpenJsonArgs(JsonArgsState):
    """:class:`JsonArgsState` with the same end and recovery rules as :class:`OpenJsonCall`."""

    __slots__ = ("ends", "stops")

    def __init__(
        self, eng: Engine, closers: tuple[str, ...] = (), *, stops: tuple[str, ...] = (), optional_close: bool = False
    ) -> None:
        super().__init__(eng, closers, optional_close=optional_close)
        self.ends = closers
        self.stops = stops

    def _close(self, eng: Engine, final: bool) -> bool:
        if not self.closers:
            self._finish(eng, eng.pos)
            return True
        if _junk_before_closer(self, eng, final):
            return True
        return super()._close(eng, final)

    def _recover(self, eng: Engine, final: bool) -> bool:
        return swallow(eng, eng.call.format if eng.call is not None else "", self.ends, self.stops, final)
