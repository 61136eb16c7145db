"""Wrappers llama.cpp tolerates around Hermes calls, and pythonic lists after prose (issue 10 items 6-7):
read only where they cannot be a quoted example, for declared tool names."""

from __future__ import annotations

import pytest
from invariants import calls, check_stream

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "special_function",
            "parameters": {"type": "object", "properties": {"arg1": {"type": "integer"}}},
        },
    },
    {
        "type": "function",
        "function": {"name": "python", "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}},
    },
]
OBJ = '{"name": "special_function", "arguments": {"arg1": 1}}'
SF = [("special_function", {"arg1": 1})]


@pytest.mark.parametrize(
    "text",
    [
        '<function=special_function>{"arg1": 1}</function>',
        '<function name="special_function">\n{"arg1": 1}\n</function>',
        f"<tool>\n  {OBJ}\n</tool>",
        f"<tools>\n  {OBJ}\n</tools>",
        f"<response>\n  {OBJ}\n</response>",
        f"<json>\n  {OBJ}\n</json>",
        f"<JSON>\n  {OBJ}\n</JSON>",
        f"<xml>\n  {OBJ}\n</xml>",
        f"```json\n  {OBJ}\n```",
        f"```xml\n  {OBJ}\n```",
        f"```\n{OBJ}\n```",
        OBJ,
    ],
)
def test_a_wrapped_call_of_a_declared_tool_at_the_output_start_is_a_call(text: str) -> None:
    result = check_stream(text, formats=["hermes"], tools=TOOLS)
    assert calls(result) == SF and result.text.strip() == ""


def test_consecutive_wrapped_calls_are_all_read() -> None:
    text = '<function=special_function>{"arg1": 1}</function>\n<function=python>{"code": "x"}</function>'
    assert calls(check_stream(text, formats=["hermes"], tools=TOOLS)) == SF + [("python", {"code": "x"})]


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        (f"<tool>\n  {OBJ}\n</tool>", None),  # no tools: nothing is declared
        ('<tool>\n  {"name": "other", "arguments": {}}\n</tool>', TOOLS),  # undeclared name
        (f"Here is the format:\n<tool>\n  {OBJ}\n</tool>", TOOLS),  # after prose: a quoted example
        (f"```xml\n<response>\n{OBJ}\n</response>\n```", TOOLS),  # one wrapper at a time
    ],
)
def test_wrappers_that_could_be_a_quoted_example_stay_text(text: str, tools: object) -> None:
    result = check_stream(text, formats=["hermes"], tools=tools)
    assert calls(result) == [] and result.rejected == [] and result.text == text


PY_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
        },
    }
]


def test_a_pythonic_list_after_prose_is_a_call_for_a_declared_tool() -> None:
    result = check_stream("Let me check: [get_weather(location='Paris')]", formats=["pythonic"], tools=PY_TOOLS)
    assert calls(result) == [("get_weather", {"location": "Paris"})] and result.text == "Let me check:"


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ("See [see(1)] and [get_weather(location='x')].", None),
        ("See [see(x=1)] for details.", PY_TOOLS),
        ("Values: [print(x) for x in y]", PY_TOOLS),
        ("A [link](https://example.com) and [get_weather] alone.", PY_TOOLS),
    ],
)
def test_brackets_in_prose_stay_text(text: str, tools: object) -> None:
    result = check_stream(text, formats=["pythonic"], tools=tools)
    assert calls(result) == [] and result.text == text
