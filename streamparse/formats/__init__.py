"""The format catalog (docs/FORMATS.md): canonical names, documentation and wiring.

Adding a format is one :class:`FormatSpec` in one of the modules below, built from the handler
factories in :mod:`streamparse.formats.openers` and the engine's shared states.
"""

from __future__ import annotations

import difflib
from typing import Any

from . import functionary, jsonic, marked, pyish, sections, tagged, tokens, unmarked
from .base import FormatSpec, Wiring

__all__ = ["FormatSpec", "Wiring", "CATALOG", "names", "get", "resolve"]

CATALOG: dict[str, FormatSpec] = {}
for _module in (jsonic, tagged, tokens, marked, sections, functionary, pyish, unmarked):
    for _spec in _module.SPECS:
        CATALOG[_spec.name] = _spec

# Order in which formats claim shared openers: the order of docs/FORMATS.md, with the list/variant formats that
# take precedence on a shared continuation first.
ORDER: tuple[str, ...] = tuple(CATALOG)


def names() -> list[str]:
    """Every canonical format name."""
    return list(CATALOG)


def get(name: str) -> FormatSpec:
    try:
        return CATALOG[name]
    except KeyError:
        close = difflib.get_close_matches(name, CATALOG, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(f"unknown format {name!r}{hint} (streamparse.formats.names() lists them)") from None


def resolve(formats: Any) -> tuple[str, ...]:
    """``"auto"`` or a list of names -> the active names in catalog order (unknown names raise)."""
    if formats is None or formats == "auto":
        return tuple(n for n in ORDER if not CATALOG[n].opt_in)
    if isinstance(formats, str):
        formats = [formats]
    wanted = {get(str(f)).name for f in formats}
    if not wanted:
        raise ValueError("formats must name at least one format, or be 'auto'")
    return tuple(n for n in ORDER if n in wanted)
