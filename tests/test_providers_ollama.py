"""Ollama /api/chat NDJSON in."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from streamparse import ReasoningDelta, TextDelta, ToolCallEnd, merge_events
from streamparse.providers import (
    OllamaNDJSONReader,
    ProviderDelta,
    ProviderDone,
    ProviderError,
    aollama_ndjson_events,
    ollama_ndjson_events,
)


def line(content: str = "", thinking: str | None = None, done: bool = False, **extra: Any) -> str:
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking is not None:
        msg["thinking"] = thinking
    return json.dumps({"model": "qwen3:8b", "message": msg, "done": done, **extra}) + "\n"


STREAM = (
    line(thinking="Need the order. ")
    + line("Checking \u00e9.\n<tool_call>")
    + line('{"name": "lookup_order", "arguments": {"order_id": "A-1"}}')
    + line("</tool_call>")
    + line("", done=True, done_reason="stop", eval_count=12)
).encode()


def summary(events: list[Any]) -> tuple[str, str, list[str]]:
    merged = merge_events(events)
    return (
        "".join(e.text for e in merged if isinstance(e, TextDelta)),
        "".join(e.text for e in merged if isinstance(e, ReasoningDelta)),
        [e.call.name for e in merged if isinstance(e, ToolCallEnd)],
    )


EXPECTED = ("Checking \u00e9.", "Need the order. ", ["lookup_order"])


def test_ndjson_lines_split_anywhere_give_the_same_result() -> None:
    for i in range(len(STREAM) + 1):
        reader = OllamaNDJSONReader()
        events = list(ollama_ndjson_events([STREAM[:i], STREAM[i:]], formats=["hermes"], reader=reader))
        assert summary(events) == EXPECTED, i
        # done_reason was "stop"; a call was accepted, so the turn's finish_reason (issue 20) is tool_calls.
        assert (reader.model, reader.finish_reason, reader.done) == ("qwen3:8b", "tool_calls", True)


def test_done_line_carries_reason_and_usage() -> None:
    items = OllamaNDJSONReader().feed(STREAM)
    assert items[-1] == ProviderDone("stop", {"eval_count": 12})
    assert ProviderDelta("reasoning", "Need the order. ") in items


def test_unterminated_error_line_raises_after_flushing_held_text() -> None:
    data = line("Hello <tool").encode() + b'{"error": "model \\"x\\" not found"}'
    seen: list[Any] = []
    with pytest.raises(ProviderError, match="not found"):
        for ev in ollama_ndjson_events([data], formats=["hermes"]):
            seen.append(ev)
    assert summary(seen)[0] == "Hello <tool"


def test_generate_endpoint_response_field_and_dict_input() -> None:
    items = OllamaNDJSONReader().feed({"model": "m", "response": "hi", "thinking": "hm", "done": False})
    assert [i for i in items if isinstance(i, ProviderDelta)] == [
        ProviderDelta("reasoning", "hm"),
        ProviderDelta("text", "hi"),
    ]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_async_ndjson_stream(backend: str) -> None:
    async def pieces() -> AsyncIterator[bytes]:
        for i in range(0, len(STREAM), 3):
            await anyio.lowlevel.checkpoint()
            yield STREAM[i : i + 3]

    async def main() -> list[Any]:
        return [ev async for ev in aollama_ndjson_events(pieces(), formats=["hermes"])]

    assert summary(anyio.run(main, backend=backend)) == EXPECTED
