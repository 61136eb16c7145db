"""A scope's markers and their handlers: what the engine searches for, and who decides what a find means."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .scanner import START, WORD, MarkerSet, marker_set, split_ns

__all__ = ["Handler", "MarkerTable"]

# A handler decides what a found marker means: True = handled (pos advanced / state changed),
# False = not this handler, None = cannot decide before more input arrives (hold from the marker).
# The first argument is the Engine (typed Any: core/engine.py imports this module, not the other way round).
Handler = Callable[[Any, int, int, bool], "bool | None"]


class MarkerTable:
    """A scope's markers, compiled once, with the handlers for each marker."""

    __slots__ = ("markers", "late", "early", "handlers", "ns_handlers", "_words")

    def __init__(
        self,
        handlers: dict[str, list[Handler]],
        ns_handlers: dict[str, list[Handler]] | None = None,
        anchors: dict[str, str] | None = None,
    ) -> None:
        """``anchors``: markers that count only at a word start (WORD) or before the output's first
        visible text (START), core/scanner.py; ``late`` is the marker set once that text was released."""
        self.handlers = {k: tuple(v) for k, v in handlers.items()}
        self.ns_handlers = {k: tuple(v) for k, v in (ns_handlers or {}).items()}
        anchors = {m: a for m, a in (anchors or {}).items() if m in self.handlers}
        self._words = frozenset(m for m, a in anchors.items() if a == WORD)
        self.early = frozenset(m for m, a in anchors.items() if a == START)

    def __getattr__(self, name: str) -> MarkerSet:
        # Marker sets compile on first use (a config has a table per reasoning closer of the catalog, most
        # never entered; each is milliseconds). Only unset slots get here: once set, a plain slot read.
        if name not in ("markers", "late"):
            raise AttributeError(name)
        every, ns = frozenset(self.handlers), frozenset(self.ns_handlers)
        self.markers: MarkerSet = marker_set(every, ns, self._words)
        self.late: MarkerSet = marker_set(every - self.early, ns, self._words) if self.early else self.markers
        return self.markers if name == "markers" else self.late

    def lookup(self, tok: str) -> tuple[Handler, ...]:
        hs = self.handlers.get(tok)
        if hs is not None:
            return hs
        parts = split_ns(tok)
        if parts is not None:
            return self.ns_handlers.get(parts[1], ())
        return ()
