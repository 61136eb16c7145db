"""LongCat's second body form (issue 17): ``<longcat_tool_call>NAME`` + ``<longcat_arg_key>K</longcat_arg_key>`` +
``<longcat_arg_value>V</longcat_arg_value>`` per argument, GLM-4.5's grammar with LongCat's tag names (public
reports: lablup/mlxcel#765 describes LongCat-Flash models writing it). The JSON body keeps working; a body that is
neither is text, never a call; values are verbatim and typed by the schema, as GLM's are."""

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
KEY_VALUE = (
    "<longcat_tool_call>get_weather\n<longcat_arg_key>city</longcat_arg_key>\n"
    "<longcat_arg_value>  Paris </longcat_arg_value>\n<longcat_arg_key>days</longcat_arg_key>\n"
    "<longcat_arg_value>3</longcat_arg_value>\n</longcat_tool_call>"
)
JSON_BODY = '<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</longcat_tool_call>'


@pytest.mark.parametrize("formats", [["longcat"], "auto"])
def test_the_key_value_body_is_a_call_with_verbatim_typed_values(formats: object) -> None:
    result = check_stream("Let me check.\n" + KEY_VALUE + "\nDone.", formats=formats, tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": "  Paris ", "days": 3})]
    assert result.rejected == [] and result.text == "Let me check.\nDone."


def test_both_bodies_in_one_output_are_two_calls_in_order() -> None:
    result = check_stream(KEY_VALUE + JSON_BODY, formats=["longcat"], tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": "  Paris ", "days": 3}), ("get_weather", {"city": "Rome"})]


def test_a_no_argument_call_closes_right_after_its_name() -> None:
    result = check_stream("<longcat_tool_call>ping</longcat_tool_call>", formats=["longcat"])
    assert calls(result) == [("ping", {})]


def test_the_opener_before_prose_is_text() -> None:
    result = check_stream("prose <longcat_tool_call> is a tag", formats=["longcat"], tools=TOOLS)
    assert calls(result) == [] and result.rejected == [] and result.text == "prose <longcat_tool_call> is a tag"


def test_a_key_value_call_cut_by_the_end_of_the_output_is_truncated_not_returned() -> None:
    cut = KEY_VALUE[: KEY_VALUE.index("<longcat_arg_key>days")]
    result = check_stream("Checking.\n" + cut, formats=["longcat"], tools=TOOLS)
    assert calls(result) == [] and reasons(result) == ["truncated"] and result.text == "Checking."
