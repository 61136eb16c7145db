"""Llama 3 JSON call objects after prose (vLLM's Llama 3 JSON parser reads them anywhere): with llama3_json
named and tools given, an object after prose is a call only once it closes and names a declared tool; prose
and every other JSON value stay text, as for a pythonic list after prose (issue 17 §3, prose is not a call)."""

from __future__ import annotations

import pytest
from invariants import calls, check_stream

from streamparse import StreamParser, ToolCallStart

TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {}}}}
    for n in ("searchTool", "getOpenIncidentsTool")
]
SEARCH = '{"name": "searchTool", "parameters": {"query": "test1"}}'
# vLLM 0.33.0 tests/tool_parsers/test_llama3_json_tool_parser.py::test_extract_tool_calls_multiple_json_with_surrounding_text
THREE = (
    "Here are the results: "
    '{"name": "searchTool", "parameters": {"query": "test1"}}; '
    '{"name": "getOpenIncidentsTool", "parameters": {}}; '
    '{"name": "searchTool", "parameters": {"query": "test2"}} '
    "Would you like to know more?"
)


def test_call_objects_after_prose_naming_declared_tools_are_calls_and_the_prose_is_text() -> None:
    result = check_stream(THREE, formats=["llama3_json"], tools=TOOLS)
    assert calls(result) == [
        ("searchTool", {"query": "test1"}),
        ("getOpenIncidentsTool", {}),
        ("searchTool", {"query": "test2"}),
    ]
    assert result.rejected == [] and result.text.startswith("Here are the results:")
    assert result.text.endswith("Would you like to know more?") and "{" not in result.text


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        (THREE, None),  # no tools: nothing is declared, JSON in prose is text
        (f"The example {SEARCH} shows the shape.", TOOLS[1:]),  # names no declared tool
        ('The config is {"name": "searchTool", "version": 2} here.', TOOLS),  # not call-shaped
        ('Try {"name": "searchTool", "parameters": {"q": 1', TOOLS),  # cut before its closing brace
        ("a set {1, 2} and a dict {'a': 1}", TOOLS),
    ],
)
def test_json_in_prose_that_is_not_a_declared_call_is_text_as_written(text: str, tools: object) -> None:
    result = check_stream(text, formats=["llama3_json"], tools=tools)
    assert calls(result) == [] and result.rejected == [] and result.text == text


def test_no_call_event_before_the_objects_closing_brace() -> None:
    text = f"Sure: {SEARCH} done"
    parser = StreamParser(["llama3_json"], tools=TOOLS)
    close = text.index(SEARCH) + len(SEARCH)
    starts = [i for i, ch in enumerate(text) if any(isinstance(e, ToolCallStart) for e in parser.feed(ch))]
    parser.close()
    assert starts == [close - 1]  # the character that closes the object, not before


def test_without_llama3_json_named_prose_json_is_text() -> None:
    result = check_stream(THREE, formats=["hermes"], tools=TOOLS)
    assert calls(result) == [] and result.text == THREE
