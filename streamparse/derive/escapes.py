"""How a template writes ``& < > "`` inside a name, a key or a value, so the parser inverts it.

The :data:`~.probes.ESCAPED` probe calls a tool whose name, argument key and value end in ``& < > "``.
A sentinel found as written means no escaping; found as XML entities (``&amp;``, ``&quot;``: Kimi K3
escapes ``&`` and ``"`` only) means ``escapes="xml"`` for an attribute. A value the template entity-escapes
between tags is outside the vocabulary (values are never entity-decoded): that raises rather than
leaving ``&amp;`` in every argument that holds an ``&``. A value wrapped in ``<![CDATA[...]]>`` is
``Values(cdata=True)``: the section's inner text is the value.
"""

from __future__ import annotations

import dataclasses
import html

from ..formats import Call, HeaderName, TaggedArgs
from .calls import DeriveError
from .probes import ESC

__all__ = ["derive_escapes"]


def _written(render: str, sentinel: str) -> str | None:
    """``"none"`` (as written), ``"xml"`` (entities), or None (not found, or escaped some other way)."""
    if sentinel + ESC in render:
        return "none"
    at = render.find(sentinel)
    while at >= 0:
        start = at + len(sentinel)
        # The shortest text after the sentinel that entities decode to ESC (each character one entity at most).
        for end in range(start + len(ESC) + 1, min(len(render), start + 8 * len(ESC)) + 1):
            if html.unescape(render[start:end]) == ESC:
                return "xml"
        at = render.find(sentinel, start)
    return None


def derive_escapes(call: Call, render: str | None, notes: list[str]) -> Call:
    """``call`` with the escaping its template applies to attribute values; DeriveError for escaped values."""
    if render is None:
        if isinstance(call.arguments, TaggedArgs) or (isinstance(call.name, HeaderName) and call.name.attribute):
            notes.append('escapes: the template refuses a call whose name or key holds & < > "; none assumed')
        return call
    name, args = call.name, call.arguments
    if isinstance(name, HeaderName) and name.attribute is not None:
        how = _written(render, "zqn_e")
        if how == "xml":
            name = dataclasses.replace(name, escapes="xml")
        elif how is None:
            notes.append("escapes: the name attribute is escaped in a way not derived; read as written")
    if isinstance(args, TaggedArgs):
        if "<![CDATA[ZQV_E" in render:  # MiniCPM5 wraps values holding markup: their inner text is the value
            args = dataclasses.replace(args, values=dataclasses.replace(args.values, cdata=True))
        if _written(render, "ZQV_E") == "xml":
            raise DeriveError("values: the template XML-escapes argument values (values are never entity-decoded)")
        how = _written(render, "zqk_e")
        if args.key_attribute is not None and how == "xml":
            args = dataclasses.replace(args, attribute_escapes="xml")
        elif how != "none":
            notes.append("escapes: argument keys are escaped in a way not derived; read as written")
    return dataclasses.replace(call, name=name, arguments=args)
