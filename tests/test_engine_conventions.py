"""Format behaviours the serving-engine adapters rely on (issue 22), pinned on the library itself."""

from __future__ import annotations

import pytest

from streamparse import StreamParser, TextDelta, ToolCallEnd

KIMI_CALL = (
    "<|tool_call_begin|>functions.test:0 <|tool_call_argument_begin|>"
    '{"k": "v"} <|tool_call_end|>'
)


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_kimi_section_end_with_no_section_open_never_reaches_the_text(size: int) -> None:
    # The noise abandons the section, so its end (and a second one later) arrives with no section open.
    text = "Reasoning. <|tool_calls_section_begin|> noise " + KIMI_CALL + "<|tool_calls_section_end|> after"
    text += "<|tool_calls_section_end|>"
    parser = StreamParser(["kimi_k2"])
    events = [e for i in range(0, len(text), size) for e in parser.feed(text[i : i + size])] + parser.close("stop")
    visible = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "<|tool_calls_section_end|>" not in visible
    assert visible.endswith(" after")
    assert [e.call.name for e in events if isinstance(e, ToolCallEnd)] == ["test"]
