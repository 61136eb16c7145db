"""Anthropic Messages SSE in, and the Messages event writer out."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from streamparse import ReasoningDelta, TextDelta, ToolCallEnd, merge_events, parse
from streamparse.providers import (
    AnthropicEventWriter,
    AnthropicSSEReader,
    ProviderError,
    SSEDecoder,
    aanthropic_sse_events,
    anthropic_sse_events,
    to_sse_event,
)


def ev(kind: str, **data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def delta(index: int, **d: Any) -> str:
    return ev("content_block_delta", index=index, delta=d)


STREAM = (
    ev("message_start", message={"id": "msg_1", "model": "claude-x", "role": "assistant", "content": []})
    + ev("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""})
    + delta(0, type="thinking_delta", thinking="Look it up.")
    + delta(0, type="signature_delta", signature="sig")
    + ev("content_block_stop", index=0)
    + ev("ping")
    + ev("content_block_start", index=1, content_block={"type": "text", "text": ""})
    + delta(1, type="text_delta", text="Sure.\n<tool_call>")
    + delta(1, type="text_delta", text='{"name": "lookup_order", "arguments": {"order_id": "B-2"}}</tool_call>')
    + ev("content_block_stop", index=1)
    + ev("message_delta", delta={"stop_reason": "end_turn", "stop_sequence": None}, usage={"output_tokens": 9})
    + ev("message_stop")
).encode()


def summary(events: list[Any]) -> tuple[str, str, list[str]]:
    merged = merge_events(events)
    return (
        "".join(e.text for e in merged if isinstance(e, TextDelta)),
        "".join(e.text for e in merged if isinstance(e, ReasoningDelta)),
        [e.call.name for e in merged if isinstance(e, ToolCallEnd)],
    )


EXPECTED = ("Sure.", "Look it up.", ["lookup_order"])


def test_messages_stream_split_anywhere_gives_text_thinking_and_calls() -> None:
    for i in range(0, len(STREAM) + 1, 3):
        reader = AnthropicSSEReader()
        events = list(anthropic_sse_events([STREAM[:i], STREAM[i:]], formats=["hermes"], reader=reader))
        assert summary(events) == EXPECTED, i
        assert (reader.id, reader.model, reader.stop_reason, reader.finish_reason) == (
            "msg_1",
            "claude-x",
            "end_turn",  # the upstream's own words stay in stop_reason
            "tool_calls",  # a call was accepted: the turn's finish_reason
        )


def test_error_event_raises_after_flushing_held_text() -> None:
    data = (
        ev("message_start", message={"id": "m", "model": "c"})
        + delta(0, type="text_delta", text="Hi <tool")
        + ev("error", error={"type": "overloaded_error", "message": "Overloaded"})
    ).encode()
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        for e in anthropic_sse_events([data], formats=["hermes"]):
            seen.append(e)
    assert (info.value.type, info.value.message) == ("overloaded_error", "Overloaded")
    assert summary(seen)[0] == "Hi <tool"


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_async_messages_stream(backend: str) -> None:
    async def pieces() -> AsyncIterator[bytes]:
        for i in range(0, len(STREAM), 11):
            await anyio.lowlevel.checkpoint()
            yield STREAM[i : i + 11]

    async def main() -> list[Any]:
        return [e async for e in aanthropic_sse_events(pieces(), formats=["hermes"])]

    assert summary(anyio.run(main, backend=backend)) == EXPECTED


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
TEXT = (
    "<think>Plan.</think>Checking. "
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    '<tool_call>{"name": "get_weather", "arguments": {"town": "LEAKED"}}</tool_call> ok'
)


def assemble(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Build the final message from the stream as Anthropic's client does, checking the protocol."""
    assert events[0]["type"] == "message_start" and events[-1]["type"] == "message_stop"
    message = dict(events[0]["message"], content=[])
    open_index: int | None = None
    partial: dict[int, str] = {}
    for e in events[1:-1]:
        if e["type"] == "content_block_start":
            assert open_index is None and e["index"] == len(message["content"])
            open_index = e["index"]
            message["content"].append(dict(e["content_block"]))
        elif e["type"] == "content_block_delta":
            assert open_index is not None and e["index"] == open_index
            block, d = message["content"][open_index], e["delta"]
            if d["type"] == "text_delta":
                block["text"] += d["text"]
            elif d["type"] == "thinking_delta":
                block["thinking"] += d["thinking"]
            elif d["type"] == "input_json_delta":
                partial[open_index] = partial.get(open_index, "") + d["partial_json"]
        elif e["type"] == "content_block_stop":
            assert e["index"] == open_index
            if open_index in partial:
                message["content"][open_index]["input"] = json.loads(partial[open_index])
            open_index = None
        elif e["type"] == "message_delta":
            assert open_index is None
            message.update(e["delta"])
    return message


def test_writer_emits_a_well_formed_message_with_tool_use_blocks() -> None:
    events = parse(TEXT, formats=["hermes"], tools=TOOLS).events
    w = AnthropicEventWriter("claude-x", id="msg_9")
    out = w.write(events) + w.finish()
    assert "LEAKED" not in json.dumps(out)
    msg = assemble(out)
    assert [b["type"] for b in msg["content"]] == ["thinking", "text", "tool_use", "text"]
    assert msg["content"][2] == {
        "type": "tool_use",
        "id": "call_0",
        "name": "get_weather",
        "input": {"city": "Paris"},
    }
    # " ok": text resuming after the call is joined by the separator that was dropped (a space)
    assert msg["content"][1]["text"] == "Checking." and msg["content"][3]["text"] == " ok"
    assert msg["stop_reason"] == "tool_use" and msg["id"] == "msg_9"


def test_writer_stop_reason_without_calls_maps_upstream_reason() -> None:
    w = AnthropicEventWriter("c")
    assert assemble(w.write([TextDelta("hi")]) + w.finish("length"))["stop_reason"] == "max_tokens"
    w = AnthropicEventWriter("c", include_thinking=False)
    msg = assemble(w.write([ReasoningDelta("x"), TextDelta("hi")]) + w.finish())
    assert msg["stop_reason"] == "end_turn" and [b["type"] for b in msg["content"]] == ["text"]


def test_writer_output_reads_back_through_the_reader() -> None:
    w = AnthropicEventWriter("c")
    wire = b"".join(to_sse_event(e) for e in w.write([ReasoningDelta("r"), TextDelta("plain text")]) + w.finish())
    assert [e.event for e in SSEDecoder().feed(wire)][:2] == ["message_start", "content_block_start"]
    assert summary(list(anthropic_sse_events([wire], formats=["hermes"]))) == ("plain text", "r", [])
