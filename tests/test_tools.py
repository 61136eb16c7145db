"""ToolSet: definition styles, construction errors, validation rule validation, shared validators, schema lookup."""

from __future__ import annotations

import copy
import enum
import uuid
import warnings
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, ConfigDict, Field

from streamparse import tools as tools_module
from streamparse.tools import ToolSet

ALARM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "minutes": {"type": "integer"},
        "label": {"type": "string", "default": "alarm"},
    },
    "required": ["minutes"],
}
ALARM_DOC = "Set an alarm."


class set_alarm(BaseModel):  # noqa: N801 - the class name is the tool name
    """Set an alarm."""

    minutes: int
    label: str = "alarm"


def set_alarm_fn(minutes: int, label: str = "alarm") -> str:
    """Set an alarm."""
    return f"{label}:{minutes}"


async def set_alarm_async(minutes: int, label: str = "alarm", *args: Any, **kwargs: Any) -> str:
    """Set an alarm."""
    return f"{label}:{minutes}"


def unique_schema(**properties: Any) -> dict[str, Any]:
    """An object schema no other test uses, so the process-wide validator cache starts cold for it."""
    return {"type": "object", "description": uuid.uuid4().hex, "properties": properties}


# --------------------------------------------------------------------------- definition styles


@pytest.mark.parametrize(
    "definition",
    [
        pytest.param(
            {"type": "function", "function": {"name": "t", "description": ALARM_DOC, "parameters": ALARM_SCHEMA}},
            id="openai-chat",
        ),
        pytest.param({"name": "t", "description": ALARM_DOC, "parameters": ALARM_SCHEMA}, id="bare-function"),
        pytest.param(
            {"type": "function", "name": "t", "description": ALARM_DOC, "parameters": ALARM_SCHEMA},
            id="openai-responses",
        ),
        pytest.param({"name": "t", "description": ALARM_DOC, "input_schema": ALARM_SCHEMA}, id="anthropic"),
    ],
)
def test_dict_styles_give_the_declared_schema_and_description(definition: dict[str, Any]) -> None:
    ts = ToolSet.from_any([definition])
    assert ts is not None
    assert ts.names == frozenset({"t"})
    assert ts.parameters("t") == ALARM_SCHEMA
    assert ts.description("t") == ALARM_DOC


@pytest.mark.parametrize(
    "definition",
    [set_alarm, set_alarm_fn, set_alarm_async],
    ids=["pydantic-model", "function", "async-function-with-varargs"],
)
def test_python_styles_give_the_same_schema_as_the_equivalent_dict(definition: Any) -> None:
    ts = ToolSet.from_any([definition])
    assert ts is not None
    (name,) = ts.names
    assert name == definition.__name__
    assert ts.parameters(name) == ALARM_SCHEMA
    assert ts.description(name) == ALARM_DOC


def test_mapping_of_name_to_schema_is_accepted() -> None:
    ts = ToolSet.from_any({"set_alarm": ALARM_SCHEMA, "ping": {"type": "object"}})
    assert ts is not None
    assert ts.names == frozenset({"set_alarm", "ping"})
    assert ts.parameters("set_alarm") == ALARM_SCHEMA


def test_mapping_values_may_be_models_functions_or_definitions() -> None:
    ts = ToolSet.from_any(
        {
            "a": set_alarm,
            "b": set_alarm_fn,
            "c": {"description": ALARM_DOC, "parameters": ALARM_SCHEMA},
        }
    )
    assert ts is not None
    assert ts.names == frozenset({"a", "b", "c"})
    assert ts.parameters("a") == ts.parameters("b") == ts.parameters("c") == ALARM_SCHEMA
    assert ts.callable_for("b") is set_alarm_fn


