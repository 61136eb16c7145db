"""The format catalog (docs/FORMATS.md): canonical names, documentation and wiring.

Adding a format is one :class:`FormatSpec` in one of the modules below, built from the handler
factories in :mod:`streamparse.formats.openers` and the engine's shared states. Outside the package, a
format is declared as data (:class:`Declaration`, :func:`declare`, :func:`load`) and added with
:func:`register`.
"""

from __future__ import annotations

import dataclasses
import difflib
from typing import Any

from . import (
    cwm,
    declared_families,
    declared_latest,
    declared_recent,
    functionary,
    granite_pythonic,
    jsonic,
    marked,
    pyish,
    sections,
    tagged,
    thinking,
    tokens,
    unmarked,
)
from .base import FormatSpec, Wiring
from .declaration import (
    ArgsSpec,
    Call,
    Declaration,
    ElementArgs,
    HeaderName,
    IdSpec,
    JsonArgs,
    JsonName,
    Messages,
    NameSpec,
    PythonName,
    Reasoning,
    RecipientName,
    Section,
    TaggedArgs,
    Values,
    Wrapper,
)
from .declaration_io import dump, load
from .declared import BODY_KINDS, BodyKind, declare
from .declared_families import hy4_declaration

__all__ = [
    "FormatSpec",
    "Wiring",
    "CATALOG",
    "BODY_KINDS",
    "BodyKind",
    "declare",
    "hy4_declaration",
    "Declaration",
    "Call",
    "Section",
    "Reasoning",
    "Wrapper",
    "JsonName",
    "HeaderName",
    "PythonName",
    "JsonArgs",
    "TaggedArgs",
    "ElementArgs",
    "Values",
    "IdSpec",
    "Messages",
    "RecipientName",
    "NameSpec",
    "ArgsSpec",
    "load",
    "dump",
    "declaration_of",
    "register",
    "unregister",
    "generation",
    "names",
    "get",
    "resolve",
    "siblings",
    "owner",
    "BLOCK_CLOSERS",
]

# Block openers shared or distinctive enough that a closed block nobody could read is a failed call
# (rejected ``malformed``), not text: see ``openers.unparsed_block``.
BLOCK_CLOSERS: dict[str, str] = {
    "<tool_call>": "</tool_call>",
    "<minimax:tool_call>": "</minimax:tool_call>",
    "<TOOLCALL>": "</TOOLCALL>",
    "<ifm|tool_calls>": "</ifm|tool_calls>",  # K2 Horizon
    "<dots_function_call>": "</dots_function_call>",
    "<tool_call:opensource>": "</tool_call:opensource>",  # Hy3's (an HY v4 call where only hy3 is active)
}

CATALOG: dict[str, FormatSpec] = {}
for _module in (
    jsonic,
    tagged,
    tokens,
    marked,
    thinking,
    sections,
    functionary,
    pyish,
    unmarked,
    declared_families,
    declared_recent,
    declared_latest,
    cwm,
    granite_pythonic,
):
    for _spec in _module.SPECS:
        CATALOG[_spec.name] = _spec

# Order in which formats claim shared openers: the order of docs/FORMATS.md, with the list/variant formats that
# take precedence on a shared continuation first.
ORDER: tuple[str, ...] = tuple(CATALOG)
BUILT_IN: frozenset[str] = frozenset(CATALOG)
_generation = 0  # bumped by register/unregister: compiled tables are cached per catalog generation


def generation() -> int:
    """A number that changes whenever the catalog does (a cache key for tables built from it)."""
    return _generation


def register(spec: FormatSpec | Declaration, *, auto: bool | None = None) -> FormatSpec:
    """Add a format to the catalog; returns the spec as registered.

    ``spec`` is usually built by :func:`declare` (a :class:`Declaration` is compiled first, and ``auto``
    defaults to its own). ``auto``: also active under ``formats="auto"`` (and for unknown models); by
    default it is on only where named (``formats=["name", ...]``), because an opener the catalog does not
    know might occur in the prose of other models. Later formats claim a shared
    opener after the built-in ones. Raises ``ValueError`` for a name already in the catalog.
    """
    global ORDER, _generation
    if isinstance(spec, Declaration):
        if auto is None:
            auto = spec.auto
        spec = declare(spec)
    if not isinstance(spec, FormatSpec):
        raise ValueError(f"register() takes a FormatSpec or a Declaration (see formats.declare), got {spec!r}")
    if spec.name in CATALOG:
        raise ValueError(f"format {spec.name!r} is already in the catalog")
    spec = dataclasses.replace(spec, opt_in=not auto)
    CATALOG[spec.name] = spec
    ORDER = (*ORDER, spec.name)
    _generation += 1
    return spec


def unregister(name: str) -> None:
    """Remove a format added by :func:`register` (built-in formats cannot be removed)."""
    global ORDER, _generation
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is a built-in format")
    if name not in CATALOG:
        raise ValueError(f"format {name!r} is not registered")
    del CATALOG[name]
    _MARKERS.pop(name, None)
    ORDER = tuple(n for n in ORDER if n != name)
    _generation += 1


def declaration_of(name: str) -> Declaration | None:
    """The declaration a catalog format was compiled from (None for a format written as code)."""
    decl = get(name).declaration
    return decl if isinstance(decl, Declaration) else None


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


_MARKERS: dict[str, frozenset[str]] = {}


def _markers(name: str) -> frozenset[str]:
    """The visible-text markers one format wires (its openers), computed once."""
    found = _MARKERS.get(name)
    if found is None:
        w = Wiring(active=frozenset([name]))
        CATALOG[name].wire(w)
        found = _MARKERS[name] = frozenset(w.markers) | frozenset("<ns:" + k for k in w.ns)
    return found


def siblings(names: Any) -> tuple[str, ...]:
    """``names`` plus every catalog format that shares an opener with one of them, in catalog order.

    A preset prefers its family's formats but must not exclude their siblings: Qwen3's ``<tool_call>`` may
    carry hermes JSON or Qwen3-Coder XML, and each format's handler checks the continuation, so keeping
    the siblings on turns what would leak as markup into a call (or a ``malformed`` rejection)."""
    chosen = set(resolve(names))
    shared = frozenset().union(*(_markers(n) for n in chosen))
    for n in ORDER:
        if not CATALOG[n].opt_in and _markers(n) & shared:
            chosen.add(n)
    return tuple(n for n in ORDER if n in chosen)


def owner(marker: str, active: tuple[str, ...]) -> str | None:
    """The first active format (catalog order) that wires ``marker``."""
    return next((n for n in active if marker in _markers(n)), None)
