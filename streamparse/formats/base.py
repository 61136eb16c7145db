"""What a format is: a name, documentation, and the markers it adds to a scope with their handlers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.engine import Handler


@dataclass(frozen=True)
class DeclaredReasoning:
    """One reasoning delimiter pair a declared format adds to the text scopes."""

    open: str | None
    close: str
    primed: bool
    start_only: bool


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
    # Declared formats (formats/compiler.py): reasoning delimiters (opener or None for end-only), the
    # closers a primed output may end with, and markup removed from visible text (content wrappers,
    # control tokens). config.py builds them into its text and reasoning scopes.
    reasoning: list[DeclaredReasoning] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # control tokens: removed in text and reasoning
    wrappers: list[str] = field(default_factory=list)  # content wrappers: removed in text; end primed reasoning
    separators: list[str] = field(default_factory=list)  # text separators: removed where whitespace would be
    # Markers that count only at a word start or before the output's first visible text (core/scanner.py,
    # WORD / START): where their templates put them, so prose ending in ``t`` or ``f`` is not held.
    anchors: dict[str, str] = field(default_factory=dict)

    def on(self, marker: str, handler: Handler, anchor: str | None = None) -> None:
        """``anchor`` (WORD / START): every handler of the marker refuses it elsewhere. A marker wired by
        several formats keeps the anchor only when all of them give the same one."""
        known = marker in self.markers
        self.markers.setdefault(marker, []).append(handler)
        if anchor is not None and (not known or self.anchors.get(marker) == anchor):
            self.anchors[marker] = anchor
        else:
            self.anchors.pop(marker, None)

    def add_reasoning(self, open: str | None, close: str, *, primed: bool = False, start_only: bool = True) -> None:
        r = DeclaredReasoning(open, close, primed, start_only)
        if r not in self.reasoning:
            self.reasoning.append(r)

    def on_ns(self, suffix: str, handler: Handler) -> None:
        self.ns.setdefault(suffix, []).append(handler)


TagWriter = Callable[[Sequence[tuple[str, Any]], str, bool], "dict[str, Any] | None"]


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
    declaration: object | None = field(default=None, compare=False)  # the Declaration it was compiled from
    # Hand-written families: the layout their template writes, as a Declaration (the handler still parses
    # it; structural tags are built from it), or, where the vocabulary cannot say it (channel messages),
    # a writer of the tag's format node: (tools as (name, JSON schema or True), choice, parallel) -> node.
    layout: object | None = field(default=None, compare=False)
    tag_writer: TagWriter | None = field(default=None, compare=False)
