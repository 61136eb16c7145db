"""Text-scope pieces of declared formats (formats/declaration.py), shared by every declared format: the
reasoning scope of a declared delimiter (``Reasoning``: an opener that pushes the reasoning scope of its
own closer, start-only or anywhere) and declared text separators (``Declaration.text_separators``)."""

from __future__ import annotations

from ..core.engine import Engine, Handler, MarkerTable, ScanState
from ..core.lookahead import LOOKAHEAD
from ..core.output import SEP_WS
from .separators import Separators


def open_declared_reasoning(table: MarkerTable, start_only: bool) -> Handler:
    """A declared reasoning opener: the reasoning scope whose closer is ``table``'s. ``start_only``: only
    before any visible text or reasoning (a mid-text opener is text, as ``<think>``)."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> bool:
        if start_only and (eng.seen_output or eng.reasoning_seen):
            return False
        eng.pos = e
        eng.orphan_window = False  # a written opener: its closer is not an orphan
        eng.begin_reasoning_segment()
        eng.push(ScanState(table, reasoning=True))
        return True

    return handler


def text_separators(tokens: tuple[str, ...]) -> Handler:
    """Declared text separators (``Declaration.text_separators``): removed where separator whitespace is
    (exact output), content elsewhere. One stands at a segment's start (right after markup or at the start
    of the output), or is followed, past blanks and other separators, by markup or the end of the output:
    then it is taken as markup, so the whitespace around it is a separator too. Otherwise it is text. The
    look-ahead is bounded (``LOOKAHEAD``); while it cannot decide, the separator is held."""
    longest_first = tuple(sorted(tokens, key=len, reverse=True))

    def handler(eng: Engine, s: int, e: int, final: bool) -> bool | None:
        sep = eng.sep
        state = eng.state
        table = getattr(state, "table", None)
        if not isinstance(sep, Separators) or not isinstance(table, MarkerTable):
            return False  # separators="keep": every character is content
        reasoning = isinstance(state, ScanState) and state.reasoning
        if sep.at_lead(reasoning):
            eng.pos = e
            return True
        buf = eng.buf
        j = e
        while True:
            if j - e > LOOKAHEAD:
                return False  # a long run: content whatever follows (bounded hold)
            if j == len(buf):
                if not final:
                    return None  # what follows decides
                eng.pos = e  # the end of the output
                return True
            if buf[j] in SEP_WS:
                j += 1
                continue
            tok = next((t for t in longest_first if buf.startswith(t, j)), None)
            if tok is not None:
                j += len(tok)
                continue
            if any(t.startswith(buf[j:]) for t in longest_first):
                return False if final else None  # the rest may still complete a separator
            break
        found = table.markers.match(buf, j)  # anchored: never a scan of the rest of the buffer
        if found is None:
            return False  # text follows: the separator is content
        if found[2] is None:
            return False if final else None  # a marker may begin here: wait for it
        eng.pos = e
        return True

    return handler
