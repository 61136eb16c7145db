"""Declared standalone calls (``Call(standalone=True)``): bare JSON with no marker, as Llama 3.x and xLAM
write them, read with the declaration's own field names.

There is nothing to search for, so the call is tried only where one can stand on its own: at the start of
the output and at a line start (after text ending in a newline, or after another call). There the
candidate is held while its keys stream in and released as text the moment it cannot be a call, exactly
as the built-in unmarked ``json`` family does (:mod:`.unmarked`, :class:`~.shape.Shape`); JSON inside a
sentence is never a candidate.
"""

from __future__ import annotations

from .base import Wiring
from .declaration import JsonName
from .family import Family
from .unmarked import UnmarkedStart

__all__ = ["wire_standalone"]


def family(fmt: str, name: JsonName) -> Family:
    """What a standalone call of ``name``'s shape allows: an object (unless the template writes a list), a
    list of them (always: as after an opener), only the declared field names, no envelope, fence or end
    marker."""
    return Family(
        objects=not name.list,
        arrays=True,
        envelope=False,
        end_marker=False,
        semicolons=False,
        fences=False,
        object_label=fmt,
        array_label=fmt,
        fields=(name.field, (name.arguments_field, *name.alt_arguments_fields)),
        nested=name.nested,
    )


def wire_standalone(w: Wiring, fmt: str, name: JsonName) -> None:
    """Wire a declared standalone call: a start handler and the line-start ``{`` / ``[`` markers."""
    # The unmarked family's own handlers, bound to this call's family (bound methods, so the built-in
    # json family, which wires its start handler once per wiring, still wires its own beside them).
    start = UnmarkedStart(family(fmt, name))
    w.start.append(start.__call__)
    if start.fam.objects:
        w.on("{", start.at_line_start)
    w.on("[", start.at_line_start)
