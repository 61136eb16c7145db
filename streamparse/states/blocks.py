"""Sections holding several calls (``<function_calls>``, ``<｜tool▁calls▁begin｜>``, ...)."""

from __future__ import annotations

from ..core.engine import Engine, MarkerTable, State
from ..core.lookahead import LOOKAHEAD, after_ws
from ..rejections import Reason


class BlockState(State):
    """Between the calls of a section: whitespace is markup; the closer ends the section; anything else
    ends the section implicitly (section closers are optional, end-of-stream rule) and is scanned again as text.

    ``junk`` (a special-token section: format and closers): text before the section's first call is not
    prose but broken markup; it becomes a rejected candidate up to the closer (``malformed``) or the end
    of the stream (``truncated``), so none of it leaks into the visible text.

    ``noise`` (Kimi K2): stray text between the section's markers is dropped when the section's next marker
    follows within :data:`LOOKAHEAD` characters; otherwise the section ended and the text is visible."""

    __slots__ = ("table", "junk", "first_index", "in_junk", "noise")

    def __init__(
        self,
        table: MarkerTable,
        junk: tuple[str, tuple[str, ...]] | None = None,
        first: int = 0,
        noise: bool = False,
    ) -> None:
        self.table = table
        self.junk = junk
        self.first_index = first
        self.in_junk = False
        self.noise = noise

    def _noise(self, eng: Engine, j: int, final: bool) -> bool | None:
        """Text at ``j`` is noise (True: skipped to the next marker), not (False), or undecided (None)."""
        buf = eng.buf
        # Bounded: noise never scans the buffer. (Annotated: mypyc infers None from the attribute otherwise.)
        hit: tuple[int, int, str | None] | None = self.table.markers.search_near(buf, j, j + LOOKAHEAD)
        if hit is not None:
            if hit[2] is not None:
                eng.pos = hit[0]
                return True
            return None if not final else False  # a marker's prefix ends the buffer
        if hit is None and len(buf) - j < LOOKAHEAD and not final:
            return None
        return False

    def _junk(self, eng: Engine, j: int, final: bool) -> bool:
        assert self.junk is not None
        fmt, closers = self.junk
        buf = eng.buf
        if not self.in_junk:
            self.in_junk = True
            eng.begin_call(fmt, j)
            eng.pos = j
        pos = eng.pos
        cut = -1
        end = -1
        for closer in closers:
            i = buf.find(closer, pos)
            if i >= 0 and (cut < 0 or i < cut):
                cut, end = i, i + len(closer)
        if cut >= 0:
            eng.fail_call(Reason.MALFORMED, "text where the section's calls should be", end)
            eng.pos = end
            eng.pop()
            return True
        if final:
            eng.fail_call(Reason.TRUNCATED, "the stream ended inside a tool-call section", len(buf))
            eng.pos = len(buf)
            eng.pop()
            return True
        keep = max(len(c) for c in closers) - 1
        eng.pos = max(pos, len(buf) - keep)
        return False

    def step(self, eng: Engine, final: bool) -> bool:
        if self.in_junk:
            return self._junk(eng, eng.pos, final)
        buf = eng.buf
        pos = eng.pos
        j = after_ws(buf, pos, final)
        if j is None:
            return False
        if j is False:
            eng.pop()
            return True
        found = self.table.markers.match(buf, j)
        if found is None:
            if self.junk is not None and eng.next_index == self.first_index:
                return self._junk(eng, j, final)
            if self.noise:
                noise = self._noise(eng, j, final)
                if noise is None:
                    eng.note_hold(len(buf) - pos)
                    return False
                if noise:
                    return True
            eng.pop()
            return True
        s, e, tok = found
        if tok is None or (not final and e == len(buf) and tok in self.table.markers.extendable):
            if final:
                eng.pop()
                return True
            if tok is None:
                eng.wait_for(self.table.markers, j)  # a marker's prefix: only more of it decides
            return False
        eng.pos = j
        for handler in self.table.lookup(tok):
            res = handler(eng, s, e, final)
            if res is None:
                if final:
                    continue
                return False
            if res:
                return True
        eng.pop()
        return True


def close_block(eng: Engine, s: int, e: int, final: bool) -> bool:
    """Handler for a section closer inside its block."""
    eng.pos = e
    eng.pop()
    return True
