"""What the engine runs: :class:`State` (one mode of the scanner), :class:`ScanState` (visible text or
reasoning: content up to the next marker) and :class:`MarkerTable` (a scope's markers and their handlers).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..events import Event, reasoning_delta, text_delta
from .scanner import MarkerSet, marker_set, split_ns

if TYPE_CHECKING:
    from .engine import Engine

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
        self.handlers = {k: tuple(v) for k, v in handlers.items()}
        self.ns_handlers = {k: tuple(v) for k, v in (ns_handlers or {}).items()}
        self.markers: MarkerSet = marker_set(frozenset(self.handlers), frozenset(self.ns_handlers))

    def lookup(self, tok: str) -> tuple[Handler, ...]:
        hs = self.handlers.get(tok)
        if hs is not None:
            return hs
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
            eng.orphan_window = False
            return [reasoning_delta(text)]
        if not eng.seen_output and not text.isspace():
            eng.seen_output = True
        eng.released += len(text)
        return [text_delta(text)]

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
        if tok is None:  # only a possible prefix of a marker: hold it (visible at the end, end-of-stream rule)
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
