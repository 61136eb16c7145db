"""The streaming engine: one push-based scanner that every format plugs into.

The engine owns a small buffer (the held tail plus the new chunk), a stack of states and the life cycle
of candidate calls. A state consumes from ``buf[pos:]``; it returns True when it made progress and False
when it needs more input. Scanning states use one compiled :class:`~streamparse.scanner.MarkerSet` per
scope, so finding the next marker is one ``re`` search regardless of how many formats are active; what a
marker means is decided by its handlers, tried in order (a shared opener such as ``<tool_call>`` has one
handler per format, each checking its continuation, FORMATS.md §3).

After each ``feed`` the consumed text is dropped; only the held tail (a possible marker prefix, or a
token a state cannot decide yet) and a few characters of context (for line-start and word-boundary
checks) are kept, so work is O(input) and memory is O(longest open call).
"""

from __future__ import annotations

import codecs
import json
import logging
import re
from collections.abc import Callable
from json.encoder import encode_basestring  # the C string escaper json.dumps uses
from typing import TYPE_CHECKING, Any

from .errors import ParserClosedError
from .events import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
)
from .jsonstream import NEEDS_ESCAPE as _NEEDS_ESCAPE
from .rejections import Reason
from .scanner import MarkerSet

if TYPE_CHECKING:
    from .config import Config

log = logging.getLogger("streamparse")

CTX = 8  # characters of already-consumed context kept before ``pos``

# A handler decides what a found marker means: True = handled (pos advanced / state changed),
# False = not this handler, None = cannot decide before more input arrives (hold from the marker).
Handler = Callable[["Engine", int, int, bool], "bool | None"]


class MarkerTable:
    """A scope's markers, compiled once, with the handlers for each marker."""

    __slots__ = ("markers", "handlers", "ns_handlers")

    def __init__(
        self,
        handlers: dict[str, list[Handler]],
        ns_handlers: dict[str, list[Handler]] | None = None,
    ) -> None:
        from .scanner import marker_set

        self.handlers = {k: tuple(v) for k, v in handlers.items()}
        self.ns_handlers = {k: tuple(v) for k, v in (ns_handlers or {}).items()}
        self.markers: MarkerSet = marker_set(frozenset(self.handlers), frozenset(self.ns_handlers))

    def lookup(self, tok: str) -> tuple[Handler, ...]:
        hs = self.handlers.get(tok)
        if hs is not None:
            return hs
        from .scanner import split_ns

        parts = split_ns(tok)
        if parts is not None:
            return self.ns_handlers.get(parts[1], ())
        return ()


class State:
    """One mode of the scanner. ``step`` consumes from ``eng.buf[eng.pos:]``."""

    __slots__ = ()
    reasoning = False  # where plain content of this state goes

    def step(self, eng: Engine, final: bool) -> bool:
        raise NotImplementedError

    def at_close(self, eng: Engine) -> None:
        """End of stream while this state is open (after the buffer was drained as far as possible)."""

    def arm(self, eng: Engine) -> tuple[re.Pattern[str], bool] | None:
        """After a step with an open call: (pattern, escape). A full match of the pattern on the next chunk
        means the chunk is plain content of an argument string that can be streamed at once, verbatim or
        (escape) JSON-escaped: the engine's armed fast path."""
        return None

    def fast(self, eng: Engine, text: str) -> list[Event] | None:
        """Consume a whole chunk when nothing is held and the chunk cannot change state; else None.

        The engine then keeps only context; a state with an open call records the chunk as raw text.
        """
        return None


class ScanState(State):
    """Visible text or reasoning: content is emitted up to the next marker, whose handlers decide."""

    __slots__ = ("table", "reasoning", "_any_marker")

    def __init__(self, table: MarkerTable, reasoning: bool = False) -> None:
        self.table = table
        self.reasoning = reasoning
        self._any_marker = table.markers.raw_search

    def fast(self, eng: Engine, text: str) -> list[Event] | None:
        if self._any_marker(text) is not None:
            return None
        if self.reasoning:
            eng.reasoning_seen = True
            return [ReasoningDelta(text)]
        if not eng.seen_output and not text.isspace():
            eng.seen_output = True
        return [TextDelta(text)]

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        found = self.table.markers.search(buf, pos)
        if found is None:
            if pos < len(buf):
                eng.content(self.reasoning, buf[pos:])
                eng.pos = len(buf)
            return False
        s, e, tok = found
        if s > pos:
            eng.content(self.reasoning, buf[pos:s])
            eng.pos = s
        if tok is not None and e == len(buf) and not final and tok in self.table.markers.extendable:
            eng.note_hold(len(buf) - s)  # a complete marker that may still grow into a longer one
            return False
        if tok is None:  # only a possible prefix of a marker: hold it (visible at the end, R9)
            if final:
                eng.content(self.reasoning, buf[s:])
                eng.pos = len(buf)
            return False
        for handler in self.table.lookup(tok):
            res = handler(eng, s, e, final)
            if res is None:
                if final:
                    continue
                eng.note_hold(len(buf) - s)
                return False
            if res:
                return True
        # Nobody took it: its first character is plain content; scanning resumes right after it.
        eng.content(self.reasoning, buf[s : s + 1])
        eng.pos = s + 1
        return True


