"""OpenAI-compatible streams in: SSE bytes, chunk dicts and SDK objects to streamparse events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from openai.types.chat import ChatCompletionChunk

from streamparse import ReasoningDelta, TextDelta, ToolCallEnd, merge_events
from streamparse.providers import (
    OpenAISSEReader,
    ProviderDelta,
    ProviderDone,
    ProviderError,
    ProviderMeta,
    aopenai_sse_events,
    openai_sse_events,
)


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "Qwen/Qwen3-8B",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


CONTENT = [
    "Let me check.\n<tool",
    '_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1',
    '001"}}\n</tool_call>',
]
CHUNKS = (
    [chunk({"role": "assistant", "content": ""})]
    + [chunk({"reasoning_content": r}) for r in ("The user wants ", "an order.")]
    + [chunk({"content": c}) for c in CONTENT]
    + [chunk({}, "stop")]
)


def sse(chunks: list[dict[str, Any]], done: bool = True) -> bytes:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


def summary(events: list[Any]) -> tuple[str, str, list[tuple[str, dict[str, Any]]]]:
    merged = merge_events(events)
    return (
        "".join(e.text for e in merged if isinstance(e, TextDelta)),
        "".join(e.text for e in merged if isinstance(e, ReasoningDelta)),
        [(e.call.name, e.call.arguments) for e in merged if isinstance(e, ToolCallEnd)],
    )


EXPECTED = ("Let me check.", "The user wants an order.", [("lookup_order", {"order_id": "A-1001"})])


def test_sse_bytes_give_text_reasoning_and_calls() -> None:
    reader = OpenAISSEReader()
    events = list(openai_sse_events([sse(CHUNKS)], formats=["hermes"], reader=reader))
    assert summary(events) == EXPECTED
    assert (reader.id, reader.model, reader.finish_reason, reader.done) == (
        "chatcmpl-1",
        "Qwen/Qwen3-8B",
        "tool_calls",  # the upstream said "stop"; a call was accepted: the turn's finish_reason
        True,
    )


def test_any_byte_split_of_the_sse_stream_gives_the_same_result() -> None:
    data = sse(CHUNKS)
    for i in range(0, len(data), 7):
        for j in (i + 1, i + 13):
            pieces = [data[:i], data[i:j], data[j:]]
            assert summary(list(openai_sse_events(pieces, formats=["hermes"]))) == EXPECTED, (i, j)


def test_reader_items_are_deltas_meta_and_done_in_order() -> None:
    items = OpenAISSEReader().feed(sse(CHUNKS[:3] + [chunk({"content": "hi"}, "length")]))
    assert items == [
        ProviderMeta("chatcmpl-1", "Qwen/Qwen3-8B", 1700000000),
        ProviderDelta("reasoning", "The user wants "),
        ProviderDelta("reasoning", "an order."),
        ProviderDelta("text", "hi"),
        ProviderDone("length", None),
    ]


def test_reasoning_key_variants_are_read_once() -> None:
    items = OpenAISSEReader().feed(
        sse(
            [
                chunk({"reasoning": "openrouter style"}),
                chunk({"reasoning_content": "same", "reasoning": "same"}),  # newer vLLM sends both
            ],
            done=False,
        )
    )
    assert [i.text for i in items if isinstance(i, ProviderDelta)] == ["openrouter style", "same"]


def test_sdk_chunk_objects_and_dicts_are_accepted() -> None:
    objects = [ChatCompletionChunk.model_validate(c) for c in CHUNKS]
    assert summary(list(openai_sse_events(objects, formats=["hermes"]))) == EXPECTED
    assert summary(list(openai_sse_events(CHUNKS, formats=["hermes"]))) == EXPECTED


def test_error_payload_flushes_held_text_then_raises_provider_error() -> None:
    err = {"error": {"message": "model overloaded", "type": "server_error", "code": 503}}
    data = sse([chunk({"content": "Hello <tool"})], done=False) + f"data: {json.dumps(err)}\n\n".encode()
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        for ev in openai_sse_events([data], formats=["hermes"]):
            seen.append(ev)
    assert (info.value.message, info.value.status, info.value.type) == (
        "model overloaded",
        503,
        "server_error",
    )
    assert summary(seen)[0] == "Hello <tool"


def test_error_event_and_vllm_error_object_raise() -> None:
    with pytest.raises(ProviderError, match="bad request"):
        OpenAISSEReader().feed(b'event: error\ndata: {"message": "bad request", "code": 400}\n\n')
    with pytest.raises(ProviderError) as info:
        OpenAISSEReader().feed_chunk({"object": "error", "message": "too long", "type": "BadRequestError", "code": 400})
    assert (info.value.status, info.value.type) == (400, "BadRequestError")


def test_invalid_json_from_upstream_is_a_provider_error() -> None:
    with pytest.raises(ProviderError) as info:
        OpenAISSEReader().feed(b"data: {not json\n\n")
    assert info.value.type == "invalid_chunk"


def test_input_after_done_is_ignored_and_not_pulled() -> None:
    pulled: list[int] = []

    def pieces() -> Any:
        pulled.append(1)
        yield sse([chunk({"content": "answer"})])
        pulled.append(2)
        yield sse([chunk({"content": " extra"})])

    events = list(openai_sse_events(pieces(), formats=["hermes"]))
    assert summary(events)[0] == "answer"
    assert pulled == [1]


def test_missing_final_blank_line_still_delivers_the_last_chunk() -> None:
    data = sse([chunk({"content": "tail"})], done=False).rstrip(b"\n")
    assert summary(list(openai_sse_events([data], formats=["hermes"])))[0] == "tail"


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_async_reader_over_an_async_byte_stream(backend: str) -> None:
    data = sse(CHUNKS)

    async def pieces() -> AsyncIterator[bytes]:
        for i in range(0, len(data), 5):
            await anyio.lowlevel.checkpoint()
            yield data[i : i + 5]

    async def main() -> list[Any]:
        return [ev async for ev in aopenai_sse_events(pieces(), formats=["hermes"])]

    assert summary(anyio.run(main, backend=backend)) == EXPECTED


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_async_error_payload_flushes_text_decoded_in_the_same_piece(backend: str) -> None:
    err = {"error": {"message": "context length exceeded", "code": 400}}
    # Text and the error arrive in one piece: the text before the error must still come out.
    data = sse([chunk({"content": "Partial <tool"})], done=False) + f"data: {json.dumps(err)}\n\n".encode()

    async def pieces() -> AsyncIterator[bytes]:
        yield data

    seen: list[Any] = []

    async def main() -> None:
        async for ev in aopenai_sse_events(pieces(), formats=["hermes"]):
            seen.append(ev)

    with pytest.raises(ProviderError) as info:
        anyio.run(main, backend=backend)
    assert info.value.status == 400
    assert summary(seen)[0] == "Partial <tool"
