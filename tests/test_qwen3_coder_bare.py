"""Qwen3-Coder's ``<function=NAME>`` without the ``<tool_call>`` wrapper (issue 17 §3): a call, also when the
model left ``</parameter>`` out and prose follows ``</function>``; the wrapped form keeps its rules."""

from __future__ import annotations

import pytest
from invariants import calls, check_stream, reasons

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}},
        },
    }
]
CALL = [("get_weather", {"city": "Paris", "days": 3})]
MISSING = "<function=get_weather>\n<parameter=city>\nParis\n<parameter=days>\n3\n</function>"


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        (MISSING + "\nDone, checking.", "Done, checking."),
        (MISSING + " Done.", "Done."),
        ("Sure.\n" + MISSING + "\n\nThe weather is coming.", "Sure.\nThe weather is coming."),
        (MISSING, ""),
        (MISSING.replace("3\n</function>", "3\n</parameter>\n</function>") + "\nDone.", "Done."),
    ],
)
def test_a_bare_call_missing_its_parameter_closer_ends_at_its_function_closer(text: str, visible: str) -> None:
    for tools in (TOOLS, None):
        result = check_stream(text, formats=["qwen3_coder"], tools=tools)
        expected = CALL if tools else [("get_weather", {"city": "Paris", "days": "3"})]  # untyped: text
        assert calls(result) == expected and result.rejected == [] and result.text == visible


def test_two_bare_calls_missing_parameter_closers_are_two_calls() -> None:
    text = MISSING + "\n" + MISSING.replace("Paris", "Rome") + "\nDone."
    result = check_stream(text, formats=["qwen3_coder"], tools=TOOLS)
    assert calls(result) == [*CALL, ("get_weather", {"city": "Rome", "days": 3})] and result.text == "Done."


def test_the_wrapped_call_missing_its_parameter_closer_still_needs_its_wrapper_closer() -> None:
    wrapped = "<tool_call>\n" + MISSING + "\n</tool_call>\nDone."
    result = check_stream(wrapped, formats=["qwen3_coder"], tools=TOOLS)
    assert calls(result) == CALL and result.text == "Done."
    # inside the wrapper, a ``</function>`` followed by prose is value text (markers inside values)
    inner = "<tool_call>\n<function=get_weather>\n<parameter=city>\na\n</function>\nb\n</parameter>\n</function>\n</tool_call>"
    result = check_stream(inner, formats=["qwen3_coder"], tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": "a\n</function>\nb"})]


def test_a_function_closer_inside_a_line_of_a_bare_value_is_value_text() -> None:
    text = '<function=get_weather>\n<parameter=city>\nx = "</function>" + y\n</parameter>\n</function>\nDone.'
    result = check_stream(text, formats=["qwen3_coder"], tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": 'x = "</function>" + y'})] and result.text == "Done."


def test_a_bare_call_cut_before_its_function_closer_is_truncated() -> None:
    result = check_stream(
        "<function=get_weather>\n<parameter=city>\nParis\n</func", formats=["qwen3_coder"], tools=TOOLS
    )
    assert calls(result) == [] and reasons(result) == ["truncated"] and result.text == ""
