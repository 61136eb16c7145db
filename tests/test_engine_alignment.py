"""Parser rules the engines' own detectors showed were missing (issue 22, SGLang's detector tests): a repeated
parameter, an array value JSON-escaped once, GigaChat's blank line after ``<|message_sep|>``. Each holds under
every chunking (``check_stream``)."""

from __future__ import annotations

import json

import pytest
from invariants import calls, check_stream, reasons

PROPERTIES = {"todos": {"type": "array"}, "note": {"type": "string"}}
TODO = {
    "type": "function",
    "function": {"name": "todo_write", "parameters": {"type": "object", "properties": PROPERTIES}},
}


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        (
            "minicpm5",
            '<function name="get_weather"><param name="city">A</param><param name="city">B</param></function>',
        ),
        (
            "glm45",
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>A</arg_value>\n"
            "<arg_key>city</arg_key>\n<arg_value>B</arg_value>\n</tool_call>",
        ),
    ],
)
def test_a_parameter_given_twice_rejects_the_call(fmt: str, text: str) -> None:
    # A JSON object cannot hold both values, and which one was meant is unknowable.
    result = check_stream(text, formats=[fmt])
    assert calls(result) == []
    assert reasons(result) == ["malformed"]
    assert "given twice" in result.rejected[0].detail


def test_distinct_parameters_are_still_a_call() -> None:
    text = '<function name="get_weather"><param name="city">A</param><param name="date">B</param></function>'
    assert calls(check_stream(text, formats=["minicpm5"])) == [("get_weather", {"city": "A", "date": "B"})]


ESCAPED = r"[{\"id\": \"1\", \"task\": \"C:\\\\Users\\\\a.txt\"}, {\"id\": \"2\", \"task\": \"Print \\\\n\"}]"


def test_an_array_value_json_escaped_once_is_read_as_the_array() -> None:
    # GLM models write an array argument as the inside of a JSON string (SGLang's GLM-4.7 tests).
    text = f"<tool_call>todo_write\n<arg_key>todos</arg_key>\n<arg_value>{ESCAPED}</arg_value>\n</tool_call>"
    result = check_stream(text, formats=["glm45"], tools=[TODO])
    todos = [{"id": "1", "task": "C:\\Users\\a.txt"}, {"id": "2", "task": "Print \\n"}]
    assert calls(result) == [("todo_write", {"todos": todos})]
    assert json.loads(result.tool_calls[0].arguments_json) == {"todos": todos}


def test_a_string_value_that_looks_escaped_stays_the_text_written() -> None:
    text = f"<tool_call>todo_write\n<arg_key>note</arg_key>\n<arg_value>{ESCAPED}</arg_value>\n</tool_call>"
    assert calls(check_stream(text, formats=["glm45"], tools=[TODO])) == [("todo_write", {"note": ESCAPED})]


def test_an_array_value_that_is_not_json_even_unescaped_still_fails_the_schema() -> None:
    text = '<tool_call>todo_write\n<arg_key>todos</arg_key>\n<arg_value>[\\"a</arg_value>\n</tool_call>'
    assert reasons(check_stream(text, formats=["glm45"], tools=[TODO])) == ["schema_violation"]


GIGACHAT_CALL = 'function call<|role_sep|>\n{"name": "get_weather", "arguments": {"city": "Moscow"}}'


@pytest.mark.parametrize("separators", ["drop", "keep"])
def test_the_blank_line_gigachat_writes_after_message_sep_is_not_content(separators: str) -> None:
    # The templates (GigaChat 3, 3.1, 3.5) write `<|message_sep|>\n\n` between role messages.
    result = check_stream(
        "Let me check.<|message_sep|>\n\n" + GIGACHAT_CALL, formats=["gigachat3"], separators=separators
    )
    assert result.text == "Let me check."
    assert calls(result) == [("get_weather", {"city": "Moscow"})]


def test_text_after_message_sep_is_joined_by_a_newline_when_separators_drop() -> None:
    result = check_stream("One.<|message_sep|>\n\nTwo.", formats=["gigachat3"])
    assert result.text == "One.\nTwo."
