"""Lenient typing (``coercion="lenient"``, the default): a JSON string where the schema admits no string is
converted when its meaning is unambiguous, recorded as the repair ``lenient_types``; ``"strict"`` is off."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import check_stream

from streamparse import StreamParser, formats, parse

# Formats whose JSON arguments are read by the shared JSON body states (every format written as JSON
# call objects or as a header + JSON arguments, the unmarked shapes and the envelope's calls included).
TEXT_VALUED = {"qwen3_coder", "seed_oss", "xml_invoke", "minimax", "deepseek_dsml", "glm45", "generic_xml"}
TEXT_VALUED |= {"key_value", "pythonic", "gemma_tool_code", "gemma4"}  # values are text or literals


def _quoted_number_variant(name: str) -> tuple[str, str, Any] | None:
    """The format's example with one argument written as a quoted number, its key and the number."""
    example = formats.get(name).example
    if '"A-1001"' in example:
        return example.replace('"A-1001"', '"1001"', 1), "order_id", 1001
    if '"minutes": 15' in example:
        return example.replace('"minutes": 15', '"minutes": "15"', 1), "minutes", 15
    return None


JSON_FORMATS = [n for n in formats.names() if n not in TEXT_VALUED and _quoted_number_variant(n) is not None]


def _tools(name: str, key: str) -> dict[str, Any]:
    calls = [c.name for c in parse(formats.get(name).example, formats=[name]).tool_calls]
    tools: dict[str, Any] = dict.fromkeys(calls[1:], {"type": "object"})
    tools[calls[0]] = {"type": "object", "properties": {key: {"type": "integer"}}, "required": [key]}
    return tools


def test_every_json_format_is_covered() -> None:
    assert len(JSON_FORMATS) >= 18, JSON_FORMATS


@pytest.mark.parametrize("name", JSON_FORMATS)
def test_a_quoted_number_becomes_the_integer_the_schema_asks_for(name: str) -> None:
    variant = _quoted_number_variant(name)
    assert variant is not None
    text, key, number = variant
    result = check_stream(text, formats=[name], tools=_tools(name, key))
    assert not result.rejected, result.rejected
    call = result.tool_calls[0]
    assert call.arguments[key] == number and type(call.arguments[key]) is int
    assert "lenient_types" in call.repairs
    assert call.validation == "pass"


@pytest.mark.parametrize("name", JSON_FORMATS)
def test_strict_coercion_validates_the_arguments_as_written(name: str) -> None:
    variant = _quoted_number_variant(name)
    assert variant is not None
    text, key, _ = variant
    result = check_stream(text, formats=[name], tools=_tools(name, key), coercion="strict")
    assert [r.reason for r in result.rejected] == ["schema_violation"]
    assert all(r.started for r in result.rejected)
    assert len(result.tool_calls) == len(parse(formats.get(name).example, formats=[name]).tool_calls) - 1


HERMES_TOOLS = {
    "configure": {
        "type": "object",
        "properties": {
            "verbose": {"type": "boolean"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "label": {"type": "string"},
            "either": {"type": ["string", "integer"]},
            "maybe": {"type": ["integer", "null"]},
            "filters": {"type": "object"},
        },
    }
}


def _hermes(args: str) -> str:
    return '<tool_call>{"name": "configure", "arguments": ' + args + "}</tool_call>"


def test_booleans_numbers_null_and_objects_convert_strings_stay() -> None:
    args = (
        '{"verbose": "TRUE", "count": " 5 ", "ratio": "0.25", "label": "5", "either": "7", "maybe": "null", '
        '"filters": "{\\"a\\": 1}"}'
    )
    result = check_stream(_hermes(args), formats=["hermes"], tools=HERMES_TOOLS)
    call = result.tool_calls[0]
    assert call.arguments == {
        "verbose": True,
        "count": 5,
        "ratio": 0.25,
        "label": "5",
        "either": "7",  # a string is valid there: nothing to convert
        "maybe": None,
        "filters": {"a": 1},
    }
    assert call.repairs == ["lenient_types"]


def test_an_ambiguous_string_is_left_for_validation() -> None:
    result = check_stream(_hermes('{"verbose": "yes"}'), formats=["hermes"], tools=HERMES_TOOLS)
    assert [(r.reason, r.detail) for r in result.rejected] == [
        ("schema_violation", "$.verbose: 'yes' is not of type 'boolean'")
    ]


def test_nothing_is_converted_without_tools_or_in_nested_values() -> None:
    text = _hermes('{"verbose": "true", "filters": {"count": "5"}}')
    assert parse(text, formats=["hermes"]).tool_calls[0].arguments == {"verbose": "true", "filters": {"count": "5"}}
    nested = {"configure": {"type": "object", "properties": {"filters": {"type": "object"}}}}
    call = parse(text, formats=["hermes"], tools=nested).tool_calls[0]
    assert call.arguments["filters"] == {"count": "5"} and call.repairs == []


def test_the_converted_value_streams_once_whole() -> None:
    parser = StreamParser(formats=["hermes"], tools=HERMES_TOOLS)
    deltas: list[str] = []
    for ch in _hermes('{"count": "12345", "label": "ab"}'):
        deltas += [e.arguments for e in parser.feed(ch) if e.type == "tool_call_delta"]
    parser.close()
    assert "12345" in deltas and not any('"1' in d for d in deltas)
    assert "".join(deltas) == '{"count": 12345, "label": "ab"}'


def test_lenient_repairs_are_counted_in_the_stats() -> None:
    parser = StreamParser(formats=["hermes"], tools=HERMES_TOOLS)
    parser.feed(_hermes('{"count": "3"}'))
    parser.close()
    assert parser.stats.repairs.get("lenient_types") == 1


def test_an_unknown_coercion_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="coercion"):
        StreamParser(coercion="loose")  # type: ignore[arg-type]
