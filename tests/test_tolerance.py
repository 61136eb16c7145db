"""Tolerant where peers are tolerant and nothing unsafe follows (issue 10 item 6)."""

from __future__ import annotations

import pytest
from invariants import calls, check_stream

from streamparse import StreamParser


def _tool(name: str, props: dict[str, object]) -> list[dict[str, object]]:
    return [{"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": props}}}]


@pytest.mark.parametrize(
    ("alias", "value", "expected"),
    [
        ("float", "3.14", 3.14),
        ("int", "42", 42),
        ("bool", "true", True),
        ("dict", '{"k": 1}', {"k": 1}),
        ("list", "[1, 2]", [1, 2]),
        ("str", "7", "7"),
    ],
)
def test_non_standard_schema_type_names_are_read_as_their_json_schema_type(
    alias: str, value: str, expected: object
) -> None:
    tools = _tool("f", {"x": {"type": alias}})
    text = f"<tool_call>\n<function=f>\n<parameter=x>\n{value}\n</parameter>\n</function>\n</tool_call>"
    result = check_stream(text, formats=["qwen3_coder"], tools=tools)
    assert calls(result) == [("f", {"x": expected})]


def test_a_property_named_type_keeps_its_schema() -> None:
    tools = _tool("f", {"type": {"type": "str"}})
    StreamParser(tools=tools)  # no error: "type" here is a property name, its schema's type an alias


def test_unknown_type_names_still_fail_in_the_constructor() -> None:
    with pytest.raises(ValueError, match="invalid JSON Schema"):
        StreamParser(tools=_tool("f", {"x": {"type": "whatever"}}))


def test_glm_values_are_verbatim_as_its_template_writes_them() -> None:
    # GLM's template writes <arg_value>{{ v }}</arg_value>: the spaces around a value are the model's.
    text = (
        "<tool_call>get_weather\n    <arg_key>city</arg_key>\n    <arg_value>  Beijing  </arg_value>\n"
        "    <arg_key>state</arg_key>\n    <arg_value>TX</arg_value>\n    </tool_call>"
    )
    result = check_stream(text, formats=["glm45"])
    assert calls(result) == [("get_weather", {"city": "  Beijing  ", "state": "TX"})]


def test_minimax_values_are_verbatim_as_its_template_writes_them() -> None:
    text = (
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="q">\n   cats and dogs \n</parameter>\n'
        "</invoke>\n</minimax:tool_call>"
    )
    assert calls(check_stream(text, formats=["minimax"])) == [("f", {"q": "\n   cats and dogs \n"})]


def test_qwen3_coder_values_lose_the_one_newline_per_side_its_template_wraps_them_in() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=q>\n  two\n\n</parameter>\n</function>\n</tool_call>"
    assert calls(check_stream(text, formats=["qwen3_coder"])) == [("f", {"q": "  two\n"})]


def test_typed_values_still_read_through_surrounding_whitespace() -> None:
    tools = _tool("f", {"n": {"type": "integer"}})
    text = "<tool_call>f<arg_key>n</arg_key><arg_value> 15\n</arg_value></tool_call>"
    assert calls(check_stream(text, formats=["glm45"], tools=tools)) == [("f", {"n": 15})]


def test_qwen3_coder_values_lose_one_newline_per_side_as_with_the_peers() -> None:
    text = "<tool_call>\n<function=w>\n<parameter=content>\n\nline\n\n</parameter>\n</function>\n</tool_call>"
    assert calls(check_stream(text, formats=["qwen3_coder"])) == [("w", {"content": "\nline\n"})]


GLM_TOOLS = _tool("get_weather", {"city": {"type": "string"}, "n": {"type": "integer"}})


def test_glm_call_written_json_escaped_once_is_read_unescaped() -> None:
    # GLM-4.6 sometimes emits the whole call escaped: a literal backslash-n after the name and between tags.
    text = (
        '<tool_call>get_weather\\n<arg_key>city</arg_key>\\n<arg_value>Paris \\"rive gauche\\" \\\\ C:\\\\x</arg_value>'
        "\\n<arg_key>n</arg_key>\\n<arg_value>2</arg_value>\\n</tool_call>"
    )
    result = check_stream(text, formats=["glm45"], tools=GLM_TOOLS)
    assert calls(result) == [("get_weather", {"city": 'Paris "rive gauche" \\ C:\\x', "n": 2})]
    assert result.text == ""


def test_an_ordinary_glm_call_keeps_its_backslashes() -> None:
    text = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>C:\\dir\\n</arg_value>\n</tool_call>"
    assert calls(check_stream(text, formats=["glm45"], tools=GLM_TOOLS)) == [("get_weather", {"city": "C:\\dir\\n"})]
