"""The start of the output (start rule): where unmarked formats (bare JSON, bare pythonic) may begin.

Unmarked formats have no opener, so the text scanner cannot find them; instead :class:`StartState` sits on
top of the visible-text scope when a stream begins (and, with ``fallback="gated"``, after an intent marker)
and offers the first non-whitespace position to the ``Wiring.start`` handlers, once. Leading whitespace is
visible text; a reasoning block at the start (``<think>...</think>``, or a primed one) and control tokens
are read first and the start is after them. Anything else ends the start: the handlers are tried, and if
none takes the position the text scanner carries on from there.

A handler is called as ``handler(eng, j, j, final)`` with ``j`` the first non-whitespace position; it
returns True (it pushed a state, or advanced ``eng.pos``), False, or None (hold: more input needed).
While the state a handler pushed is running, ``eng.gate`` says how calls found there are treated
(``fallback_used``, the gates, see :mod:`streamparse.states.gates`); the engine applies it in
``begin_call``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ..core.engine import Engine, Handler, MarkerTable, State
from ..core.lookahead import word_char
from .gates import INTENT_LINE, INTENT_TOKEN, INTENT_YES, Gate, GateBook
from .text import CONTROL_TOKENS, REASONING

_WS: Final = " \t\r\n"
# Markers read *before* the start (the start is after them): reasoning openers, an orphan closer of a
# primed template, control tokens.
_BEFORE_START: Final = frozenset(REASONING) | {"</think>"} | frozenset(CONTROL_TOKENS)


class StartState(State):
    """Offers the start of the output to the start handlers once; see the module docstring."""

    __slots__ = ("table", "handlers", "gate", "waiting")

    def __init__(self, table: MarkerTable, handlers: tuple[Handler, ...], gate: Gate | None = None) -> None:
        self.table = table  # the visible-text scope (for reasoning openers and control tokens)
        self.handlers = handlers
        self.gate = gate
        self.waiting = False  # a handler took the start; its state runs above this one

    def step(self, eng: Engine, final: bool) -> bool:
        if self.waiting:  # the handler's state is done: the start is over
            eng.gate = None
            eng.pop()
            return True
        buf = eng.buf
        pos = eng.pos
        n = len(buf)
        j = pos
        while j < n and buf[j] in _WS:
            j += 1
        if j > pos:
            eng.text(buf[pos:j])
            eng.pos = j
        if j >= n:
            if final:
                eng.pop()
                return True
            return False
        found = self.table.markers.match(buf, j)
        if found is not None:
            s, e, tok = found
            if tok is None and not final:
                return False  # a possible reasoning opener (`<thi`): wait
            if tok in _BEFORE_START:
                for handler in self.table.lookup(tok):
                    res = handler(eng, s, e, final)
                    if res is None and not final:
                        return False
                    if res:
                        return True  # a reasoning scope was pushed above this state, or a token dropped
        eng.gate = self.gate
        for handler in self.handlers:
            res = handler(eng, j, j, final)
            if res is None:
                if final:
                    continue
                eng.gate = None
                eng.note_hold(n - j)
                return False
            if res:
                self.waiting = True
                return True
        eng.gate = None
        eng.pop()
        return True

    def at_close(self, eng: Engine) -> None:
        eng.gate = None


# -- the gated fallback's intent markers ------------------------------------------------------------


def _open_gate(eng: Engine, handlers: tuple[Handler, ...], table: MarkerTable, end: int) -> bool:
    book = eng.gatebook
    if not isinstance(book, GateBook):
        book = eng.gatebook = GateBook()
    eng.pos = end
    eng.push(StartState(table, handlers, Gate(fallback=True, book=book)))
    return True


def intent_handlers(handlers: tuple[Handler, ...], text_table: Callable[[], MarkerTable]) -> dict[str, Handler]:
    """Markers of the visible-text scope that open the gate for ``handlers`` (the unmarked formats).

    ``text_table`` gives the visible-text scope the gated start state returns to (it holds these handlers,
    so it is built after them)."""

    def need_tool(eng: Engine, s: int, e: int, final: bool) -> bool | None:
        if not eng.line_start(s):
            return False
        buf = eng.buf
        nl = buf.find("\n", e, e + 32)
        if nl < 0:
            if not final and len(buf) - e < 32:
                return None
            if len(buf) - e >= 32:
                return False
            nl = len(buf)
        if buf[e:nl].strip().lower() not in INTENT_YES:
            return False
        return _open_gate(eng, handlers, text_table(), nl)

    def call_tool(eng: Engine, s: int, e: int, final: bool) -> bool | None:
        buf = eng.buf
        if s > 0 and word_char(buf[s - 1]):
            return False
        if e >= len(buf):
            if not final:
                return None
        elif word_char(buf[e]):
            return False
        elif buf[e] == ":":
            e += 1
        return _open_gate(eng, handlers, text_table(), e)

    return {INTENT_LINE: need_tool, INTENT_TOKEN: call_tool}
