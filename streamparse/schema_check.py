"""Tool schemas, cheaply: a structural check run when a ``ToolSet`` is built, and validators compiled only
when first used.

Compiling a validator means checking the schema against its metaschema (``check_schema``), which costs
far more than the schema's size in time and memory; a server that receives thousands of tools per
request must not pay that for tools that are never called. So construction runs :func:`shape_problem`
(the mistakes tool authors actually make, in one pass, no recursion) and ``ToolSet`` holds a
:class:`LazyValidator` per schema, which compiles on the first ``iter_errors``/``is_valid``. A schema that
passes the shape check but not the metaschema answers every call with one error naming the problem, so
its calls are rejected with a clear reason instead of the constructor raising.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jsonschema.exceptions
from jsonschema.protocols import Validator

__all__ = ["shape_problem", "LazyValidator", "lazy_validator"]

_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
_ONE_SCHEMA = (
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains")
_OLD_DRAFT = re.compile(r"draft-0[3-7]|draft/2019-09")  # drafts where ``items`` may be a list of schemas


def _node_problem(node: dict[str, Any], old_draft: bool) -> tuple[str, str] | None:
    """The first keyword of one schema object whose value has the wrong kind, as (keyword, message)."""
    declared = node.get("type")
    if declared is not None:
        names = declared if isinstance(declared, list) else [declared]
        for name in names:
            if not isinstance(name, str) or name not in _TYPES:
                return "type", f"{name!r} is not a JSON Schema type ({', '.join(sorted(_TYPES))})"
    required = node.get("required")
    if required is not None and not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
        return "required", f"{required!r} is not a list of property names"
    if "enum" in node and not isinstance(node["enum"], list):
        return "enum", f"{node['enum']!r} is not a list"
    pattern = node.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            return "pattern", f"{pattern!r} is not a string"
        try:
            re.compile(pattern)
        except re.error as exc:
            return "pattern", f"{pattern!r} is not a regular expression ({exc})"
    for key in _COUNTS:
        value = node.get(key)
        whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())  # 5.0 counts
        if value is not None and (isinstance(value, bool) or not whole or value < 0):
            return key, f"{value!r} is not a non-negative integer"
    for key in _SCHEMA_MAPS:
        if key in node and not isinstance(node[key], dict):
            return key, f"{node[key]!r} is not an object"
    for key in _SCHEMA_LISTS:
        if key in node and not isinstance(node[key], list):
            return key, f"{node[key]!r} is not an array"
    items = node.get("items")
    if isinstance(items, list) and not old_draft:
        return "items", "an array of schemas is not allowed here (draft 2020-12: use prefixItems)"
    return None


def _subschemas(node: dict[str, Any], path: list[Any]) -> Iterator[tuple[Any, list[Any]]]:
    for key in _ONE_SCHEMA:
        if key in node:
            yield node[key], [*path, key]
    items = node.get("items")
    if isinstance(items, list):
        yield from ((s, [*path, "items", i]) for i, s in enumerate(items))
    elif items is not None:
        yield items, [*path, "items"]
    for key in _SCHEMA_LISTS:
        members = node.get(key)
        if isinstance(members, list):
            yield from ((s, [*path, key, i]) for i, s in enumerate(members))
    for key in _SCHEMA_MAPS:
        members = node.get(key)
        if isinstance(members, dict):
            yield from ((s, [*path, key, name]) for name, s in members.items())


def shape_problem(schema: dict[str, Any]) -> tuple[list[Any], str] | None:
    """``(path, message)`` for the first subschema with a wrong-kind keyword, else None. Iterative, so a
    deeply nested schema cannot exhaust the stack; linear in the schema's size."""
    declared = schema.get("$schema")
    old_draft = isinstance(declared, str) and bool(_OLD_DRAFT.search(declared))
    stack: list[tuple[Any, list[Any]]] = [(schema, [])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return path, f"{node!r} is not a schema (an object or a boolean)"
        problem = _node_problem(node, old_draft)
        if problem is not None:
            return [*path, problem[0]], problem[1]
        stack.extend(_subschemas(node, path))
    return None


Build = Callable[[dict[str, Any], str], Validator]
RenderPath = Callable[[Iterable[Any]], str]


class _InvalidSchema:
    """Stands for a schema that failed its metaschema check: every instance gets the same one error."""

    schema: Any = None  # no schema to pre-check (schema_fast): jsonschema's error is the answer

    def __init__(self, message: str) -> None:
        self.message = message

    def iter_errors(self, instance: Any) -> Iterator[jsonschema.exceptions.ValidationError]:
        yield jsonschema.exceptions.ValidationError(self.message)

    def is_valid(self, instance: Any) -> bool:
        return False


class LazyValidator:
    """A validator compiled on first use by ``build(schema, key)``; one is shared by every tool (and every
    ``ToolSet``) with the same canonical schema ``key`` (:func:`lazy_validator`)."""

    __slots__ = ("schema", "key", "_build", "_render_path", "_compiled", "fast", "__weakref__")

    def __init__(self, schema: dict[str, Any], key: str, build: Build, render_path: RenderPath) -> None:
        self.schema, self.key = schema, key
        self._build, self._render_path = build, render_path
        self._compiled: Validator | _InvalidSchema | None = None
        # The compiled pre-check of this schema, kept here by ``schema_fast.surely_valid`` (None: not looked
        # up yet; False: there is none, jsonschema decides).
        self.fast: Any = None

    def compiled(self) -> Validator | _InvalidSchema:
        if self._compiled is None:  # a race compiles twice at worst; the shared cache keeps one
            try:
                self._compiled = self._build(self.schema, self.key)
            except jsonschema.exceptions.SchemaError as exc:
                where = self._render_path(exc.absolute_path)
                detail = exc.message if len(exc.message) <= 300 else exc.message[:299] + "…"
                message = f"the tool's parameters are not a valid JSON Schema at {where}: {detail}"
                self._compiled = _InvalidSchema(message)
        return self._compiled

    def iter_errors(self, instance: Any) -> Iterator[jsonschema.exceptions.ValidationError]:
        return iter(self.compiled().iter_errors(instance))

    def is_valid(self, instance: Any) -> bool:
        return self.compiled().is_valid(instance)

    def __getattr__(self, name: str) -> Any:  # anything else a caller uses of a jsonschema validator
        return getattr(self.compiled(), name)


_shared: weakref.WeakValueDictionary[str, LazyValidator] = weakref.WeakValueDictionary()
_shared_lock = threading.Lock()


def lazy_validator(schema: dict[str, Any], key: str, build: Build, render_path: RenderPath) -> LazyValidator:
    """The one :class:`LazyValidator` for canonical schema ``key`` while any ``ToolSet`` holds it."""
    with _shared_lock:
        found = _shared.get(key)
        if found is None:
            found = _shared[key] = LazyValidator(schema, key, build, render_path)
        return found
