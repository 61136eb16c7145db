"""Formats declared as data: the public way to add a format without forking.

:func:`declare` takes a :class:`~streamparse.formats.declaration.Declaration` (or its dict / JSON form)
and compiles it (:mod:`streamparse.formats.compiler`) into an ordinary
:class:`~streamparse.formats.base.FormatSpec` whose ``wire`` uses the same handler factories and body states
as the built-in formats, so a declared format gets what they get: chunking invariance, repairs,
validation, the call life cycle, ``max_call_chars``, snapshots. :func:`streamparse.formats.register` adds it
to the catalog.

The keyword form, by markers and body kind, builds a declaration (``OPEN``/``CLOSE`` are the markers,
``NAME`` a tool name, ``ARGS`` a JSON object):

- ``"json_object"``: ``OPEN {"name": NAME, "arguments": ARGS} CLOSE`` (also ``"parameters"``, a list of
  such objects, or several objects separated by commas), as hermes.
- ``"json_args"``: ``OPEN NAME NAME_END ARGS CLOSE``, as function_tag's ``<function=NAME>{...}</function>``.
- ``"tag_params"``: ``OPEN NAME NAME_END`` then ``PARAM_OPEN KEY PARAM_END VALUE PARAM_CLOSE`` per argument,
  then ``CLOSE``, as qwen3_coder; values are text, converted by the tool's schema (the text-value rule).

Without ``close`` (json kinds only) a call ends when its JSON closes (early completion), as mistral.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from .base import FormatSpec
from .compiler import compile_declaration
from .declaration import Call, Declaration, HeaderName, JsonArgs, JsonName, TaggedArgs
from .declaration_io import load

__all__ = ["BodyKind", "BODY_KINDS", "declare"]

BodyKind: TypeAlias = Literal["json_object", "json_args", "tag_params"]
BODY_KINDS: tuple[BodyKind, ...] = ("json_object", "json_args", "tag_params")


def declare(
    name: str | Declaration | dict[str, Any],
    *,
    open: str | None = None,
    close: str | None = None,
    body: BodyKind = "json_object",
    name_end: str = ">",
    param_open: str = "<parameter=",
    param_end: str = ">",
    param_close: str = "</parameter>",
    models: str = "",
    example: str = "",
    notes: str = "",
) -> FormatSpec:
    """A format spec from a declaration, or from markers and a body kind (see the module docstring);
    register it with :func:`streamparse.formats.register`.

    ``name``: a :class:`Declaration` (or its ``to_dict()`` form), or the lower-case identifier
    (``[a-z][a-z0-9_]*``) of a format given by keywords. ``open``: the marker that begins a call (must not
    occur in ordinary prose). ``close``: the marker that ends it, or None (json kinds) when the call ends
    with its JSON. ``name_end`` ends the tool name after ``open`` (``json_args``, ``tag_params``);
    ``param_*`` spell a parameter (``tag_params``). ``example``: one output with a call, used by
    ``streamparse formats`` and the tests (default: built from the markers).
    Raises ``ValueError`` for an invalid declaration (never at parse time).
    """
    if isinstance(name, (Declaration, dict)):
        if open is not None or close is not None:
            raise ValueError("declare() takes a Declaration or keywords, not both")
        return compile_declaration(load(name))
    if body not in BODY_KINDS:
        raise ValueError(f"body must be one of {BODY_KINDS}, not {body!r}")
    if open is None:
        raise ValueError("open must be a non-blank string, got None")
    if body == "tag_params" and close is None:
        raise ValueError("close must be a non-blank string for tag_params, got None")
    call: Call
    if body == "json_object":
        call = Call(open, close, JsonName())
    elif body == "json_args":
        call = Call(open, close, HeaderName(name_end), JsonArgs())
    else:
        call = Call(open, close, HeaderName(name_end), TaggedArgs(param_open, param_end, param_close))
    decl = Declaration(name, call, models=models, example=example, notes=notes or f"declared format ({body})")
    return compile_declaration(decl)