def test_styles_mix_freely_in_one_list() -> None:
    ts = ToolSet.from_any(
        [
            {"type": "function", "function": {"name": "a", "parameters": ALARM_SCHEMA}},
            {"name": "b", "input_schema": ALARM_SCHEMA},
            set_alarm,
            set_alarm_fn,
        ]
    )
    assert ts is not None
    assert ts.names == frozenset({"a", "b", "set_alarm", "set_alarm_fn"})
    assert len(ts) == 4
    assert "a" in ts and "set_alarm_fn" in ts and "nope" not in ts and 3 not in ts


def test_missing_parameters_means_an_object_schema_without_properties() -> None:
    ts = ToolSet.from_any([{"type": "function", "function": {"name": "ping"}}, {"name": "pong"}])
    assert ts is not None
    assert ts.parameters("ping") == {"type": "object", "properties": {}}
    assert ts.parameters("pong") == {"type": "object", "properties": {}}
    assert ts.validate("ping", {}) is None


def test_model_config_title_names_the_tool() -> None:
    class Alarm(BaseModel):
        model_config = ConfigDict(title="set_timer")
        minutes: int

    ts = ToolSet.from_any([Alarm])
    assert ts is not None
    assert ts.names == frozenset({"set_timer"})


def test_model_field_descriptions_nested_models_and_enums_are_kept() -> None:
    class Unit(enum.Enum):
        MIN = "min"
        SEC = "sec"

    class Leg(BaseModel):
        city: str

    class Trip(BaseModel):
        legs: list[Leg]
        unit: Unit = Unit.MIN
        minutes: int = Field(description="how long")

    ts = ToolSet.from_any([Trip])
    assert ts is not None
    params = ts.parameters("Trip")
    assert params["properties"]["minutes"] == {"type": "integer", "description": "how long"}
    assert "Leg" in params["$defs"] and "Unit" in params["$defs"]
    assert ts.validate("Trip", {"legs": [{"city": "Lisbon"}], "minutes": 3}) is None
    assert ts.validate("Trip", {"legs": [{"town": "Lisbon"}], "minutes": 3}) == (
        "$.legs[0]: 'city' is a required property"
    )


def test_function_parameters_without_default_are_required_and_varargs_are_ignored() -> None:
    def search(query: str, limit: int = 10, *terms: str, verbose: bool, **extra: Any) -> None:
        pass

    ts = ToolSet.from_any([search])
    assert ts is not None
    params = ts.parameters("search")
    assert set(params["properties"]) == {"query", "limit", "verbose"}
    assert sorted(params["required"]) == ["query", "verbose"]
    assert params["properties"]["limit"] == {"type": "integer", "default": 10}


def test_function_parameters_may_use_names_that_clash_with_pydantic_attributes() -> None:
    def fetch(json: bool, model_config: str, _private: int = 0, schema: str = "x") -> None:
        pass

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "shadows an attribute" warning either
        ts = ToolSet.from_any([fetch])
    assert ts is not None
    assert set(ts.parameters("fetch")["properties"]) == {"json", "model_config", "_private", "schema"}
    assert ts.validate("fetch", {"json": True, "model_config": "a"}) is None
    detail = ts.validate("fetch", {"json": "yes", "model_config": "a"})
    assert detail == "$.json: 'yes' is not of type 'boolean'"


def test_unannotated_function_parameters_accept_anything() -> None:
    def echo(value, times=1):  # type: ignore[no-untyped-def]
        return value

    ts = ToolSet.from_any([echo])
    assert ts is not None
    assert ts.validate("echo", {"value": [1, {"a": None}]}) is None
    assert ts.validate("echo", {}) == "$: 'value' is a required property"


def test_callable_for_returns_the_function_only_for_function_tools() -> None:
    ts = ToolSet.from_any([set_alarm_fn, set_alarm_async, set_alarm, {"name": "d"}])
    assert ts is not None
    assert ts.callable_for("set_alarm_fn") is set_alarm_fn
    assert ts.callable_for("set_alarm_async") is set_alarm_async
    assert ts.callable_for("set_alarm") is None
    assert ts.callable_for("d") is None
    assert ts.callable_for("unknown") is None


