"""Sections holding several calls (``<function_calls>``, ``<｜tool▁calls▁begin｜>``, ...)."""

from __future__ import annotations

from ..core.engine import Engine, MarkerTable, State
from ..core.lookahead import LOOKAHEAD, skip_ws


class BlockState(State):
    """Between the calls of a section: whitespace is markup; the closer ends the section; anything else
    ends the section implicitly (section closers are optional, end-of-stream rule) and is scanned again as text."""

    __slots__ = ("table",)

    def __init__(self, table: MarkerTable) -> None:
        self.table = table

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        j = skip_ws(buf, pos)
        if j >= len(buf):
            if final or j - pos >= LOOKAHEAD:
                eng.pop()
                return True
            return False
        found = self.table.markers.match(buf, j)
        if found is None:
            eng.pop()
            return True
        s, e, tok = found
        if tok is None or (not final and e == len(buf) and tok in self.table.markers.extendable):
            if final:
                eng.pop()
                return True
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
