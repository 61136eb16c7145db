"""JSON call bodies shared by every format that writes its calls as JSON.

- :class:`JsonCallState`: a JSON call object ``{"name": ..., "arguments": {...}}`` (any key order and the
  field-name variants of the ``json`` format), or a list of them; arguments stream as they arrive.
- :class:`JsonArgsState`: the name came from a header; the body is the JSON arguments object.
"""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, State
from ..core.json_reader import DONE, DQ_RUN, ERROR, STRING, JsonReader
from ..core.lookahead import skip_ws, starts_or_prefix
from ..rejections import Reason
from .call_fields import CallExtractor, args_value
from .lenient import LenientArgsSink, lenient_on

JSON_FENCE: Final = "json_fence"
STOP: Final = "stop"  # close(reason="stop"): the stream ended normally (not for length)


_SHARE_MIN: Final = 32  # shorter argument text is simply kept twice: sharing would cost more than it saves


def _stream_args(eng: Engine, text: str, start: int, end: int) -> None:
    """Argument JSON read from ``buf[start:end]``: when it is that text's tail verbatim (no repair), the
    call keeps it once (its markup refers to it), else it is argument text of its own."""
    if len(text) >= _SHARE_MIN and eng.buf.endswith(text, start, end):
        eng.args_verbatim(end - len(text), text)
    else:
        eng.args(text)


