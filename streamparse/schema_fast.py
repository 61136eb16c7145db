"""The compiled pre-check of tool arguments: jsonschema-rs, about 0.3 µs for a small call where jsonschema
takes about 20 µs (measured in benchmarks/run.py's small-call workload: validation went from ~40 % of a
small call's cost to ~1 %).

It only ever says "valid": whatever it refuses, and every schema it cannot take (a non-local ``$ref``, an
``$id``, a ``$schema``, ``pattern`` or keyword it does not know), is judged by jsonschema, the reference,
which also writes the rejection's message and path (``ToolSet.validate``), so rejections read the same.
"""

from __future__ import annotations

import importlib
import threading
from collections import OrderedDict
from typing import Any

__all__ = ["DATA_KEYWORDS", "compiled_for", "surely_valid"]

# Keywords whose values are data, not subschemas: never rewritten, and a ``$ref`` in them is no reference.
DATA_KEYWORDS = frozenset({"const", "default", "enum", "examples", "example"})
CACHE_SIZE = 512
_lock = threading.Lock()

# A compiled validator per jsonschema validator (so per distinct schema), built at its first call:
# id -> (the jsonschema validator, kept so that the id stays its own; the compiled one, or None).
_compiled: OrderedDict[int, tuple[Any, Any]] = OrderedDict()


def _compiled_library() -> Any:
    """jsonschema_rs (a dependency); without it jsonschema alone decides, only slower."""
    try:
        return importlib.import_module("jsonschema_rs")
    except ImportError:  # pragma: no cover - a broken install
        return None


_rs: Any = _compiled_library()


def compiled_for(validator: Any) -> Any:
    """The compiled validator of a jsonschema validator's schema (built at its first call, shared), or None
    where jsonschema alone must decide."""
    entry = _compiled.get(id(validator))
    if entry is not None and entry[0] is validator:
        return entry[1]
    compiled = _compile_fast(validator.schema)
    with _lock:
        _compiled[id(validator)] = (validator, compiled)
        while len(_compiled) > CACHE_SIZE:
            _compiled.popitem(last=False)
    return compiled


def _compile_fast(schema: Any) -> Any:
    if _rs is None or not isinstance(schema, dict) or _has_remote_ref(schema):
        return None
    try:  # formats are annotations, as for jsonschema without a FormatChecker
        return _rs.validator_for(schema, validate_formats=False)
    except Exception:  # a $schema, a pattern or a keyword it does not know: jsonschema decides
        return None


def _has_remote_ref(schema: Any) -> bool:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("$ref", "$dynamicRef", "$recursiveRef") and not (
                isinstance(value, str) and value.startswith("#")
            ):
                return True
            if key in ("$id", "$anchor", "$dynamicAnchor") or (key not in DATA_KEYWORDS and _has_remote_ref(value)):
                return True  # (an $id changes what references resolve against: leave it to jsonschema)
        return False
    if isinstance(schema, list):
        return any(_has_remote_ref(item) for item in schema)
    return False


def surely_valid(validator: Any, arguments: Any) -> bool:
    """True when the compiled validator of ``validator`` (a ``schema_check.LazyValidator``) accepts
    ``arguments``; False means: ask jsonschema. The compiled validator is looked up once and kept on
    ``validator.fast`` (where a call finds it in one step: this runs once per validated call)."""
    compiled = validator.fast
    if compiled is None:  # (a race looks it up twice: the same one, from the shared cache)
        compiled = compiled_for(validator.compiled())
        validator.fast = compiled = False if compiled is None else compiled
    if compiled is False:
        return False
    try:
        return bool(compiled.is_valid(arguments))
    except Exception:  # a value it cannot take: jsonschema decides
        return False