def test_from_any_returns_none_without_tools_and_passes_a_toolset_through() -> None:
    assert ToolSet.from_any(None) is None
    assert ToolSet.from_any([]) is None
    assert ToolSet.from_any(()) is None
    assert ToolSet.from_any({}) is None
    ts = ToolSet.from_any([set_alarm])
    assert ToolSet.from_any(ts) is ts


def test_from_any_accepts_a_generator_and_a_single_definition() -> None:
    gen = ToolSet.from_any(d for d in [set_alarm, set_alarm_fn])
    assert gen is not None and gen.names == frozenset({"set_alarm", "set_alarm_fn"})
    single = ToolSet.from_any({"type": "function", "function": {"name": "x", "parameters": ALARM_SCHEMA}})
    assert single is not None and single.names == frozenset({"x"})
    lone_fn = ToolSet.from_any(set_alarm_fn)
    assert lone_fn is not None and lone_fn.names == frozenset({"set_alarm_fn"})


# --------------------------------------------------------------------------- construction errors


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ([{"parameters": ALARM_SCHEMA}], "no name"),
        ([{"name": "", "parameters": ALARM_SCHEMA}], "no name"),
        ([{"type": "function", "function": {"parameters": ALARM_SCHEMA}}], "no name"),
        ([{"name": "a"}, {"name": "a", "parameters": ALARM_SCHEMA}], "duplicate tool name 'a'"),
        ([set_alarm, {"name": "set_alarm"}], "duplicate tool name 'set_alarm'"),
        ([{"name": "a", "parameters": {"type": "integger"}}], "invalid JSON Schema"),
        (
            [{"name": "a", "parameters": {"properties": {"x": {"type": "integger"}}}}],
            r"invalid JSON Schema at \$\.properties\.x\.type",
        ),
        ([{"name": "a", "parameters": {"type": "object", "required": "minutes"}}], "invalid JSON Schema"),
        (
            [{"name": "a", "parameters": {"type": "object", "properties": {"x": {"pattern": "("}}}}],
            "invalid JSON Schema",
        ),
        ([{"name": "a", "parameters": {"type": "string"}}], "object schema"),
        ([{"name": "a", "parameters": ["not", "a", "schema"]}], "JSON Schema object"),
        ([{"name": "a", "parameters": {"properties": {"x": {"$ref": "#/$defs/No"}}}}], "does not resolve"),
        ([{"name": "a", "parameters": {"properties": {"x": {"default": object()}}}}], "JSON-serialisable"),
        ([42], "not supported"),
        ("set_alarm", "string"),
        ({"a": 42}, "expected a JSON Schema"),
    ],
)
def test_bad_definitions_raise_value_error_naming_the_problem(tools: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolSet.from_any(tools)


def test_a_callable_without_a_name_is_rejected() -> None:
    class Anonymous:
        def __call__(self, x: int) -> None:
            pass

    with pytest.raises(ValueError, match="no name"):
        ToolSet.from_any([Anonymous()])


# --------------------------------------------------------------------------- validation (validation rule)

TRIP = {
    "type": "object",
    "properties": {
        "minutes": {"type": "integer"},
        "ratio": {"type": "number"},
        "unit": {"enum": ["min", "sec"]},
        "trip": {
            "type": "object",
            "properties": {
                "legs": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                        "additionalProperties": False,
                    },
                }
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}},
        "weird key": {"type": "integer"},
    },
    "required": ["minutes"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def trip_tools() -> ToolSet:
    ts = ToolSet.from_any({"plan": TRIP})
    assert ts is not None
    return ts


@pytest.mark.parametrize(
    ("arguments", "detail"),
    [
        ({}, "$: 'minutes' is a required property"),
        ({"minutes": "four"}, "$.minutes: 'four' is not of type 'integer'"),
        ({"minutes": 3.5}, "$.minutes: 3.5 is not of type 'integer'"),
        ({"minutes": True}, "$.minutes: True is not of type 'integer'"),
        ({"minutes": 1, "ratio": False}, "$.ratio: False is not of type 'number'"),
        ({"minutes": 1, "unit": "hour"}, "$.unit: 'hour' is not one of ['min', 'sec']"),
        ({"minutes": 1, "tags": ["a", 2]}, "$.tags[1]: 2 is not of type 'string'"),
        (
            {"minutes": 1, "trip": {"legs": [{"city": "Lisbon"}, {"city": 5}]}},
            "$.trip.legs[1].city: 5 is not of type 'string'",
        ),
        (
            {"minutes": 1, "trip": {"legs": [{"city": "Porto", "by": "train"}]}},
            "$.trip.legs[0]: Additional properties are not allowed ('by' was unexpected)",
        ),
        ({"minutes": 1, "extra": 1}, "$: Additional properties are not allowed ('extra' was unexpected)"),
        ({"minutes": 1, "weird key": "x"}, "$[\"weird key\"]: 'x' is not of type 'integer'"),
    ],
)
def test_validate_names_the_failing_path(trip_tools: ToolSet, arguments: dict[str, Any], detail: str) -> None:
    assert trip_tools.validate("plan", arguments) == detail


def test_validate_accepts_valid_arguments(trip_tools: ToolSet) -> None:
    args = {"minutes": 4, "ratio": 0.5, "unit": "sec", "trip": {"legs": [{"city": "Faro"}]}, "tags": []}
    assert trip_tools.validate("plan", args) is None


def test_jsonschema_treats_bool_as_neither_integer_nor_number() -> None:
    # validation rule relies on this behaviour of jsonschema; pin it so an upgrade cannot silently change it.
    validator = jsonschema.Draft202012Validator({"type": "integer"})
    assert not validator.is_valid(True)
    assert not jsonschema.Draft202012Validator({"type": "number"}).is_valid(False)
    assert not validator.is_valid(3.5)


def test_validate_never_fills_defaults() -> None:
    ts = ToolSet.from_any([set_alarm_fn])
    assert ts is not None
    args = {"minutes": 5}
    assert ts.validate("set_alarm_fn", args) is None
    assert args == {"minutes": 5}
    assert ts.validate("set_alarm_fn", {"label": "x"}) == "$: 'minutes' is a required property"


def test_validate_reports_unknown_tools_and_non_object_arguments(trip_tools: ToolSet) -> None:
    assert trip_tools.validate("nope", {}) == "$: unknown tool 'nope'"
    assert trip_tools.validate("plan", ["minutes"]) == "$: ['minutes'] is not of type 'object'"  # type: ignore[arg-type]


def test_validate_truncates_details_that_embed_huge_values(trip_tools: ToolSet) -> None:
    detail = trip_tools.validate("plan", {"minutes": "x" * 100_000})
    assert detail is not None
    assert detail.startswith("$.minutes: 'xxx")
    assert len(detail) < 400


def test_validate_fails_closed_when_the_schema_cannot_be_evaluated() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/schema.json"}}}
    ts = ToolSet.from_any({"remote": schema})
    assert ts is not None
    detail = ts.validate("remote", {"a": 1})
    assert detail is not None and detail.startswith("$: the schema could not be evaluated")
    assert ts.validate("remote", {}) is None  # the unresolvable branch is only reached with "a"


def test_dollar_schema_selects_the_draft() -> None:
    # Draft 7 allows tuple-form "items"; 2020-12 (the default) would reject this schema as invalid.
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"pair": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}},
    }
    ts = ToolSet.from_any({"p": draft7})
    assert ts is not None
    assert ts.validate("p", {"pair": [1, "a"]}) is None
    assert ts.validate("p", {"pair": ["a", "a"]}) == "$.pair[0]: 'a' is not of type 'integer'"
    default = {k: v for k, v in draft7.items() if k != "$schema"}
    with pytest.raises(ValueError, match="invalid JSON Schema"):
        ToolSet.from_any({"p": default})


