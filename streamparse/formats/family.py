"""What the active unmarked formats allow: one start handler serves json, xlam, envelope, llama3_json and
tool_request (see :mod:`.unmarked`).

A module of its own because it is a frozen dataclass with defaults, which mypyc builds differently: it is read
once per parser, so it stays interpreted while :mod:`.shape`, which runs per chunk, is compiled.
"""

from __future__ import annotations

from dataclasses import dataclass

FAMILY = frozenset({"json", "xlam", "envelope", "llama3_json", "tool_request"})


@dataclass(frozen=True)
class Family:
    """What the active unmarked formats allow (one start handler serves all of them)."""

    objects: bool  # json, llama3_json: a call object
    arrays: bool  # json, xlam: a list of call objects
    envelope: bool
    end_marker: bool  # tool_request form (c)
    semicolons: bool  # llama3_json: `;` between calls
    fences: bool  # json, xlam, envelope: a ```json or bare fence around the value
    object_label: str
    array_label: str
    # A declared standalone call (formats/standalone.py): its own name field, argument fields and nesting
    # instead of the common spellings.
    fields: tuple[str, tuple[str, ...]] | None = None
    nested: str = ""

    @classmethod
    def of(cls, active: frozenset[str]) -> Family | None:
        names = active & FAMILY
        if not names:
            return None
        js = "json" in names
        llama = "llama3_json" in names
        return cls(
            objects=js or llama,
            arrays=js or "xlam" in names,
            envelope="envelope" in names,
            end_marker="tool_request" in names,
            semicolons=llama,
            fences=bool(names & {"json", "xlam", "envelope"}),
            object_label="json" if js else "llama3_json" if llama else "tool_request",
            array_label="json" if js else "xlam",
        )
