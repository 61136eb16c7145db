"""Declared standalone calls (``Call(standalone=True)``): bare JSON with no marker, as Llama 3.x and xLAM
write them, read with the declaration's own field names.

There is nothing to search for, so the call is tried only where one can stand on its own: at the start of
the output and at a line start (after text ending in a newline, or after another call). There the
candidate is held while its keys stream in and released as text the moment it cannot be a call, exactly
as the built-in unmarked ``json`` family does (:mod:`.unmarked`, :class:`~.shape.Shape`); JSON inside a
sentence is never a candidate.
"""

from __future__ import annotations

from ..core.engine import Engine, State
from .base import Wiring
from .declaration import JsonName
from .shape import Family
from .unmarked import candidate

__all__ = ["wire_standalone"]


def _default_fields(name: JsonName) -> bool:
    return name.field == "name" and name.arguments_field == "arguments" and not name.nested


def family(fmt: str, name: JsonName) -> Family:
    """What a standalone call of ``name``'s shape allows: an object (unless the template writes a list), a
    list of them (always: as after an opener), no envelope, fence or end marker."""
    fields = None if _default_fields(name) else (name.field, (name.arguments_field, *name.alt_arguments_fields))
    return Family(
        objects=not name.list,
        arrays=True,
        envelope=False,
        end_marker=False,
        semicolons=False,
        fences=False,
        object_label=fmt,
        array_label=fmt,
        fields=fields if fields is not None or name.nested else None,
        nested=name.nested,
    )


class _Start:
    """The candidate at the start of the output, or (``{`` / ``[`` handler) at a line start."""

    __slots__ = ("fam", "line")

    def __init__(self, fam: Family, line: bool) -> None:
        self.fam = fam
        self.line = line

    def __call__(self, eng: Engine, s: int, e: int, final: bool) -> bool | None:
        if self.line and not eng.line_start(s):
            return False
        state = candidate(eng, self.fam, s, final)
        if not isinstance(state, State):
            return state
        eng.pos = s
        eng.push(state)
        return True


def wire_standalone(w: Wiring, fmt: str, name: JsonName) -> None:
    """Wire a declared standalone call: a start handler and the line-start ``{`` / ``[`` markers."""
    fam = family(fmt, name)
    w.start.append(_Start(fam, line=False))
    line = _Start(fam, line=True)
    if fam.objects:
        w.on("{", line)
    w.on("[", line)
