"""The chat body as the proxy reads it (``server/jsonscan.py``, ``server/limits.py``,
``server/lazytools.py``): the scan agrees with ``json.loads`` on what is JSON and where each value lies,
tools stay bytes until a call names one, and a retry's messages are spliced into the body as sent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse.parser import StreamParser
from streamparse.server.jsonscan import ScanError, scan
from streamparse.server.lazytools import LazyToolSet
from streamparse.server.limits import BodyRefused, parse_chat_body
from streamparse.server.options import ServerOptions

KEYS = st.sampled_from(["tools", "messages", "model", "a", "b"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=25,
)


def _agrees(raw: bytes) -> None:
    try:
        expected: Any = json.loads(raw)
    except ValueError:
        with pytest.raises(ScanError):
            scan(raw, 10_000)
        return
    found = scan(raw, 10_000)
    assert found.is_object == isinstance(expected, dict)
    if isinstance(expected, dict):
        assert {k: json.loads(raw[a:b]) for k, (a, b) in found.keys.items()} == expected
        if isinstance(expected.get("tools"), list):
            assert [json.loads(raw[a:b]) for a, b in found.tools] == expected["tools"]


@settings(max_examples=400, deadline=None)
@given(value=VALUES, indent=st.sampled_from([None, 2]), at=st.integers(0, 300), junk=st.sampled_from(
    ["", ",", "]", "}", ":", '"', "x", "0", "\x01", "\\", " "]))  # fmt: skip
def test_the_scan_accepts_exactly_what_json_loads_accepts_and_finds_every_value(
    value: Any, indent: int | None, at: int, junk: str
) -> None:
    raw = json.dumps(value, indent=indent).encode()
    _agrees(raw)
    _agrees(raw[:at] + junk.encode() + raw[at:])


@pytest.mark.parametrize("raw", [b'{"a": "\xff"}', b'{"a": 01}', b"[1,]", b'{"a" 1}', b"", b"  ", b'{"a": 1}}'])
def test_the_scan_refuses_what_is_not_json(raw: bytes) -> None:
    with pytest.raises(ScanError):
        scan(raw, 64)


def test_nesting_past_the_limit_is_a_depth_error_naming_the_field() -> None:
    with pytest.raises(ScanError, match=r"nests deeper than 64 levels \(at \$\.messages\)") as info:
        scan(b'{"model": "m", "messages": ' + b"[" * 5000, 64)
    assert info.value.depth


def _tool(name: str, prop: str = "city") -> dict[str, Any]:
    schema = {"type": "object", "properties": {prop: {"type": "string"}}, "required": [prop]}
    return {"type": "function", "function": {"name": name, "parameters": schema}}


def test_tools_stay_bytes_until_a_call_names_one() -> None:
    body = json.dumps({"model": "Qwen/Qwen3-8B", "tools": [_tool("a"), _tool("b"), _tool("c")]}).encode()
    chat = parse_chat_body(bytearray(body), ServerOptions())
    tools = chat.tools
    assert isinstance(tools, LazyToolSet) and sorted(tools) == ["a", "b", "c"] and tools._loaded == {}
    parser = StreamParser(formats=["hermes"], tools=tools)
    events = parser.feed('<tool_call>{"name": "b", "arguments": {"city": 5}}</tool_call>') + parser.close()
    assert [type(e).__name__ for e in events][-1] == "ToolCallRejected"
    assert list(tools._loaded) == ["b"]  # only the called tool was parsed
    assert tools.validate("zz", {}) == "$: unknown tool 'zz'" and tools.property_schema("zz", "x") is None
    assert tools.openai_tools() == [_tool(n) for n in "abc"]


def test_a_tool_list_the_validator_cannot_use_is_not_validated_but_still_capped() -> None:
    body = json.dumps({"tools": [_tool("a"), _tool("a")]}).encode()
    chat = parse_chat_body(body, ServerOptions())
    assert chat.tools is None and chat.tools_problem == "duplicate tool name 'a'"
    big = [_tool("a"), {"type": "function", "function": {"name": "b", "parameters": {"x": "y" * 70_000}}}]
    with pytest.raises(BodyRefused, match=r"tools\[1\] is \d+ bytes as JSON"):
        parse_chat_body(json.dumps({"tools": big}).encode(), ServerOptions())


EXTRA = [{"role": "assistant", "content": "", "tool_calls": []}, {"role": "tool", "tool_call_id": "x", "content": "é"}]


@settings(max_examples=200, deadline=None)
@given(payload=st.dictionaries(KEYS, VALUES, max_size=4), messages=st.none() | st.lists(VALUES, max_size=3),
       indent=st.sampled_from([None, 1]))  # fmt: skip
def test_messages_spliced_into_the_body_equal_appending_to_the_parsed_request(
    payload: dict[str, Any], messages: list[Any] | None, indent: int | None
) -> None:
    if messages is not None:
        payload["messages"] = messages
    payload.pop("tools", None)
    chat = parse_chat_body(json.dumps(payload, indent=indent).encode(), ServerOptions(max_json_depth=10_000))
    before = payload.get("messages")
    expected = {**payload, "messages": [*(before if isinstance(before, list) else []), *EXTRA]}
    assert json.loads(chat.with_messages(EXTRA)) == expected
