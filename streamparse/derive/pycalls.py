"""Calls written as Python call expressions, ``[NAME(key=value, ...), ...]`` between an opener and a closer
(LFM2's ``<|tool_call_start|>[...]<|tool_call_end|>``): the :class:`~streamparse.formats.PythonName` shape.

The one-call and two-call regions give the markers around the list; the :data:`~.probes.QUOTED` probe (a
string argument holding ``'`` and ``\\``) gives how strings are written: as they are between single quotes
(``strings="raw"``, the template's ``"'" + value + "'"``), or as a Python literal (``"python"``). Anything
else is refused by name: a reading that decoded escapes the template never wrote would be silently wrong.
"""

from __future__ import annotations

import re

from ..formats import Call, PythonName
from ..formats.declaration_base import PythonStrings
from ..formats.pyliteral import parse_call
from .calls import CallShape
from .errors import DeriveError
from .probes import QUOTED_VALUE
from .text import strip_ws

__all__ = ["python_calls"]

# The one-call probe's list as a template writes it: ``[zqfirst(zqk_alpha=<the value>)]``.
_ONE = re.compile(r"\[\s*zqfirst\(\s*zqk_alpha\s*=\s*(?P<value>.*?)\s*\)\s*\]", re.S)


def python_calls(regions: dict[str, str], quoted: str | None) -> CallShape | None:
    """The call shape when the one-call region is a Python call list between two markers; None when the
    region is no such list (another analysis reads it); DeriveError when it is one this cannot read."""
    one = regions.get("call", "")
    m = _ONE.search(one)
    if m is None:
        return None
    open_, close = strip_ws(one[: m.start()]), strip_ws(one[m.end() :])
    if not open_ or not close:
        return None  # a bare list (no marker around it): the pythonic family's, named by the caller
    two = regions.get("call2", "")
    if not (two.startswith(open_) and strip_ws(two).endswith(close) and re.search(r"\bzqsecond\(", two)):
        raise DeriveError(f"calls: Python call expressions between {open_!r} and {close!r}, but two calls are not")
    strings = _strings(quoted)
    note = f"calls: a list of Python call expressions between {open_!r} and {close!r}, strings {strings}"
    return CallShape(Call(open_, close, PythonName(strings)), None, [note])


def _strings(quoted: str | None) -> PythonStrings:
    """``"raw"`` or ``"python"``: how the :data:`QUOTED` probe's string argument is written."""
    m = _ONE.search(quoted or "")
    if m is None:
        raise DeriveError("arguments: Python call expressions, but a string holding ' and \\ does not render")
    written = m.group("value")
    if written == f"'{QUOTED_VALUE}'":
        return "raw"
    try:
        _, args = parse_call(f"zqfirst(zqk_alpha={written})")
    except ValueError:
        args = {}
    if args.get("zqk_alpha") == QUOTED_VALUE:
        return "python"
    raise DeriveError(
        f"arguments: a string argument holding ' and a backslash is written as {written[:40]!r}: neither as it is "
        "nor as a Python literal, so it cannot be read back"
    )
