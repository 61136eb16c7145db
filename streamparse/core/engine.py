"""The streaming engine: one push-based scanner that every format plugs into.

The engine owns a small buffer (the held tail plus the new chunk), a stack of states and the life cycle
of candidate calls. A state consumes from ``buf[pos:]``; it returns True when it made progress and False
when it needs more input. Scanning states use one compiled :class:`~streamparse.scanner.MarkerSet` per
scope, so finding the next marker is one ``re`` search regardless of how many formats are active; what a
marker means is decided by its handlers, tried in order (a shared opener such as ``<tool_call>`` has one
handler per format, each checking its continuation, docs/FORMATS.md, auto-detection).

After each ``feed`` the consumed text is dropped; only the held tail (a possible marker prefix, or a
token a state cannot decide yet) and a few characters of context (for line-start and word-boundary
checks) are kept, so work is O(input) and memory is O(longest open call).
"""

from __future__ import annotations

import codecs
import logging
import re
from collections.abc import Callable
from json.encoder import encode_basestring  # the C string escaper json.dumps uses
from typing import Any, Final, Protocol

from ..errors import ParserClosedError
from ..events import Event, ReasoningDelta, TextDelta, ToolCallDelta
from ..stats import ParserStats
from .calls import CallGate, CallSettings, Candidate

# Events of the fast paths are built in place (the slots set directly, as the constructors do).
from .constructors import _new, _set_arguments, _set_index, _set_text, reasoning_delta, text_delta, tool_call_delta
from .fastpaths import CTX, FastPaths, Search
from .json_reader import DQ_RUN
from .json_reader import NEEDS_ESCAPE as _NEEDS_ESCAPE
from .marker_table import Handler, MarkerTable

__all__ = ["Engine", "EngineConfig", "Handler", "MarkerTable", "ScanState", "State"]
from .output import SEP_WS, TextRelease
from .parts import FAN

log: Final = logging.getLogger("streamparse")


_DQ_FULL: Final = DQ_RUN.fullmatch


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

    def plain_text(self, eng: Engine) -> Search | None:
        """After a step with no call open: a search that finds nothing in a chunk that is plain visible text
        of this state as it stands (the engine then releases the chunk as text without a step), else None."""
        return None

    def fast(self, eng: Engine, text: str) -> list[Event] | None:
        """Consume a whole chunk when nothing is held and the chunk cannot change state; else None.

        The engine then keeps only context; a state with an open call records the chunk as raw text.
        """
        return None


