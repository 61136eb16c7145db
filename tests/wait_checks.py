"""The reference for the engine's waits (``FastPaths.wait_for``): the same parser with ``Engine.wait_for``
switched off (and, where asked, a state's whole-chunk fast path), compared feed by feed and in the held-back
bound under 1-character, 1-byte and random chunkings."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import byte_pieces, random_pieces

from streamparse import StreamParser, merge_events
from streamparse.core.engine import Engine, State


def feeds(chunks: list[str] | list[bytes], formats: Any, tools: Any = None) -> tuple[list[list[object]], int]:
    """Each feed's events (merged), then close's, and the largest held-back text."""
    parser = StreamParser(formats=formats, tools=tools)
    out = [merge_events(parser.feed(c)) for c in chunks] + [merge_events(parser.close())]
    return out, parser.stats.largest_holdback


def same_with_and_without_waits(
    text: str, formats: Any, seed: int, tools: Any = None, fast_off: tuple[type[State], ...] = ()
) -> None:
    """``text`` parses alike with the waits on and off (``fast_off``: states whose ``fast`` is off too)."""
    cuts: dict[str, list[str] | list[bytes]] = {
        "chars": list(text),
        "bytes": byte_pieces(text),
        "random": random_pieces(text, seed, 6),
    }
    fast = {label: feeds(chunks, formats, tools) for label, chunks in cuts.items()}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Engine, "wait_for", lambda self, marker, start: None)
        for cls in fast_off:
            mp.setattr(cls, "fast", State.fast)
        slow = {label: feeds(chunks, formats, tools) for label, chunks in cuts.items()}
    for label in fast:
        assert fast[label] == slow[label], label
