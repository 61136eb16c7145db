"""text-value rule: turn the raw text of an XML-style argument value into the JSON value its schema asks for.

Formats such as qwen3_coder, xml_invoke or glm45 write every argument as text
(``<parameter=minutes>15</parameter>``); only the tool schema says whether ``15`` is the integer 15 or
the string "15". The rules (the text-value rule, docs/FORMATS.md):

- string: the text unchanged (``02134``, ``true``, ``{"a":1}`` stay strings; whitespace kept).
- integer: ``-?\\d+``, or an integral float literal (``140.0``, ``1e3``).
- number: an int if integral, else a float.
- boolean: ``true``/``false`` in any case.
- object/array: JSON, then a Python literal (``{'a': True}``), converted to plain JSON values.
- a type that includes ``null``: the text ``null`` is None (whatever the order of the types); so is
  ``None`` when the format writes Python reprs (``python=True``: a template's ``{{ value }}``).
- a type list / ``anyOf`` / ``oneOf``: the first type the text can be coerced to ("fits" means by type
  only; constraints such as ``pattern`` or ``minimum`` are the validator's business).
- no schema or no type information: keep the string. A failed coercion keeps the string too, and
  validation decides. Surrounding whitespace is ignored for every non-string attempt.

Nothing here raises: the input is model output.
"""

from __future__ import annotations

import ast
import json
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Final

__all__ = ["coerce_text_value", "fit_json_value", "streams_as_string", "schema_types"]

_INTEGER: Final = re.compile(r"-?[0-9]+", re.ASCII)
_NUMBER: Final = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_MAX_DIGITS: Final = 4000  # below CPython's int<->str limit (4300); bigger "numbers" stay strings
_MAX_DEPTH: Final = 16  # nesting of anyOf/oneOf/allOf we look into
_ANY: Final = "any"  # a member without type information: accepts the text as it is, like "string"
_JSON_TYPES: Final = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})


def _json_type_of(value: Any) -> str | None:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None


def _collect(schema: Any, out: list[str], depth: int) -> None:
    """Append the types ``schema`` allows, in the order text-value rule tries them (duplicates removed later)."""
    if depth > _MAX_DEPTH or not isinstance(schema, dict):
        if schema is True or (isinstance(schema, dict) and depth > _MAX_DEPTH):
            out.append(_ANY)
        return
    declared = schema.get("type")
    if isinstance(declared, str):
        out.append(declared)
        return
    if isinstance(declared, list) and declared:
        out.extend(t for t in declared if isinstance(t, str))
        return
    for keyword in ("anyOf", "oneOf"):
        members = schema.get(keyword)
        if isinstance(members, list) and members:
            for member in members:
                before = len(out)
                _collect(member, out, depth + 1)
                if len(out) == before:
                    out.append(_ANY)  # e.g. ``{}`` or an unresolved $ref: anything goes
            return
    members = schema.get("allOf")
    if isinstance(members, list):
        # An intersection: the first member that says anything about types decides.
        for member in members:
            before = len(out)
            _collect(member, out, depth + 1)
            if len(out) > before:
                return
    if "const" in schema:
        found = _json_type_of(schema["const"])
        if found:
            out.append(found)
        return
    values = schema.get("enum")
    if isinstance(values, list):
        out.extend(t for t in map(_json_type_of, values) if t)


def schema_types(schema: Any) -> list[str]:
    """The JSON types ``schema`` allows, in text-value rule try-order, deduplicated; ``"any"`` marks a member
    without type information. Empty when the schema says nothing about types."""
    found: list[str] = []
    try:
        _collect(schema, found, 0)
    except Exception:  # a pathological schema (e.g. self-referencing dicts) means: no information
        return []
    seen: set[str] = set()
    out = []
    for t in found:
        if t not in seen and (t in _JSON_TYPES or t == _ANY):
            seen.add(t)
            out.append(t)
    return out


def streams_as_string(schema: Any) -> bool:  # (schemas are Any: a tool may give true, false, a list...)
    """Whether the value can be streamed as a JSON string fragment by fragment while it arrives.

    True when coercion will certainly keep the text as a string: no schema, no type information, or the
    first type tried is ``string`` (or untyped) and ``null`` is not allowed. ``["string", "null"]`` (and
    pydantic's ``str | None``, ``anyOf: [string, null]``) is False: the text ``null`` must become None, so
    the value is only known once complete. ``["string", "integer"]`` is True (string fits first, always);
    ``["integer", "string"]`` is False.
    """
    types = schema_types(schema)
    if not types:
        return True
    return "null" not in types and types[0] in ("string", _ANY)