class ScanState(State):
    """Visible text or reasoning: content is emitted up to the next marker, whose handlers decide."""

    __slots__ = ("table", "reasoning", "_any_marker", "late_search")

    def __init__(self, table: MarkerTable, reasoning: bool = False) -> None:
        self.table = table
        self.reasoning = reasoning
        self._any_marker = table.markers.raw_search
        self.late_search = table.late.raw_search  # once the output began (START markers left out)

    def fast(self, eng: Engine, text: str) -> list[Event] | None:
        if self._any_marker(text) is not None:
            return None
        sep = eng.sep
        if sep is not None:
            text = sep.reason(text) if self.reasoning else sep.text(text)
            if not text:
                return []
        if self.reasoning:
            eng.reasoning_seen = True
            eng.orphan_window = False
            return [reasoning_delta(text)]
        if not eng.seen_output and not text.isspace():
            eng.output_began()
        eng.released += len(text)
        return [text_delta(text)]

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        late = self.table.late
        markers = late if eng.seen_output else self.table.markers
        found = markers.search(buf, pos)
        if markers is not late and found is not None and found[0] > pos and not self.reasoning:
            s, e = found[0], found[1]
            if any(m.startswith(buf[s:e]) for m in self.table.early) and not buf[pos:s].isspace():
                # The output begins with the text before it: a marker that counts only before that is text.
                markers = late
                found = markers.search(buf, pos)
        if found is None:
            if pos < len(buf):
                eng.content(self.reasoning, buf[pos:])
                eng.pos = len(buf)
            return False
        s, e, tok = found
        if s > pos:
            eng.content(self.reasoning, buf[pos:s])
            eng.pos = s
        if tok is not None and e == len(buf) and not final and tok in markers.extendable:
            eng.note_hold(len(buf) - s)  # a complete marker that may still grow into a longer one
            return False
        if tok is None:  # only a possible prefix of a marker: hold it (visible at the end, end-of-stream rule)
            if final:
                eng.content(self.reasoning, buf[s:])
                eng.pos = len(buf)
            elif markers is (late if eng.seen_output else self.table.markers):  # (what the next step searches)
                eng.wait_for(markers, s)
            return False
        sep = eng.sep
        for handler in self.table.lookup(tok):
            emitted = len(eng.events)
            res = handler(eng, s, e, final)
            if res is None:
                if final:
                    continue
                eng.note_hold(len(buf) - s)
                return False
            if res:
                # Markup taken between text scopes (a candidate call that may still turn out to be text
                # is not: a call's markup counts at begin_call): its surrounding whitespace is a separator.
                # A transparent handler's token only disappears (no separators around it).
                if (
                    sep is not None
                    and type(eng.state) is ScanState
                    and not getattr(handler, "transparent", False)
                    and not _has_content(eng.events, emitted)
                ):
                    sep.markup()
                return True
        # Nobody took it: its first character is plain content; scanning resumes right after it.
        eng.content(self.reasoning, buf[s : s + 1])
        eng.pos = s + 1
        return True


def _has_content(events: list[Event], start: int) -> bool:
    """A handler emitted content (its marker was text: a code fence, a backtick run), not markup."""
    return any(type(ev) is TextDelta or type(ev) is ReasoningDelta for ev in events[start:])


class EngineConfig(CallSettings, Protocol):
    """What the engine reads from a configuration (``streamparse.config.Config`` implements it).

    The engine knows no format and no scope: the configuration builds the root scope a stream returns to
    and pushes the scopes a stream begins in.
    """

    @property
    def format_set(self) -> frozenset[str]:
        """Names of the active formats (handlers shared by formats check which of them are on)."""

    def initial_state(self, eng: Engine) -> State: ...

    def start(self, eng: Engine) -> None: ...

    def new_stats(self) -> ParserStats: ...

    def new_release(self) -> TextRelease | None:
        """The exact-output policy of a new stream; None keeps separator whitespace as content."""


class GateBook(Protocol):
    """Verdicts held until the end of the stream (the gated fallback's single-candidate rule)."""

    def settle(self, eng: Engine) -> None: ...


