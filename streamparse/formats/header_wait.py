"""When a declared call's header is still undecided: the pattern FastPaths.wait_for holds it with.

A header arriving in pieces is not read again for every piece: while the text after the opener matches the
pattern (fully), only more text can decide, so the engine waits without running the handler.
"""

from __future__ import annotations

import re

from ..core.lookahead import LOOKAHEAD

__all__ = ["header_undecided"]


def header_undecided(end: str, ends: tuple[str, ...], attribute: bool) -> re.Pattern[str] | None:
    """``end``: the name's end marker (empty: the name runs to the earliest of ``ends``); ``attribute``: the
    name is an attribute of the opener (``name="..."``)."""
    if not attribute:
        # A plain name: undecided while the text stays short, without a blank and without its end marker.
        stops = "|".join(re.escape(t) for t in ((end,) if end else ends) if t)
        return re.compile(f"(?:(?!{stops})\\S){{0,{LOOKAHEAD - 1}}}") if stops else None
    if not end:
        return None
    # Attributes read up to their end marker: undecided while the text after the opener is short, has no end
    # marker, and is what _header_prefix calls a header's start (a blank first, one line but for blanks at
    # its end).
    close = re.escape(end)
    return re.compile(f"(?=[\\s\\S]{{0,{LOOKAHEAD - 1}}}\\Z)(?:[^\\S\\n](?:(?!{close})[^\\n])*)?(?:(?!{close})\\s)*")