def _integral(text: str) -> int | None:
    """``text`` as an int when it is an integer literal or an integral float literal."""
    if _INTEGER.fullmatch(text):
        return int(text) if len(text) <= _MAX_DIGITS else None
    if not _NUMBER.fullmatch(text) or len(text) > _MAX_DIGITS:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    # Decimal keeps "12345678901234567890.0" exact, where float would round; the exponent bound keeps
    # "1e999999999" from becoming a gigantic int.
    if not value.is_finite() or value.adjusted() > _MAX_DIGITS:
        return None
    if value != value.to_integral_value():
        return None
    return int(value)


def _number(text: str) -> int | float | None:
    integral = _integral(text)
    if integral is not None:
        return integral
    if not _NUMBER.fullmatch(text) or len(text) > _MAX_DIGITS:
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _plain_json(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data (tuples become lists), or raise ValueError.

    A Python literal may hold sets, bytes, complex numbers, non-string keys or NaN; none survives a
    JSON round trip unchanged, and the call's ``arguments`` must equal ``json.loads(arguments_json)``.
    """
    if depth > 200:
        raise ValueError("too deep")
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite number")
        return value
    if isinstance(value, (list, tuple)):
        return [_plain_json(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("non-string key")
        return {k: _plain_json(v, depth + 1) for k, v in value.items()}
    raise ValueError(f"not JSON data: {type(value).__name__}")


def _escaped_once(text: str) -> Any:
    """``text`` as JSON that was JSON-escaped once (``[{\\"id\\": 1}]``, as GLM models write an array value
    inside ``<arg_value>``): read as a string's inside, then as JSON. Only where an escaped quote shows it."""
    if '\\"' not in text:
        raise ValueError("not escaped")
    return json.loads(json.loads('"' + text + '"'))


def _structured(text: str, kind: type) -> Any:
    """``text`` parsed as JSON, else as a Python literal, else as JSON escaped once, when the result is a
    ``kind`` (dict or list)."""
    for parse in (json.loads, ast.literal_eval, _escaped_once):
        try:
            value = _plain_json(parse(text))
        except (ValueError, SyntaxError, TypeError, OverflowError, RecursionError, MemoryError):
            continue
        if isinstance(value, kind):
            return value
    return _FAILED


_FAILED: Final = object()


def _coerce_to(kind: str, raw: str, text: str) -> Any:
    """``raw`` coerced to JSON type ``kind`` (``text`` is ``raw`` stripped), or ``_FAILED``."""
    if kind in ("string", _ANY):
        return raw
    if kind == "integer":
        integral = _integral(text)
        return _FAILED if integral is None else integral
    if kind == "number":
        number = _number(text)
        return _FAILED if number is None else number
    if kind == "boolean":
        lowered = text.lower()
        if lowered == "true":
            return True
        if lowered == "false":
            return False
        return _FAILED
    if kind == "object":
        return _structured(text, dict)
    if kind == "array":
        return _structured(text, list)
    return _FAILED


def coerce_text_value(raw: str, schema: Any, python: bool = False) -> Any:
    """The value of a text-valued argument under text-value rule (see the module docstring). Never raises."""
    try:
        types = schema_types(schema)
        if not types:
            return raw
        text = raw.strip()
        if "null" in types and (text == "null" or (python and text == "None")):
            return None
        for kind in types:
            value = _coerce_to(kind, raw, text)
            if value is not _FAILED:
                return value
    except Exception:  # defensive: model output must never make the parser raise
        return raw
    return raw


def fit_json_value(value: Any, raw: str, schema: Any) -> Any:
    """A value the model wrote as JSON (DSML ``string="false"``), fitted to its schema: kept when its JSON type
    is one the schema allows (an integral number is an int, as text-value rule has it); otherwise the text is
    read under text-value rule (``null`` for a string is the text "null"), as vLLM's DSML parser does."""
    types = schema_types(schema)
    if not types or _ANY in types:
        return value
    found = _json_type_of(value)
    if found in ("integer", "number") and ("number" in types or "integer" in types):
        return coerce_text_value(raw, schema) if isinstance(value, float) else value
    return value if found in types else coerce_text_value(raw, schema)