class Engine(FastPaths):
    """Runtime state of one stream. Built by :class:`streamparse.StreamParser`. Its parts are a chain of single
    bases (TextOutput, CallLifecycle, FastPaths), which mypyc compiles (scripts/compile.py)."""

    def __init__(self, cfg: EngineConfig) -> None:
        self.cfg = cfg
        self.reset()

    def reset(self) -> None:
        cfg = self.cfg
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.closed = False
        self.buf = "\n"  # virtual line start before the output
        self.pos = 1
        self.events = []
        self.stack: list[State] = []
        self.state = cfg.initial_state(self)
        self.call: Candidate | None = None
        self.started_calls: list[Candidate] = []
        self.next_index = 0
        self.accepted = 0
        self.seen_output = (
            False  # visible non-space text or a call was emitted (start rule, reasoning rule start rules)
        )
        self.reasoning_seen = False
        # Orphan-closer window (reasoning rule): while no reasoning and no call was seen, an orphan
        # ``</think>`` turns the visible text released so far (``released`` characters) into reasoning.
        self.orphan_window = True
        self.released = 0
        self.last_reasoning_nl = True
        self.stats = cfg.new_stats()
        self.largest_hold = 0
        self.limit = cfg.max_call_chars
        self.text_search: Search | None = None
        self.held_scan: Search | None = None  # a prefix is held: _text_tail
        self.scan_text: Search | None = None
        self.hot: re.Pattern[str] | None = None
        self.hot_escape = False
        # While a JSON string streams with nothing held and no limit: the search for a character that needs
        # the reader (quote, backslash, control); a chunk without one is taken inline by feed().
        self.hot_special: Callable[[str], object] | None = None
        # The armed JSON string path held a lone backslash (an escape split across chunks) at ``buf[pos]``.
        self.hot_bs = False
        self.wait = None  # a closer's prefix is held: FastPaths.wait_for
        self.bytes_in = 0
        self.chars_in = 0
        self.gate: CallGate | None = None  # in force while an unmarked format's start state runs
        self.gatebook: GateBook | None = None  # once a gated fallback was opened (settled at close)
        self.metadata: dict[str, Any] = {}  # stream-level facts such as the envelope's needsMoreWork
        self.end_reason: str | None = None  # why the stream ended, as close() was told (None: not told)
        self.sep = cfg.new_release()
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
        # The two commonest chunks, inlined; each path is open only while nothing is held, no
        # max_call_chars applies and the parser is not closed (see _arm_inline, _arm_text).
        declined = False
        if type(chunk) is str and chunk:
            hot_special = self.hot_special
            if hot_special is not None:
                if hot_special(chunk) is None or _DQ_FULL(chunk) is not None:
                    # No quote, backslash or control character, or only complete escapes (a code line's
                    # ``\"`` or ``\n``): plain content of the argument string streaming, verbatim argument
                    # text. (A final lone backslash is the general path's: ``_hot`` holds it.)
                    n = len(chunk)
                    self.chars_in += n
                    hot_call: Candidate = self.call  # type: ignore[assignment]
                    raw = hot_call.raw_parts
                    if raw.run < 0 or raw.run_escaped:
                        raw.share()  # the markup is this text from here on: kept once, in the arguments
                    args = hot_call.args
                    if args.tap is None:
                        args.size += n
                        tail = args.tail
                        tail.append(chunk)
                        if len(tail) >= FAN:
                            args._carry()
                    else:
                        args.append(chunk)
                    hot_call.raw_len += n
                    event = _new(ToolCallDelta)
                    _set_index(event, hot_call.index)
                    _set_arguments(event, chunk)
                    return [event]
                declined = chunk[-1] != "\\"  # (the armed path's own test failed: _hot would decline it too)
            else:
                text_search = self.text_search
                if text_search is not None:
                    found = text_search(chunk)
                    if found is None:
                        # Visible text with no marker (or marker prefix) anywhere in the chunk.
                        n = len(chunk)
                        self.chars_in += n
                        self.buf = (self.buf + chunk)[-CTX:] if n < CTX else chunk[-CTX:]
                        self.pos = len(self.buf)
                        sep = self.sep
                        if sep is not None and not (sep.idle and chunk[-1] not in SEP_WS):
                            return self.release_text(chunk)  # separator whitespace may be held (exact output)
                        if not self.seen_output and not chunk.isspace():
                            self.output_began()
                        self.released += n
                        text_event: TextDelta = _new(TextDelta)
                        _set_text(text_event, chunk)
                        return [text_event]
                    # A marker prefix at the very end: held (FastPaths._text_end).
                    fast: list[Event] | None = (
                        self._text_end(chunk, found.start()) if found.end() == len(chunk) else None
                    )
                else:  # the chunk after such a prefix, scanned with it
                    fast = self._text_after_hold(chunk) if self.held_scan is not None else None
                if fast is not None:
                    self.chars_in += len(chunk)
                    return fast
        # The general path (a plain function body: no second call per chunk).
        text: str = chunk if type(chunk) is str and not self.closed else self._input(chunk)
        n = len(text)
        self.chars_in += n
        limit = self.limit
        if limit is not None and n and not self._fits(text):
            return self._feed_limited(text, limit)
        if n:
            if self.wait is not None and self._still_waiting(text):
                return []
            hot = self.hot
            if hot is not None and not declined:
                # Armed: an open call streams an argument string (a split escape's "\" may be held).
                call = self.call
                if self.hot_escape and limit is None and call is not None and self.pos == len(self.buf):
                    if hot.fullmatch(text) is not None:  # a tag value's text: JSON-escaped, markup shared
                        value = encode_basestring(text)[1:-1] if _NEEDS_ESCAPE.search(text) is not None else text
                        raw = call.raw_parts
                        if raw.run < 0 or not raw.run_escaped:
                            raw.share(True)
                        call.args.append(value)
                        call.raw_len += n
                        return [tool_call_delta(call.index, value)]  # type: ignore[arg-type]
                else:
                    fast = self._hot(hot, text, limit)
                    if fast is not None:
                        return fast
            if not self.hot_bs and self.pos == len(self.buf):  # nothing is held
                scan = self.scan_text
                if scan is not None:
                    if scan(text, 0) is None:  # visible text with no marker (or marker prefix) in the chunk
                        self.buf = (self.buf + text)[-CTX:] if n < CTX else text[-CTX:]
                        self.pos = len(self.buf)
                        return self.release_text(text)
                elif type(self.state).fast is not State.fast:  # (a state that can take a whole chunk)
                    whole: State = self.state
                    fast = whole.fast(self, text)
                    if fast is not None:
                        self.buf = (self.buf + text)[-CTX:] if n < CTX else text[-CTX:]
                        self.pos = len(self.buf)
                        call = self.call
                        if call is not None:
                            call.raw_mark = self.pos
                        return fast
        self.hot_bs = False
        self.events = []
        self.buf += text
        self._run(False)
        self._trim()
        if self.hot is DQ_RUN:
            self._arm_inline()
        return self.events

    def close(self, reason: str | None = None) -> list[Event]:
        if self.closed:
            raise ParserClosedError("close() was already called: call reset() to parse a new stream")
        self.end_reason = reason
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
        self.text_search = self.held_scan = self.hot = self.hot_special = None  # feed() after close() raises
        return self.events

    def _run(self, final: bool) -> None:
        self.hot = None
        self.hot_special = None
        self.text_search = self.held_scan = self.wait = None
        # (``state`` is typed here, where State is defined, so the compiled build dispatches ``step`` natively)
        state: State = self.state
        while state.step(self, final):
            self.wait = None  # (only the step that stops may wait: FastPaths.wait_for)
            state = self.state
        call = self.call
        if call is not None and call.pending and call.started:
            self._flush_deltas(call)
        if call is not None and call.started and not call.closed and not final:
            armed = self.state.arm(self)
            if armed is not None:
                self.hot, self.hot_escape = armed
                buf = self.buf
                if armed[0] is DQ_RUN and self.pos == len(buf) - 1 and buf[-1] == "\\":
                    self.hot_bs = True  # the state holds a split escape's backslash: the armed path takes it
        if call is None or self.call is None:
            self._arm_text()
        else:
            self.scan_text = None  # (what _arm_text gives while a call is open)

    def _arm_text(self) -> None:
        """The visible-text path is open when the scanner rests in a plain text scope (``scan_text``, the
        scope's marker search; inlined in ``feed`` when no limit applies and nothing is held), or in a state
        whose content is plain visible text for now (``State.plain_text``)."""
        state: State = self.state
        if self.call is not None:
            self.scan_text = None
        elif type(state) is ScanState:
            if state.reasoning:
                self.scan_text = None
                return
            scan = self.scan_text = state.late_search if self.seen_output else state._any_marker
            if self.limit is None and self.pos == len(self.buf):  # (else a marker prefix is held)
                self.text_search = scan
        else:
            self.scan_text = state.plain_text(self)

    def push(self, state: State) -> None:
        self.stack.append(self.state)
        self.state = state

    def pop(self) -> None:
        self.state = self.stack.pop() if self.stack else self.cfg.initial_state(self)