class _JsonBody(State):
    """What JSON bodies share: the closer after the value, and recovery after malformed JSON."""

    # closers: required (or, with optional_close, optional) end markers after the JSON value;
    # ends: malformed JSON is swallowed through the first of these (default: the closers);
    # stops: ... or up to the first of these (left for the scan: e.g. the next call's opener), which also
    #   end a call with closers when one stands right after its complete JSON (the closer was left out);
    # phase: 0 reading JSON, 1 expecting the closer, 2 recovering after malformed JSON.
    __slots__ = ("closers", "ends", "stops", "optional_close", "fenced", "phase")
    closers: tuple[str, ...]
    ends: tuple[str, ...]
    stops: tuple[str, ...]
    optional_close: bool
    fenced: bool
    phase: int
    list_form: bool

    def _close(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        end = eng.pos  # where the call ends when no closer follows: right after the JSON value
        if not self.closers and not self.fenced:
            self._finish(eng, end)  # the JSON value was the whole call (early completion: end now)
            return True
        j = skip_ws(buf, end)
        if j >= len(buf) and not final:
            return False
        # Several objects before the closer, after a comma or on lines of their own (MiniMax-M1).
        if getattr(self, "several", False) and j < len(buf) and (buf[j] == "," or (buf[j] == "{" and j > end)):
            k = skip_ws(buf, j + 1) if buf[j] == "," else j
            if k >= len(buf) and not final:
                return False
            if k < len(buf) and buf[k] == "{" and isinstance(self, JsonCallState):
                eng.end_call(end)
                eng.begin_call(self.fmt, k)
                eng.pos = k
                eng.state = JsonCallState(
                    eng,
                    self.fmt,
                    self.closers,
                    optional_close=self.optional_close,
                    ends=self.ends,
                    stops=self.stops,
                    several=True,
                    fields=self.fields,
                    nested=self.nested,
                )
                return True
        if self.fenced:
            ok = starts_or_prefix(buf, j, "```")
            if ok is None and not final:
                return False
            if ok:
                end = j + 3
                j = skip_ws(buf, end)
                if j >= len(buf) and not final and self.closers:
                    return False
        for closer in self.closers:
            ok = starts_or_prefix(buf, j, closer)
            if ok is None and not final:
                if not self.fenced:  # (a fence's end would decide first)
                    eng.wait_for(closer, j)  # only more of it can change this answer: the engine keeps it
                return False
            if ok:
                self._finish(eng, j + len(closer))
                return True
        for marker in self.stops:
            # The next call's opener right after the complete JSON: this call's closer was left out; it
            # ends here and the opener is left for the scan.
            ok = starts_or_prefix(buf, j, marker)
            if ok is None and not final:
                return False
            if ok:
                self._finish(eng, end)
                return True
        if self.optional_close or not self.closers:
            self._finish(eng, end)
            return True
        if final and eng.call is not None and (j >= len(buf) or any(c.startswith(buf[j:]) for c in self.closers)):
            # The stream ended before (or inside) the required end marker: truncated, not malformed
            # (end-of-stream rule).
            stop = len(buf) if j < len(buf) else end
            if eng.end_reason == STOP:
                # The body is complete and the stream stopped normally: a stop sequence ate the closer.
                self._finish(eng, stop)
                return True
            eng.fail_call(Reason.TRUNCATED, f"the stream ended before {self.closers[0]!r}", stop)
            eng.pos = stop
            eng.pop()
            return True
        if eng.call is not None and not self.list_form and not self.fenced:
            # Text where the required end marker should be: the call is malformed, and everything up to the
            # end marker is its markup (recovered below), so nothing of it leaks into the visible text.
            cand = eng.call
            if cand.reject is None:
                cand.reject, cand.detail = Reason.MALFORMED, f"expected {self.closers[0]!r} after the JSON"
            self.phase = 2
            return True
        if eng.call is not None:
            eng.fail_call(Reason.MALFORMED, f"expected {self.closers[0]!r} after the JSON", end)
        eng.pos = end
        eng.pop()
        return True

    def _finish(self, eng: Engine, end: int) -> None:
        if not self.list_form:
            eng.end_call(end)
        eng.pos = end
        eng.pop()

    def _recover(self, eng: Engine, final: bool) -> bool:
        """Malformed JSON: the call runs to the first of ``ends`` (included) or ``stops`` (excluded), else to
        the end of the stream; all of it is the rejection's raw text, so no markup leaks into the text.
        A format with neither (an ASCII marker such as ``TOOL_CALL``) rejects at the error and scans on."""
        ends, stops = self.ends, self.stops
        buf = eng.buf
        pos = eng.pos
        if not ends and not stops:
            if eng.call is not None:
                eng.fail_call(Reason.MALFORMED, "", pos)
            eng.pop()
            return True
        if eng.call is None:  # junk between the objects of a list: a rejected candidate of its own
            cand = eng.begin_call(getattr(self, "fmt", ""), pos)
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
                keep = max(len(m) for m in ends + stops) - 1
                eng.pos = max(pos, len(buf) - keep)
                return False
            end = len(buf)
        eng.fail_call(Reason.MALFORMED, "invalid JSON", end)
        eng.pos = end
        eng.pop()
        return True

    def at_close(self, eng: Engine) -> None:
        if self.phase == 1 and (self.optional_close or not self.closers) and eng.call is not None:
            eng.end_call(eng.pos)


class JsonCallState(_JsonBody):
    """One call object (the opener began the candidate) or a list of call objects, then a closer."""

    __slots__ = ("fmt", "sink", "list_form", "several", "fields", "nested")

    def __init__(
        self,
        eng: Engine,
        fmt: str,
        closers: tuple[str, ...] = (),
        *,
        list_form: bool = False,
        optional_close: bool = False,
        fenced: bool = False,
        fallback: bool = False,
        ends: tuple[str, ...] | None = None,
        stops: tuple[str, ...] = (),
        several: bool = False,
        fields: tuple[str, tuple[str, ...]] | None = None,
        nested: str = "",
    ) -> None:
        self.fmt = fmt
        self.fields = fields
        self.nested = nested
        # ``{...}, {...}`` before the closer: each object is a call of its own (Qwen-style output).
        self.several = several
        self.closers = closers
        self.ends = closers if ends is None else ends
        self.stops = stops
        self.optional_close = optional_close
        self.fenced = fenced
        self.list_form = list_form
        self.sink = CallExtractor(
            eng, fmt, 1 if list_form else 0, each=list_form, fallback=fallback, fields=fields, nested=nested
        )
        self.phase = 0
        if fenced:
            eng.add_repairs([JSON_FENCE])

    def arm(self, eng: Engine) -> tuple[re.Pattern[str], bool] | None:
        reader = self.sink.reader
        if self.phase or reader.state != STRING or reader.is_key or reader.out or reader.quote != '"':
            return None
        return (DQ_RUN, False) if self.sink.streaming else None

    def step(self, eng: Engine, final: bool) -> bool:
        if self.phase == 0:
            sink = self.sink
            reader = sink.reader
            start = eng.pos
            eng.pos = end = reader.feed(eng.buf, start, final)
            if sink.args_depth >= 0 and sink.args_kind == "{":  # (sink.streaming, inlined: once per chunk)
                _stream_args(eng, reader.drain(), start, end)
            elif eng.call is not None and eng.call.closed:
                reader.drain()  # rejected too_large: keep reading to its end, buffering nothing
            state = reader.state
            if state < DONE:
                return False
            if state == ERROR:
                if eng.call is not None:
                    eng.call.reject, eng.call.detail = Reason.MALFORMED, f"invalid JSON: {reader.error}"
                self.phase = 2
                return True
            self.phase = 1
            return True
        if self.phase == 1:
            return self._close(eng, final)
        return self._recover(eng, final)


# A value that is not an object starts with one of these (a string, an array, a number, true/false/null).
_NON_OBJECT_START: Final = frozenset('"[-0123456789tfn')


class JsonArgsState(_JsonBody):
    """The arguments object of a call whose name is already known, then a closer.

    Arguments written as another JSON value (a string holding the object, null, ...) are read whole and
    judged by :func:`args_value`, as in call objects.
    """

    __slots__ = ("reader", "held")
    list_form = False

    def __init__(
        self,
        eng: Engine,
        closers: tuple[str, ...] = (),
        *,
        optional_close: bool = False,
        fenced: bool = False,
        ends: tuple[str, ...] | None = None,
        stops: tuple[str, ...] = (),
    ) -> None:
        self.closers = closers
        self.ends = closers if ends is None else ends
        self.stops = stops
        self.optional_close = optional_close
        self.fenced = fenced
        self.reader = JsonReader()
        if lenient_on(eng):
            sink = LenientArgsSink(eng, self.reader)
            if sink.needed():  # (the name came with the header: its tool's arguments are known now)
                self.reader.sink = sink
                self.reader.watch = 1
        self.held: list[str] | None = None  # the text of a non-object value, read whole
        self.phase = 0
        if fenced:
            eng.add_repairs([JSON_FENCE])

    def arm(self, eng: Engine) -> tuple[re.Pattern[str], bool] | None:
        reader = self.reader
        if self.held is not None:
            return None  # a non-object value is read whole: no fast path streams it
        if self.phase or reader.state != STRING or reader.out or reader.quote != '"':
            return None
        if reader.is_key and reader.sink is not None:
            return None  # lenient typing reads the keys: they go through the reader
        return DQ_RUN, False

    def step(self, eng: Engine, final: bool) -> bool:
        if self.phase == 0:
            reader = self.reader
            start = eng.pos
            first = self.held is None and start < len(eng.buf) and reader.depth == 0 and not reader.out
            if first and reader.state == 0 and eng.buf[start] != "{":
                if eng.buf[start] not in _NON_OBJECT_START:
                    if eng.call is not None:
                        eng.call.reject, eng.call.detail = Reason.MALFORMED, "arguments are not a JSON object"
                    self.phase = 2
                    return True
                self.held = []
            eng.pos = end = reader.feed(eng.buf, start, final)
            if self.held is None:
                _stream_args(eng, reader.drain(), start, end)
            else:
                self.held.append(reader.drain())
                if reader.done and not reader.failed:
                    args_value(eng, "".join(self.held))
            if reader.failed:
                if eng.call is not None:
                    eng.call.reject, eng.call.detail = Reason.MALFORMED, f"invalid JSON: {reader.error}"
                self.phase = 2
                return True
            if reader.done:
                eng.add_repairs(reader.repairs)
                self.phase = 1
                return True
            return False
        if self.phase == 1:
            return self._close(eng, final)
        return self._recover(eng, final)
