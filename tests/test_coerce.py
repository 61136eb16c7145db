"""text-value rule coercion of text-valued arguments, and which values may be streamed as JSON strings."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse.states.coerce import coerce_text_value, schema_types, streams_as_string

STRING = {"type": "string"}
INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
OBJECT = {"type": "object"}
ARRAY = {"type": "array"}


def same(actual: Any, expected: Any) -> bool:
    """Equality that also tells 1 from 1.0 from True (== alone would not)."""
    return type(actual) is type(expected) and actual == expected


@pytest.mark.parametrize(
    ("raw", "schema", "expected"),
    [
        # string: unchanged, including text that looks like something else, and its whitespace
        ("02134", STRING, "02134"),
        ("true", STRING, "true"),
        ('{"a":1}', STRING, '{"a":1}'),
        ("null", STRING, "null"),
        ("  padded \n", STRING, "  padded \n"),
        ("", STRING, ""),
        # integer
        ("15", INTEGER, 15),
        ("-7", INTEGER, -7),
        ("007", INTEGER, 7),
        (" 15 ", INTEGER, 15),
        ("\n42\n", INTEGER, 42),
        ("140.0", INTEGER, 140),
        ("1e3", INTEGER, 1000),
        ("12345678901234567890.0", INTEGER, 12345678901234567890),
        # number
        ("2.5", NUMBER, 2.5),
        ("-0.25", NUMBER, -0.25),
        ("15", NUMBER, 15),
        ("15.0", NUMBER, 15),
        ("1.5e2", NUMBER, 150),
        ("1e-3", NUMBER, 0.001),
        (" 3.25 ", NUMBER, 3.25),
        # boolean, any case
        ("true", BOOLEAN, True),
        ("False", BOOLEAN, False),
        ("TRUE", BOOLEAN, True),
        (" false\n", BOOLEAN, False),
        # object / array: JSON first, then a Python literal
        ('{"a": 1, "b": [true, null]}', OBJECT, {"a": 1, "b": [True, None]}),
        ("{'a': True, 'b': None}", OBJECT, {"a": True, "b": None}),
        ('\n{"a": 1}\n', OBJECT, {"a": 1}),
        ('[1, 2.5, "x"]', ARRAY, [1, 2.5, "x"]),
        ("['a', ('b', 1)]", ARRAY, ["a", ["b", 1]]),
        ("(1, 2)", ARRAY, [1, 2]),
        # null
        ("null", {"type": ["integer", "null"]}, None),
        (" null ", {"type": ["null", "string"]}, None),
        ("null", {"anyOf": [{"type": "string"}, {"type": "null"}]}, None),
        ("null", {"type": "null"}, None),
        # type lists and anyOf / oneOf: the first type that fits
        ("15", {"type": ["integer", "string"]}, 15),
        ("fifteen", {"type": ["integer", "string"]}, "fifteen"),
        ("15", {"type": ["string", "integer"]}, "15"),
        ("2.5", {"type": ["integer", "number"]}, 2.5),
        ("true", {"anyOf": [{"type": "boolean"}, {"type": "string"}]}, True),
        ("yes", {"anyOf": [{"type": "boolean"}, {"type": "string"}]}, "yes"),
        ("[1]", {"oneOf": [{"type": "object"}, {"type": "array"}]}, [1]),
        ("7", {"anyOf": [{"anyOf": [{"type": "integer"}]}, {"type": "string"}]}, 7),
        ("7", {"anyOf": [{}, {"type": "integer"}]}, "7"),
        ("12", {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}, 12),
        ("5", {"allOf": [{"type": "integer"}, {"minimum": 1}]}, 5),
        # enum / const without a type: the types of the values
        ("2", {"enum": [1, 2, 3]}, 2),
        ("b", {"enum": ["a", "b"]}, "b"),
        ("true", {"const": True}, True),
        # no schema / no type information: keep the string
        ("15", None, "15"),
        ("15", {}, "15"),
        ("15", {"description": "minutes"}, "15"),
        ("15", {"$ref": "#/$defs/Unresolved"}, "15"),
    ],
)
def test_coerce_follows_r7(raw: str, schema: Any, expected: Any) -> None:
    assert same(coerce_text_value(raw, schema), expected)


@pytest.mark.parametrize(
    ("raw", "schema"),
    [
        ("four", INTEGER),
        ("3.5", INTEGER),
        ("+5", INTEGER),
        ("1 000", INTEGER),
        ("٣", INTEGER),  # a non-ASCII digit is not -?\d+ in JSON's sense
        ("9" * 5000, INTEGER),  # past CPython's int<->str limit
        ("1e999999999", INTEGER),  # would be a gigantic int
        ("NaN", NUMBER),
        ("Infinity", NUMBER),
        ("1e99999", NUMBER),  # too big for an exact int, infinite as a float
        ("0x10", NUMBER),
        ("yes", BOOLEAN),
        ("1", BOOLEAN),
        ("[1, 2]", OBJECT),
        ('{"a": 1}', ARRAY),
        ("{'a': 1", OBJECT),
        ("{1: 2}", OBJECT),  # a non-string key would not survive a JSON round trip
        ("{1, 2}", ARRAY),  # a set
        ("[b'x']", ARRAY),
        ("[1j]", ARRAY),
        ('{"a": NaN}', OBJECT),
        ("__import__('os').system('true')", OBJECT),
        ("[" * 100_000, ARRAY),
        ("[" * 100_000 + "]" * 100_000, ARRAY),
        ("Null", {"type": ["integer", "null"]}),
        ("none", {"type": "null"}),
        ("x", {"type": "no-such-type"}),
    ],
)
def test_failed_coercion_returns_the_raw_text(raw: str, schema: dict[str, Any]) -> None:
    assert same(coerce_text_value(raw, schema), raw)


def test_null_only_becomes_none_when_the_type_allows_null() -> None:
    assert coerce_text_value("null", INTEGER) == "null"
    assert coerce_text_value("null", OBJECT) == "null"
    assert coerce_text_value("null", {"type": ["object", "null"]}) is None


def test_python_none_is_null_only_for_formats_that_write_python_reprs() -> None:
    nullable = {"type": ["string", "null"]}
    assert coerce_text_value("None", nullable) == "None"  # a JSON-writing format: the text is the string
    assert coerce_text_value("None", nullable, python=True) is None
    assert coerce_text_value("None", {"type": "string"}, python=True) == "None"  # null not allowed
    assert coerce_text_value("True", {"type": "boolean"}, python=True) is True


@pytest.mark.parametrize(
    "schema",
    [
        None,
        {},
        [],
        True,
        False,
        5,
        "string",
        {"type": 5},
        {"type": []},
        {"anyOf": "x"},
        {"anyOf": [5, None]},
        {"enum": "abc"},
        {"type": ["integer", 3]},
        {"allOf": [{"not": {}}]},
    ],
)
def test_odd_schemas_never_raise_and_keep_unparseable_text(schema: Any) -> None:
    assert coerce_text_value("hello", schema) == "hello"
    streams_as_string(schema)  # must not raise either


def test_self_referencing_schema_does_not_recurse_forever() -> None:
    schema: dict[str, Any] = {"anyOf": []}
    schema["anyOf"].append(schema)
    schema["anyOf"].append({"type": "integer"})
    assert coerce_text_value("3", schema) in ("3", 3)
    streams_as_string(schema)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (None, True),
        ({}, True),
        ({"description": "free text"}, True),
        (STRING, True),
        ({"type": "string", "maxLength": 3}, True),
        ({"type": ["string"]}, True),
        ({"type": ["string", "integer"]}, True),  # string always fits first
        ({"anyOf": [{"type": "string"}, {"type": "boolean"}]}, True),
        ({"enum": ["a", "b"]}, True),
        ({"anyOf": [{}, {"type": "integer"}]}, True),
        # null allowed: the text "null" must become None, so the value is known only when complete
        ({"type": ["string", "null"]}, False),
        ({"type": ["null", "string"]}, False),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, False),
        ({"type": ["integer", "string"]}, False),
        (INTEGER, False),
        (NUMBER, False),
        (BOOLEAN, False),
        (OBJECT, False),
        (ARRAY, False),
        ({"type": "null"}, False),
        ({"oneOf": [{"type": "array"}, {"type": "string"}]}, False),
        ({"enum": [1, "a"]}, False),
        ({"const": 3}, False),
    ],
)
def test_streams_as_string_only_when_the_value_will_certainly_stay_a_string(schema: Any, expected: bool) -> None:
    assert streams_as_string(schema) is expected


def test_streams_as_string_agrees_with_coercion() -> None:
    # Whenever streaming as a string is allowed, coercion must keep every text as that string.
    schemas = [None, {}, STRING, {"type": ["string", "integer"]}, {"anyOf": [{"type": "string"}, ARRAY]}]
    texts = ["15", "null", "true", "[1]", '{"a": 1}', " 2.5 ", ""]
    for schema in schemas:
        assert streams_as_string(schema)
        for text in texts:
            assert coerce_text_value(text, schema) == text


def test_schema_types_lists_types_in_try_order_without_duplicates() -> None:
    schema = {"anyOf": [{"type": ["integer", "null"]}, {"type": "string"}, {"type": "integer"}]}
    assert schema_types(schema) == ["integer", "null", "string"]
    assert schema_types({"type": "object", "anyOf": [STRING]}) == ["object"]
    assert schema_types({}) == []


ANY_SCHEMA = st.sampled_from(
    [
        INTEGER,
        NUMBER,
        BOOLEAN,
        OBJECT,
        ARRAY,
        STRING,
        {"type": ["integer", "null"]},
        {"anyOf": [OBJECT, ARRAY, {"type": "null"}]},
        {"enum": [1, "x", None]},
        None,
    ]
)


@settings(max_examples=400, deadline=None)
@given(raw=st.text(), schema=ANY_SCHEMA)
def test_coercion_never_raises_and_yields_plain_json(raw: str, schema: Any) -> None:
    value = coerce_text_value(raw, schema)
    # The engine serialises the value; arguments must equal json.loads(arguments_json).
    assert json.loads(json.dumps(value, allow_nan=False)) == value


@settings(max_examples=200, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=10,
    )
)
def test_json_text_of_a_structured_value_coerces_back_to_it(value: Any) -> None:
    schema = {"type": ["object", "array"]}
    text = json.dumps(value)
    result = coerce_text_value(text, schema)
    if isinstance(value, (dict, list)):
        assert result == value
    else:
        assert result == text


@settings(max_examples=200, deadline=None)
@given(number=st.floats(allow_nan=False, allow_infinity=False) | st.integers())
def test_number_text_coerces_to_the_same_number(number: float) -> None:
    result = coerce_text_value(repr(number) if isinstance(number, float) else str(number), NUMBER)
    assert isinstance(result, (int, float)) and not isinstance(result, bool)
    assert result == number or (math.isclose(result, number))
    if isinstance(result, float):
        assert not float(result).is_integer()
