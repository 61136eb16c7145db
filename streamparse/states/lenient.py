"""Lenient typing for JSON arguments: a string where the tool's schema can only mean another type.

Models write ``{"verbose": "true"}`` for a boolean or ``{"count": "5"}`` for an integer. When the schema
of that argument admits no string at all, the text has exactly one meaning, so the value is converted
with the text-value rule the XML-style formats use (:func:`streamparse.states.coerce.coerce_text_value`)
and the call records the repair ``lenient_types``. ``coercion="strict"`` turns this off: the call is
validated as written.

Only top-level arguments are converted (their schemas are what ``ToolSet.property_schema`` resolves),
and only once the call's name is known (the usual order: name, then arguments). The string is held
from its opening quote to its closing one (it cannot be streamed: ``"5"`` becomes ``5``), so the deltas
carry the converted value and still join to ``arguments_json``, whatever the chunking.
"""

from __future__ import annotations

import json
from typing import Any, Final

from ..core.engine import Engine
from ..core.json_reader import JsonReader, dump_json
from .coerce import coerce_text_value, schema_types

LENIENT_TYPES: Final = "lenient_types"  # repair name in ToolCall.repairs and the stats


def lenient_on(eng: Engine) -> bool:
    """Whether lenient typing can apply in this stream at all (tools given, not strict)."""
    cfg: Any = eng.cfg
    return cfg.tools is not None and getattr(cfg, "coercion", "strict") == "lenient"


def _admits_no_string(schema: Any) -> Any:
    """``schema`` when it admits no string (a string written for it has one meaning), else None."""
    if schema is None:
        return None
    types = schema_types(schema)
    if not types or "string" in types or "any" in types:
        return None
    return schema


# The arguments of a tool whose schema admits no string ({key: schema}; None: such a key cannot be listed
# up front), per tool set and tool, decided once: a stream calls the same few tools many times.
_PLANS: dict[int, tuple[Any, dict[str, dict[str, dict[str, Any]] | None]]] = {}
_PLANS_MAX: Final = 64  # tool sets remembered (a server builds one per request: all dropped when full)


def lenient_targets(eng: Engine) -> dict[str, dict[str, Any]] | None:
    """The arguments of the open call's tool that lenient typing converts, by key; ``{}`` when none can be
    (a tool whose arguments all admit strings, or no name yet, or no call); None when they cannot be listed
    (a tool set without ``parameters``: each key is then looked up as it comes)."""
    call = eng.call
    tools: Any = eng.cfg.tools
    if call is None or call.name is None or call.closed or tools is None:
        return {}
    entry = _PLANS.get(id(tools))
    if entry is None or entry[0] is not tools:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()  # (one atomic step: parsers on other threads may be looking plans up meanwhile)
        entry = _PLANS[id(tools)] = (tools, {})  # (the tool set is kept with its id: the id stays its own)
    plans = entry[1]
    name = call.name
    if name in plans:
        return plans[name]
    declared = getattr(tools, "parameters", None)  # (ToolSet's: a copy of the tool's schema, taken once here)
    plan: dict[str, dict[str, Any]] | None = None
    if declared is not None:
        try:
            props = declared(name).get("properties")
        except KeyError:  # an undeclared tool: rejected unknown_tool, nothing to convert
            props = None
        plan = {}
        for key in props if isinstance(props, dict) else ():
            target = _admits_no_string(tools.property_schema(name, key))
            if target is not None:
                plan[key] = target
    plans[name] = plan
    return plan


def _target_schema(eng: Engine, key: str) -> Any:
    """The schema of argument ``key`` of the open call when it admits no string, else None."""
    call = eng.call
    tools: Any = eng.cfg.tools
    if call is None or call.name is None or call.closed or tools is None:
        return None
    return _admits_no_string(tools.property_schema(call.name, key))


class LenientValues:
    """Holds one top-level string argument whose schema wants another type; converts it when it closes.

    Works on the reader's output list: ``reader.hold`` keeps ``drain`` from releasing the string."""

    __slots__ = ("eng", "reader", "key", "schema", "targets")

    def __init__(self, eng: Engine, reader: JsonReader) -> None:
        self.eng = eng
        self.reader = reader
        self.key: str | None = None
        self.schema: Any = None
        # The open call's arguments to convert (lenient_targets), once the object they are in began; None:
        # each key is looked up as it comes.
        self.targets: dict[str, dict[str, Any]] | None = None

    @property
    def holding(self) -> bool:
        return self.schema is not None

    def plan(self) -> bool:
        """The arguments object begins: decide which of its members may be converted. False when none can
        (the reader then need not report its members at all)."""
        targets = self.targets = lenient_targets(self.eng)
        return targets is None or bool(targets)

    def on_key(self, key: str) -> None:
        self.key = key

    def on_start(self, kind: str) -> None:
        key, self.key = self.key, None
        if kind != '"' or key is None:
            return
        targets = self.targets
        if targets is None:
            schema = _target_schema(self.eng, key)
        else:
            schema = targets.get(key)
            call = self.eng.call
            if schema is not None and (call is None or call.closed):
                schema = None  # (as _target_schema: a call rejected too_large converts nothing)
        if schema is not None:
            self.schema = schema
            self.reader.hold = len(self.reader.out)  # the opening quote is appended next

    def on_end(self) -> None:
        schema, self.schema = self.schema, None
        reader = self.reader
        out = reader.out
        hold = reader.hold
        reader.hold = -1
        if schema is None or hold < 0:
            return
        literal = "".join(out[hold:])
        try:
            text = json.loads(literal)
        except ValueError:
            return  # leave it as written: validation decides
        value = coerce_text_value(text, schema)
        if isinstance(value, str):
            return
        del out[hold:]
        out.append(dump_json(value))
        self.eng.add_repairs([LENIENT_TYPES])


class LenientArgsSink:
    """JSON sink for an arguments object read at depth 0 (``JsonArgsState``): members are depth 1."""

    __slots__ = ("values",)

    def __init__(self, eng: Engine, reader: JsonReader) -> None:
        self.values = LenientValues(eng, reader)

    def needed(self) -> bool:
        """Whether the call (its name known from the header) has any argument to convert: else the reader
        goes without this sink."""
        return self.values.plan()

    def value_start(self, depth: int, kind: str, pos: int) -> None:
        if depth == 1:
            self.values.on_start(kind)

    def value_end(self, depth: int, pos: int) -> None:
        if depth == 1 and self.values.holding:
            self.values.on_end()

    def key(self, depth: int, key: str) -> None:
        if depth == 1:
            self.values.on_key(key)
