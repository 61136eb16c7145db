"""Reasoning scopes of declared delimiters (formats/declaration.py ``Reasoning``), shared by every
declared format: an opener that pushes the reasoning scope of its own closer, start-only or anywhere."""

from __future__ import annotations

from ..core.engine import Engine, Handler, MarkerTable, ScanState


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
