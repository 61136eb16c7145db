"""A parameter whose key the call's closer follows with no value (`<arg_key>k</arg_key></tool_call>`): the call
is malformed, not cut by the end of the output, and ends at its closer, so the text after it stays text (under
every chunking: check_stream)."""

from __future__ import annotations

import pytest
from invariants import check_stream

CASES = {
    "glm45": "prefix <tool_call>get_time\n<arg_key>zone</arg_key>\n</tool_call> suffix",
    "k2_horizon": "prefix <ifm|tool_calls><ifm|tool_call>get_time<ifm|arg_key>zone</ifm|arg_key></ifm|tool_call>"
    "</ifm|tool_calls> suffix",
    "qwen3_coder": "prefix <tool_call>\n<function=get_time>\n<parameter=zone</function>\n</tool_call> suffix",
}


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_a_key_without_its_value_rejects_the_call_and_keeps_the_text_after_it(fmt: str) -> None:
    result = check_stream(CASES[fmt], formats=[fmt])
    assert [r.reason for r in result.rejected] == ["malformed"]
    assert result.tool_calls == []
    assert result.text.endswith("suffix")


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_a_call_cut_inside_a_parameter_header_is_still_truncated(fmt: str) -> None:
    text = CASES[fmt]
    cut = text[: text.index("zone") + 2]  # the output ends inside the key: no closer came
    result = check_stream(cut, formats=[fmt])
    assert [r.reason for r in result.rejected] == ["truncated"]