class Candidate:
    """A call being read: its identity, arguments so far and the markup it came from."""

    __slots__ = (
        "format",
        "index",
        "id",
        "name",
        "args",
        "pending",
        "has_args",
        "started",
        "reject",
        "detail",
        "raw_parts",
        "raw_mark",
        "raw_len",
        "repairs",
        "fallback",
        "closed",
        "gate",
    )

    def __init__(self, fmt: str, raw_mark: int, fallback: bool) -> None:
        self.format = fmt
        self.index: int | None = None
        self.id: str | None = None
        self.name: str | None = None
        self.args: list[str] = []
        self.pending: list[str] = []
        self.has_args = False
        self.started = False
        self.reject: str | None = None
        self.detail = ""
        self.raw_parts: list[str] = []
        self.raw_mark = raw_mark
        self.raw_len = 0
        self.repairs: list[str] = []
        self.fallback = fallback
        self.closed = False  # a rejection was already emitted (too_large): swallow the rest silently
        self.gate: Any = None  # gates.Gate when seed 003's gates apply to this call


class Engine:
    """Runtime state of one stream. Built by :class:`streamparse.StreamParser`."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.reset()

    def reset(self) -> None:
        cfg = self.cfg
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.closed = False
        self.buf = "\n"  # virtual line start before the output
        self.pos = 1
        self.events: list[Event] = []
        self.stack: list[State] = []
        self.state: State = cfg.initial_state(self)
        self.call: Candidate | None = None
        self.next_index = 0
        self.accepted = 0
        self.seen_output = False  # visible non-space text or a call was emitted (R4, R10 start rules)
        self.reasoning_seen = False
        self.last_reasoning_nl = True
        self.stats = cfg.new_stats()
        self.largest_hold = 0
        self.limit = cfg.max_call_chars
        self.text_search: Callable[[str], object] | None = None
        self.hot: re.Pattern[str] | None = None
        self.hot_escape = False
        self.bytes_in = 0
        self.chars_in = 0
        self.gate: Any = None  # gates.Gate in force while an unmarked format's start state runs
        self.gatebook: Any = None  # gates.GateBook once a gated fallback was opened (settled at close)
        self.metadata: dict[str, Any] = {}  # stream-level facts such as the envelope's needsMoreWork
        cfg.start(self)
        self._arm_text()

    # -- driving -------------------------------------------------------------------------------------

    def _input(self, chunk: object) -> str:
        if self.closed:
            raise ParserClosedError("feed() after close(): call reset() to parse a new stream")
        if isinstance(chunk, str):
            return chunk
        if isinstance(chunk, (bytes, bytearray, memoryview)):
            self.bytes_in += len(chunk)
            return self.decoder.decode(bytes(chunk))
        raise TypeError(f"feed() takes str or bytes, not {type(chunk).__name__}")

    def feed(self, chunk: object) -> list[Event]:
        text: str = chunk if type(chunk) is str and not self.closed else self._input(chunk)
        self.chars_in += len(text)
        limit = self.limit
        if limit is not None and text and not self._fits(text):
            return self._feed_limited(text, limit)
        if self.pos == len(self.buf) and text:  # nothing is held: a fast path may take the whole chunk
            text_search = self.text_search
            if text_search is not None:
                # Visible text with no marker (or marker prefix) anywhere in the chunk: the commonest case.
                if text_search(text) is None:
                    buf = self.buf + text
                    self.buf = buf[-CTX:]
                    self.pos = len(self.buf)
                    if not self.seen_output and not text.isspace():
                        self.seen_output = True
                    return [TextDelta(text)]
            else:
                hot = self.hot
                # Armed: an open call is streaming an argument string and this chunk is plain content.
                if hot is not None and hot.fullmatch(text) is not None:
                    call = self.call
                    if call is not None and (limit is None or call.raw_len + len(text) <= limit):
                        call.raw_parts.append(text)
                        call.raw_len += len(text)
                        args = text
                        if self.hot_escape and _NEEDS_ESCAPE.search(text) is not None:
                            args = encode_basestring(text)[1:-1]
                        call.args.append(args)
                        # The chunk is consumed whole; the buffer (context for line-start and word-boundary
                        # checks) is left as is: nothing looks behind into a string value.
                        return [ToolCallDelta(call.index, args)]  # type: ignore[arg-type]
                fast = self.state.fast(self, text)
                if fast is not None:
                    buf = self.buf + text
                    self.buf = buf[-CTX:]
                    self.pos = len(self.buf)
                    call = self.call
                    if call is not None:
                        call.raw_mark = self.pos
                    return fast
        self.events = []
        self.buf += text
        self._run(False)
        self._trim()
        return self.events

    def _fits(self, text: str) -> bool:
        """True when ``text`` cannot take the open call (or one beginning in it) past ``max_call_chars``."""
        limit = self.cfg.max_call_chars
        assert limit is not None
        call = self.call
        if call is not None and not call.closed:
            return call.raw_len + (len(self.buf) - call.raw_mark) + len(text) <= limit
        return (len(self.buf) - self.pos) + len(text) <= limit

    def _feed_limited(self, text: str, limit: int) -> list[Event]:
        """Feed in pieces so that an open call sees exactly ``limit`` characters of its markup, then is
        rejected too_large the moment more input arrives: the verdict, its raw text and the deltas before
        it do not depend on the chunking, and nothing past the limit is buffered (FORMATS.md, API.md)."""
        self.events = []
        i, n = 0, len(text)
        while i < n:
            call = self.call
            if call is not None and not call.closed:
                room = limit - call.raw_len - (len(self.buf) - call.raw_mark)
                if room <= 0:
                    self.reject_too_large()
                    continue
            else:
                # A call beginning in this piece starts at or after ``pos``: it sees at most ``limit`` chars.
                room = max(1, limit - (len(self.buf) - self.pos))
            self.buf += text[i : i + room]
            i += room
            self._run(False)
            self._trim()
        return self.events

    def close(self) -> list[Event]:
        if self.closed:
            raise ParserClosedError("close() was already called: call reset() to parse a new stream")
        tail = self.decoder.decode(b"", final=True)
        head = self.feed(tail) if tail else []
        self.closed = True
        self.events = head
        self._run(True)
        # States still open at the end of the stream, innermost first.
        while True:
            state = self.state
            state.at_close(self)
            if not self.stack:
                break
            self.state = self.stack.pop()
        if self.call is not None:
            self.truncate_call()
        if self.gatebook is not None:
            self.gatebook.settle(self)
        if self.pos < len(self.buf):
            self.content(self.state.reasoning, self.buf[self.pos :])
            self.pos = len(self.buf)
        return self.events

    def _run(self, final: bool) -> None:
        self.hot = None
        self.text_search = None
        while self.state.step(self, final):
            pass
        call = self.call
        if call is not None and call.pending and call.started:
            self._flush_deltas(call)
        if call is not None and call.started and not call.closed and not final:
            armed = self.state.arm(self)
            if armed is not None:
                self.hot, self.hot_escape = armed
        self._arm_text()

    def _arm_text(self) -> None:
        """The visible-text fast path is open when the scanner rests in a plain text scope."""
        state = self.state
        if type(state) is ScanState and not state.reasoning and self.call is None:
            self.text_search = state._any_marker

    def _trim(self) -> None:
        """Drop consumed text, keeping CTX characters of context; move an open call's raw text aside."""
        pos = self.pos
        call = self.call
        if call is not None and not call.closed:
            if pos > call.raw_mark:
                piece = self.buf[call.raw_mark : pos]
                call.raw_parts.append(piece)
                call.raw_len += len(piece)
                call.raw_mark = pos  # (the buffer is not cut below when pos <= CTX)
            limit = self.cfg.max_call_chars
            if limit is not None and call.raw_len > limit:
                self.reject_too_large()
        if pos > CTX:
            self.buf = self.buf[pos - CTX :]
            self.pos = CTX
            if call is not None:
                call.raw_mark = CTX
        held = len(self.buf) - self.pos
        if held > self.largest_hold:
            self.largest_hold = held
            self.stats.largest_holdback = held

    def note_hold(self, n: int) -> None:
        if n > self.largest_hold:
            self.largest_hold = n
            self.stats.largest_holdback = n

    def push(self, state: State) -> None:
        self.stack.append(self.state)
        self.state = state

    def pop(self) -> None:
        self.state = self.stack.pop() if self.stack else self.cfg.initial_state(self)

    # -- content -------------------------------------------------------------------------------------

    def content(self, reasoning: bool, text: str) -> None:
        if reasoning:
            self.reason(text)
        else:
            self.text(text)

    def text(self, text: str) -> None:
        if text:
            if not self.seen_output and not text.isspace():
                self.seen_output = True
            self.events.append(TextDelta(text))

    def reason(self, text: str) -> None:
        if text:
            self.reasoning_seen = True
            self.events.append(ReasoningDelta(text))

    def begin_reasoning_segment(self) -> None:
        """R10: reasoning segments are joined with a newline."""
        if self.reasoning_seen:
            self.events.append(ReasoningDelta("\n"))

    def line_start(self, s: int) -> bool:
        """True when only up to three spaces stand between ``s`` and the previous newline (or output start)."""
        buf = self.buf
        i = s - 1
        spaces = 0
        while i >= 0 and buf[i] == " " and spaces < 4:
            i -= 1
            spaces += 1
        return spaces <= 3 and (i < 0 or buf[i] == "\n")

    # -- calls ---------------------------------------------------------------------------------------

    def begin_call(self, fmt: str, raw_start: int, fallback: bool = False) -> Candidate:
        if self.call is not None:  # defensive: a state forgot to finish its call
            self.fail_call(Reason.MALFORMED, "a new call began before the previous one ended", raw_start)
        cand = Candidate(fmt, raw_start, fallback)
        if self.gate is not None:
            self.gate.begin(cand)
        self.call = cand
        return cand

    def set_name(self, name: str, call_id: str | None = None) -> None:
        cand = self.call
        if cand is None or cand.name is not None:
            return
        cand.name = name
        if call_id:
            cand.id = call_id
        if not name:
            cand.reject, cand.detail = Reason.MALFORMED, "empty tool name"
            return
        tools = self.cfg.tools
        if tools is not None and name not in tools:
            cand.reject, cand.detail = Reason.UNKNOWN_TOOL, f"{name!r} is not a declared tool"
            return
        if cand.closed:
            return
        cand.index = self.next_index
        self.next_index += 1
        if cand.id is None:
            cand.id = f"{self.cfg.id_prefix}{cand.index}"
        cand.started = True
        self.events.append(ToolCallStart(cand.index, cand.id, name))

    def args(self, text: str) -> None:
        cand = self.call
        if cand is None or not text:
            return
        cand.has_args = True
        if cand.closed:
            return
        cand.args.append(text)
        cand.pending.append(text)

    def fast_args(self, text: str, args: str) -> list[Event] | None:
        """Fast path of a state streaming a whole chunk ``text`` as argument text ``args``."""
        cand = self.call
        if cand is None or not cand.started or cand.closed or cand.pending:
            return None
        limit = self.cfg.max_call_chars
        if limit is not None and cand.raw_len + len(text) > limit:
            return None
        if self.pos > cand.raw_mark:
            return None
        cand.raw_parts.append(text)
        cand.raw_len += len(text)
        cand.args.append(args)
        cand.has_args = True
        return [ToolCallDelta(cand.index, args)]  # type: ignore[arg-type]

    def add_repairs(self, repairs: list[str]) -> None:
        cand = self.call
        if cand is not None:
            for r in repairs:
                if r not in cand.repairs:
                    cand.repairs.append(r)

    def _flush_deltas(self, cand: Candidate) -> None:
        pending = cand.pending
        text = pending[0] if len(pending) == 1 else "".join(pending)
        pending.clear()
        if text and cand.index is not None:
            self.events.append(ToolCallDelta(cand.index, text))

    def _raw(self, cand: Candidate, end: int) -> str:
        if cand.closed:
            return ""
        if end > cand.raw_mark:
            cand.raw_parts.append(self.buf[cand.raw_mark : end])
            cand.raw_mark = end
        return "".join(cand.raw_parts)

    def end_call(self, end: int) -> None:
        """The call's closing delimiter ends at ``end``: finish, validate, emit End or Rejected."""
        cand = self.call
        if cand is None:
            return
        if cand.closed:
            self.call = None
            return
        raw = self._raw(cand, end)
        self.call = None
        if cand.reject is not None:
            self._reject(cand, cand.reject, cand.detail, raw)
            return
        if cand.name is None:
            self._reject(cand, Reason.MALFORMED, "no tool name", raw)
            return
        if not cand.has_args:
            cand.args.append("{}")
            cand.pending.append("{}")
        if cand.pending:
            self._flush_deltas(cand)
        args_json = cand.args[0] if len(cand.args) == 1 else "".join(cand.args)
        try:
            args = json.loads(args_json)
        except (ValueError, RecursionError) as exc:
            self._reject(cand, Reason.MALFORMED, f"arguments are not valid JSON: {exc}", raw)
            return
        if not isinstance(args, dict):
            self._reject(cand, Reason.MALFORMED, "arguments are not a JSON object", raw)
            return
        validation = "skipped"
        tools = self.cfg.tools
        if tools is not None:
            problem = tools.validate(cand.name, args)
            if problem is not None:
                self._reject(cand, Reason.SCHEMA_VIOLATION, problem, raw)
                return
            validation = "pass"
        assert cand.index is not None and cand.id is not None
        call = ToolCall(
            id=cand.id,
            name=cand.name,
            arguments=args,
            arguments_json=args_json,
            format=cand.format,
            raw=raw,
            fallback_used=cand.fallback,
            repairs=list(cand.repairs),
            validation=validation,  # type: ignore[arg-type]
        )
        if cand.gate is not None and cand.gate.defer(self, cand, call):
            return  # seed 003's gates decide at close
        self.accept(cand, call)

    def accept(self, cand: Candidate, call: ToolCall) -> None:
        assert cand.index is not None
        self.accepted += 1
        self.seen_output = True
        self.stats.record_call(cand.format, cand.repairs, cand.fallback)
        log.debug(  # seed 003's telemetry fields, one line per decision
            "call %s accepted: format=%s fallback_used=%s repairs=%s validation=%s",
            cand.name, cand.format, cand.fallback, cand.repairs, call.validation,
        )
        self.events.append(ToolCallEnd(cand.index, call))

    def fail_call(self, reason: str, detail: str, end: int) -> None:
        """Reject the open call; its markup up to ``end`` is the rejection's raw text."""
        cand = self.call
        if cand is None:
            return
        self.call = None
        if cand.closed:
            return
        raw = self._raw(cand, end)
        if cand.reject is not None:
            reason, detail = cand.reject, cand.detail  # an earlier, more specific verdict stands
        self._reject(cand, reason, detail, raw)

    def truncate_call(self) -> None:
        self.fail_call(Reason.TRUNCATED, "the stream ended inside the call", len(self.buf))

    def reject_too_large(self) -> None:
        cand = self.call
        if cand is None or cand.closed:
            return
        if self.pos > cand.raw_mark:  # consumed but not yet moved to raw_parts
            cand.raw_parts.append(self.buf[cand.raw_mark : self.pos])
            cand.raw_mark = self.pos
        # The call's markup so far, including the part a state still holds undecided.
        raw = "".join(cand.raw_parts) + self.buf[cand.raw_mark :]
        limit = self.cfg.max_call_chars
        if cand.reject is not None:  # an earlier, more specific verdict stands (as in fail_call)
            self._reject(cand, cand.reject, cand.detail, raw)
        else:
            self._reject(cand, Reason.TOO_LARGE, f"the call grew past max_call_chars={limit}", raw)
        cand.closed = True
        cand.raw_parts = []
        cand.args = []
        cand.pending = []

    def _reject(self, cand: Candidate, reason: str, detail: str, raw: str) -> None:
        if cand.started and cand.pending:
            self._flush_deltas(cand)  # what streamed so far, whatever the chunking (invariant 1)
        if cand.index is None:
            cand.index = self.next_index
            self.next_index += 1
        self.stats.record_rejection(str(reason), cand.format)
        log.debug(
            "call %r rejected: reason=%s format=%s fallback_used=%s detail=%s",
            cand.name, str(reason), cand.format, cand.fallback, detail,
        )
        self.events.append(
            ToolCallRejected(cand.index, str(reason), raw, cand.name, detail, cand.format)
        )
