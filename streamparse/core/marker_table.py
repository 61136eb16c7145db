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

    __slots__ = ("_markers", "_late", "early", "handlers", "ns_handlers", "_words")

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
        # Marker sets compile on first use (a config has a table per reasoning closer of the catalog, most
        # never entered; each is milliseconds).
        self._markers: MarkerSet | None = None
        self._late: MarkerSet | None = None

    @property
    def markers(self) -> MarkerSet:
        """Every marker of the scope."""
        markers = self._markers
        if markers is None:
            markers = self._markers = marker_set(frozenset(self.handlers), frozenset(self.ns_handlers), self._words)
        return markers

    @property
    def late(self) -> MarkerSet:
        """The markers once the output began (START markers left out)."""
        late = self._late
        if late is None:
            if self.early:
                late = marker_set(frozenset(self.handlers) - self.early, frozenset(self.ns_handlers), self._words)
            else:
                late = self.markers
            self._late = late
        return late

    def lookup(self, tok: str) -> tuple[Handler, ...]:
        hs = self.handlers.get(tok)
        if hs is not None:
            return hs
        parts = split_ns(tok)
        if parts is not None:
            return self.ns_handlers.get(parts[1], ())
        return ()
