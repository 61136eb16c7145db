"""Where a call's arguments object is in a render: JSON, or an object in JSON's notation whose strings sit
between the template's own quote token and whose keys are bare (Gemma 4's ``{k:<|"|>v<|"|>,n:5}``).

The quote token is what the two-argument render writes on both sides of a string value; it is accepted
only if every probe's arguments (the typed ones included) read back through the same reader the parser
uses (:mod:`streamparse.formats.gemma_args`), so a derivation never promises what the parser cannot read.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..formats.gemma_args import GemmaArgsTracker, gemma_args_to_json
from ..formats.pythonic import feed_tracker

__all__ = ["object_after", "string_quote"]

_DECODER = json.JSONDecoder()
# ``{zqk_alpha:Q ZQV_ONE Q``: a bare key, then the same token on both sides of the value.
_QUOTED = re.compile(r"[{,]\s*zqk_alpha\s*:\s*(?P<q>[^\s\w{}\[\]:,][^\s{}\[\]:,]{0,15}?)ZQV_ONE(?P=q)")


def string_quote(region: str) -> str | None:
    """The string quote token of an object with bare keys, or None (JSON, or something else)."""
    m = _QUOTED.search(region)
    return m.group("q") if m is not None and m.group("q") != '"' else None


def _read(region: str, at: int, quote: str) -> tuple[Any, int] | None:
    if not quote:
        try:
            return _DECODER.raw_decode(region, at)
        except ValueError:
            return None
    end, broken = feed_tracker(GemmaArgsTracker(quote), region, at)
    if end is None or broken:
        return None
    try:
        return json.loads(gemma_args_to_json(region[at:end], quote)), end
    except ValueError:
        return None


def object_after(region: str, start: int, args: dict[str, Any], quote: str = "") -> tuple[int, int] | None:
    """``(start, end)`` of the first object after ``start`` that reads as ``args`` (JSON, or in ``quote``)."""
    at = region.find("{", start)
    while at != -1:
        got = _read(region, at, quote)
        if got is not None and got[0] == args:
            return at, got[1]
        at = region.find("{", at + 1)
    return None
