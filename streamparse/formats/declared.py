"""Formats declared by their markers and body kind: the public way to add a format without forking.

:func:`declare` builds an ordinary :class:`~streamparse.formats.base.FormatSpec` whose ``wire`` uses the
same handler factories and body states as the built-in formats (:mod:`streamparse.formats.openers`), so a
declared format gets what they get: chunking invariance, repairs, validation, the call life cycle,
``max_call_chars``, snapshots. :func:`streamparse.formats.register` adds it to the catalog.

Body kinds (``OPEN``/``CLOSE`` are the markers, ``NAME`` a tool name, ``ARGS`` a JSON object):

- ``"json_object"``: ``OPEN {"name": NAME, "arguments": ARGS} CLOSE`` (also ``"parameters"``, a list of
  such objects, or several objects separated by commas), as hermes.
- ``"json_args"``: ``OPEN NAME NAME_END ARGS CLOSE``, as function_tag's ``<function=NAME>{...}</function>``.
- ``"tag_params"``: ``OPEN NAME NAME_END`` then ``PARAM_OPEN KEY PARAM_END VALUE PARAM_CLOSE`` per argument,
  then ``CLOSE``, as qwen3_coder; values are text, converted by the tool's schema (the text-value rule).

Without ``close`` (json kinds only) a call ends when its JSON closes (early completion), as mistral.
"""

from __future__ import annotations

import re
from typing import Literal, TypeAlias

from ..core.engine import Handler
from ..states.tag_body import TagSyntax
from .base import FormatSpec, Wiring
from .openers import json_call, named_json, tag_call

__all__ = ["BodyKind", "BODY_KINDS", "declare"]

BodyKind: TypeAlias = Literal["json_object", "json_args", "tag_params"]
BODY_KINDS: tuple[BodyKind, ...] = ("json_object", "json_args", "tag_params")
_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")


def _header(end: str, group: str) -> re.Pattern[str]:
    """A tool name (or parameter key) between optional blanks, then ``end``."""
    return re.compile(r"[ \t]*(?P<" + group + r">[\w.\-]{1,200})[ \t]*" + re.escape(end))


def _check_marker(label: str, marker: str | None, required: bool = True) -> None:
    if marker is None and not required:
        return
    if not isinstance(marker, str) or not marker.strip():
        raise ValueError(f"{label} must be a non-blank string, got {marker!r}")
    if marker[0].isspace():
        raise ValueError(f"{label} must not start with whitespace, got {marker!r}")


def _handler(
    name: str,
    body: BodyKind,
    close: str | None,
    name_end: str,
    param_open: str,
    param_end: str,
    param_close: str,
) -> Handler:
    closers = (close,) if close is not None else ()
    if body == "json_object":
        return json_call(name, closers, lists=True, several=close is not None)
    if body == "json_args":
        return named_json(name, _header(name_end, "name"), name_end, closers)
    assert close is not None
    syntax = TagSyntax(
        param_open=param_open,
        header_end=param_end,
        param_header=_header(param_end, "key"),
        param_close=param_close,
        call_close=close,
        lenient=True,
    )
    return tag_call(name, _header(name_end, "name"), name_end, syntax)


def declare(
    name: str,
    *,
    open: str,
    close: str | None,
    body: BodyKind = "json_object",
    name_end: str = ">",
    param_open: str = "<parameter=",
    param_end: str = ">",
    param_close: str = "</parameter>",
    models: str = "",
    example: str = "",
    notes: str = "",
) -> FormatSpec:
    """A format spec from its markers and body kind (see the module docstring); register it with
    :func:`streamparse.formats.register`.

    ``name``: lower-case identifier (``[a-z][a-z0-9_]*``), the name ``formats=[...]`` uses. ``open``: the
    marker that begins a call (must not occur in ordinary prose). ``close``: the marker that ends it, or
    None (json kinds) when the call ends with its JSON. ``name_end`` ends the tool name after ``open``
    (``json_args``, ``tag_params``); ``param_*`` spell a parameter (``tag_params``). ``example``: one output
    with a call, used by ``streamparse formats`` and the tests (default: built from the markers).
    Raises ``ValueError`` for an invalid declaration (never at parse time).
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"format name must match [a-z][a-z0-9_]*, got {name!r}")
    if body not in BODY_KINDS:
        raise ValueError(f"body must be one of {BODY_KINDS}, not {body!r}")
    _check_marker("open", open)
    _check_marker("close", close, required=body == "tag_params")
    if close is not None and close == open:
        raise ValueError("open and close must differ")
    if body != "json_object":
        _check_marker("name_end", name_end)
    if body == "tag_params":
        for label, marker in (("param_open", param_open), ("param_end", param_end), ("param_close", param_close)):
            _check_marker(label, marker)
    handler = _handler(name, body, close, name_end, param_open, param_end, param_close)

    def wire(w: Wiring) -> None:
        w.on(open, handler)

    tail = close or ""
    if body == "json_object":
        delimiters = f'{open}{{"name": NAME, "arguments": ARGS}}{tail}'
        default = f'{open}{{"name": "get_time", "arguments": {{"zone": "UTC"}}}}{tail}'
    elif body == "json_args":
        delimiters = f"{open}NAME{name_end}ARGS{tail}"
        default = f'{open}get_time{name_end}{{"zone": "UTC"}}{tail}'
    else:
        delimiters = f"{open}NAME{name_end}{param_open}KEY{param_end}VALUE{param_close}...{tail}"
        default = f"{open}get_time{name_end}{param_open}zone{param_end}UTC{param_close}{tail}"
    return FormatSpec(
        name=name,
        models=models or "declared",
        delimiters=delimiters,
        example=example or default,
        wire=wire,
        opt_in=True,
        notes=notes or f"declared format ({body})",
    )
