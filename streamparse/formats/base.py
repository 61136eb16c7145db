"""What a format is: a name, documentation, and the markers it adds to a scope with their handlers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.engine import Handler


@dataclass
class Wiring:
    """Markers of the visible-text scope, collected from every active format in catalog order.

    ``fence_infos`` maps a fenced block's info string to a handler (fences that are themselves markers,
    code rule exceptions); ``ns`` holds namespaced tag suffixes (``<ns:invoke``); ``start`` holds handlers tried
    once at the start of the output (unmarked formats, start rule). ``explicit``: the formats were named (not
    ``"auto"``), so unmarked formats may also claim line starts (start rule).
    """

    markers: dict[str, list[Handler]] = field(default_factory=dict)
    ns: dict[str, list[Handler]] = field(default_factory=dict)
    fence_infos: dict[str, Handler] = field(default_factory=dict)
    start: list[Handler] = field(default_factory=list)
    active: frozenset[str] = frozenset()
    explicit: bool = False
    reasoning: dict[str, tuple[str, bool]] = field(default_factory=dict)
    """A format's own reasoning wrappers: opener -> (closer, opens only at the start of the output). Its
    closer also ends primed reasoning; a format whose template primes wires it as an orphan closer too."""

    def on(self, marker: str, handler: Handler) -> None:
        self.markers.setdefault(marker, []).append(handler)

    def on_ns(self, suffix: str, handler: Handler) -> None:
        self.ns.setdefault(suffix, []).append(handler)


@dataclass(frozen=True)
class FormatSpec:
    """A catalog entry. ``wire`` adds the format's markers; everything else is documentation."""

    name: str
    models: str
    delimiters: str
    example: str
    wire: Callable[[Wiring], None]
    opt_in: bool = False  # not part of formats="auto" (key_value)
    primed: bool = False  # its template opens reasoning in the prompt (reasoning rule)
    notes: str = ""