def test_default_draft_is_2020_12_and_unknown_dollar_schema_falls_back_silently() -> None:
    schema = {
        "$schema": "https://example.invalid/my-meta",
        "type": "object",
        "properties": {"pair": {"type": "array", "prefixItems": [{"type": "integer"}], "items": False}},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ts = ToolSet.from_any({"p": schema})
    assert ts is not None
    assert ts.validate("p", {"pair": [1]}) is None
    assert ts.validate("p", {"pair": [1, 2]}) is not None  # "items": false forbids extra elements


def test_string_formats_are_annotations_not_assertions() -> None:
    # Without a format checker jsonschema treats "format" as an annotation; pin that choice.
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date"}}}
    ts = ToolSet.from_any({"f": schema})
    assert ts is not None
    assert ts.validate("f", {"when": "not a date"}) is None


# --------------------------------------------------------------------------- shared validators


def count_compiles(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    compiled: list[dict[str, Any]] = []
    original = tools_module._compile_validator

    def counting(schema: dict[str, Any]) -> Any:
        compiled.append(schema)
        return original(schema)

    monkeypatch.setattr(tools_module, "_compile_validator", counting)
    return compiled


def test_validators_are_compiled_once_per_distinct_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = count_compiles(monkeypatch)
    schema = unique_schema(minutes={"type": "integer"})
    first = ToolSet.from_any([{"name": "a", "parameters": schema}, {"name": "b", "parameters": schema}])
    second = ToolSet.from_any({"c": copy.deepcopy(schema)})
    assert first is not None and second is not None
    for _ in range(5):
        assert first.validate("a", {"minutes": 1}) is None
        assert second.validate("c", {"minutes": "x"}) is not None
    assert len(compiled) == 1
    assert first._validators["a"] is first._validators["b"] is second._validators["c"]


def test_schemas_differing_only_in_key_order_share_a_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = count_compiles(monkeypatch)
    schema = unique_schema(a={"type": "integer"}, b={"type": "string"})
    reordered = dict(reversed(list(schema.items())))
    reordered["properties"] = dict(reversed(list(schema["properties"].items())))
    for name, ts in (("x", ToolSet.from_any({"x": schema})), ("y", ToolSet.from_any({"y": reordered}))):
        assert ts is not None and ts.validate(name, {"a": 1}) is None
    assert len(compiled) == 1


def test_different_schemas_get_different_validators(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = count_compiles(monkeypatch)
    ts = ToolSet.from_any({"x": unique_schema(), "y": unique_schema()})
    assert ts is not None and ts.validate("x", {}) is None and ts.validate("y", {}) is None
    assert len(compiled) == 2


def test_validators_are_compiled_only_for_tools_that_are_called(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = count_compiles(monkeypatch)
    ts = ToolSet.from_any({f"t{i}": unique_schema(n={"type": "integer"}) for i in range(50)})
    assert ts is not None and compiled == []
    assert ts.validate("t7", {"n": "x"}) == "$.n: 'x' is not of type 'integer'"
    assert ts.validate("t7", {"n": 1}) is None
    assert len(compiled) == 1


def test_a_schema_breaking_its_metaschema_rejects_its_calls_with_the_reason() -> None:
    # Not caught by the structural check at construction: reported when the tool is first called.
    ts = ToolSet.from_any({"f": unique_schema(n={"type": "integer", "multipleOf": -2})})
    assert ts is not None
    detail = ts.validate("f", {"n": 4})
    assert detail is not None and "not a valid JSON Schema at $.properties.n.multipleOf" in detail


def test_the_validator_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tools_module, "_VALIDATOR_CACHE_SIZE", 3)
    for _ in range(10):
        ts = ToolSet.from_any({"x": unique_schema()})
        assert ts is not None and ts.validate("x", {}) is None
    assert len(tools_module._validators) <= 3


def test_mutating_the_callers_schema_afterwards_changes_nothing() -> None:
    schema = unique_schema(minutes={"type": "integer"})
    ts = ToolSet.from_any({"a": schema})
    assert ts is not None
    schema["properties"]["minutes"]["type"] = "string"
    assert ts.validate("a", {"minutes": 3}) is None
    assert ts.parameters("a")["properties"]["minutes"] == {"type": "integer"}


# --------------------------------------------------------------------------- property_schema


def test_property_schema_returns_declared_argument_schemas() -> None:
    ts = ToolSet.from_any({"plan": TRIP})
    assert ts is not None
    assert ts.property_schema("plan", "minutes") == {"type": "integer"}
    assert ts.property_schema("plan", "undeclared") is None
    assert ts.property_schema("unknown_tool", "minutes") is None


def test_property_schema_resolves_refs_keeping_sibling_keywords() -> None:
    class Unit(enum.Enum):
        MIN = "min"
        SEC = "sec"

    class Point(BaseModel):
        x: int

    class Draw(BaseModel):
        unit: Unit = Unit.SEC
        at: Point | None = None

    ts = ToolSet.from_any([Draw])
    assert ts is not None
    assert ts.parameters("Draw")["properties"]["unit"] == {"$ref": "#/$defs/Unit", "default": "sec"}
    unit = ts.property_schema("Draw", "unit")
    assert unit is not None
    assert unit["type"] == "string" and unit["enum"] == ["min", "sec"] and unit["default"] == "sec"
    at = ts.property_schema("Draw", "at")
    assert at is not None
    assert at["anyOf"][0]["type"] == "object" and at["anyOf"][0]["properties"] == {"x": {"type": "integer"}}
    assert at["anyOf"][1] == {"type": "null"}


def test_property_schema_survives_ref_cycles() -> None:
    schema = {
        "type": "object",
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
        "properties": {"loop": {"$ref": "#/$defs/A"}},
    }
    ts = ToolSet.from_any({"c": schema})
    assert ts is not None
    result = ts.property_schema("c", "loop")
    assert result is not None and "$ref" in result


def test_property_schema_resolves_escaped_json_pointers() -> None:
    schema = {
        "type": "object",
        "definitions": {"a/b": {"type": "integer"}, "c~d": {"type": "boolean"}},
        "properties": {"x": {"$ref": "#/definitions/a~1b"}, "y": {"$ref": "#/definitions/c~0d"}},
    }
    ts = ToolSet.from_any({"p": schema})
    assert ts is not None
    assert ts.property_schema("p", "x") == {"type": "integer"}
    assert ts.property_schema("p", "y") == {"type": "boolean"}


# --------------------------------------------------------------------------- openai_tools


def test_openai_tools_round_trips_every_definition_style() -> None:
    anthropic = {"name": "b", "input_schema": ALARM_SCHEMA}
    ts = ToolSet.from_any([set_alarm, set_alarm_fn, anthropic, {"name": "p"}])
    assert ts is not None
    defs = ts.openai_tools()
    assert [d["type"] for d in defs] == ["function"] * 4
    by_name = {d["function"]["name"]: d["function"] for d in defs}
    assert by_name["set_alarm"] == {"name": "set_alarm", "description": ALARM_DOC, "parameters": ALARM_SCHEMA}
    assert "description" not in by_name["p"]
    again = ToolSet.from_any(defs)
    assert again is not None
    assert again.names == ts.names
    assert all(again.parameters(n) == ts.parameters(n) for n in ts.names)


def test_openai_tools_keeps_property_order_and_returns_copies() -> None:
    ts = ToolSet.from_any([set_alarm_fn])
    assert ts is not None
    defs = ts.openai_tools()
    assert list(defs[0]["function"]["parameters"]["properties"]) == ["minutes", "label"]
    defs[0]["function"]["parameters"]["properties"].clear()
    ts.parameters("set_alarm_fn")["required"].clear()
    assert ts.openai_tools()[0]["function"]["parameters"] == ALARM_SCHEMA
