"""Tool calls the server already structured (OpenAI/vLLM ``delta.tool_calls``, Ollama ``message.tool_calls``,
Anthropic ``tool_use`` blocks) come out of the readers as the same events as calls written in the text:
Start / Delta / End, validated against the tools, rejected when invalid, in order with text-written calls.

Wire shapes: OpenAI chat.completions chunks as the OpenAI API sends them (the capture in llama.cpp PR
#12379: first entry ``{"index", "id", "type", "function": {"name", "arguments": ""}}``, then
``function.arguments`` pieces); vLLM's continuation entries carry ``"id": ""`` (lmdeploy issue #3412 quotes
vLLM and SGLang deltas, SGLang repeating the id); Ollama /api/chat lines as its API documentation shows them
(arguments as an object, ``done_reason: "stop"``); Anthropic Messages streaming events as its streaming
documentation shows them (``content_block_start`` tool_use with ``input: {}``, ``input_json_delta`` pieces
beginning with an empty ``partial_json``).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse import (
    StreamParser,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
    merge_events,
)
from streamparse.events import ParseResult
from streamparse.providers import (
    OllamaNDJSONReader,
    OpenAISSEReader,
    anthropic_sse_events,
    aopenai_sse_events,
    ollama_ndjson_events,
    openai_sse_events,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    },
    {"type": "function", "function": {"name": "lookup_order", "parameters": {"type": "object", "properties": {}}}},
]


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-BArAOzrqdSYW1UJvOwWb9nXAy1qo4",
        "object": "chat.completion.chunk",
        "created": 1741927352,
        "model": "gpt-3.5-turbo-0125",
        "system_fingerprint": None,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def first(index: int, call_id: str, name: str) -> dict[str, Any]:
    return {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}


def args(index: int, text: str, call_id: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": text}}
    if call_id is not None:
        entry["id"] = call_id
    return entry


def sse(chunks: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


OPENAI_CALL = [
    chunk({"role": "assistant", "content": "Let me check."}),
    chunk({"tool_calls": [first(0, "call_aqwOReHDKPnqiF7NbRxzDTY1", "get_weather")]}),
    chunk({"tool_calls": [args(0, '{"')]}),
    chunk({"tool_calls": [args(0, 'city": "Pa')]}),
    chunk({"tool_calls": [args(0, 'ris"}')]}),
    chunk({}, "tool_calls"),
]


def run(pieces: list[Any], **options: Any) -> list[Any]:
    return list(openai_sse_events(pieces, **options))


def test_openai_structured_call_becomes_start_deltas_and_a_validated_end() -> None:
    events = merge_events(run(OPENAI_CALL, tools=TOOLS))
    assert events[0] == TextDelta("Let me check.")
    assert events[1] == ToolCallStart(0, "call_aqwOReHDKPnqiF7NbRxzDTY1", "get_weather")
    assert events[2] == ToolCallDelta(0, '{"city": "Paris"}')
    end = events[3]
    assert isinstance(end, ToolCallEnd) and end.index == 0
    assert (end.call.name, end.call.arguments, end.call.validation) == ("get_weather", {"city": "Paris"}, "pass")
    assert end.call.id == "call_aqwOReHDKPnqiF7NbRxzDTY1" and end.call.format == "openai_tool_calls"
    assert len(events) == 4


def test_structured_call_is_the_same_under_every_byte_chunking_of_the_sse() -> None:
    raw = sse(OPENAI_CALL)
    whole = merge_events(run([raw], tools=TOOLS))
    assert merge_events(run([raw[i : i + 1] for i in range(len(raw))], tools=TOOLS)) == whole
    assert merge_events(run([raw[i : i + 7] for i in range(0, len(raw), 7)], tools=TOOLS)) == whole
    assert sum(isinstance(e, ToolCallEnd) for e in whole) == 1


def test_mixed_stream_keeps_the_text_written_call_and_the_structured_one_in_order() -> None:
    text_call = '<tool_call>{"name": "lookup_order", "arguments": {}}</tool_call>'
    pieces = [chunk({"content": "First. " + text_call[:20]}), chunk({"content": text_call[20:]}), *OPENAI_CALL[1:]]
    events = run(pieces, formats=["hermes"], tools=TOOLS)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.index, e.call.name, e.call.format) for e in ends] == [
        (0, "lookup_order", "hermes"),
        (1, "get_weather", "openai_tool_calls"),
    ]
    starts = [e.index for e in events if isinstance(e, ToolCallStart)]
    assert starts == [0, 1]  # one index space: no two calls share an index
    assert ParseResult.from_events(events).finish_reason == "tool_calls"


def test_parallel_structured_calls_each_end_before_the_next_starts() -> None:
    pieces = [
        chunk({"tool_calls": [first(0, "call_a", "get_weather")]}),
        chunk({"tool_calls": [args(0, '{"city": "Lyon"}')]}),
        chunk({"tool_calls": [first(1, "call_b", "lookup_order")]}),
        chunk({"tool_calls": [args(1, "{}")]}),
        chunk({}, "tool_calls"),
    ]
    kinds = [(type(e).__name__, e.index) for e in run(pieces, tools=TOOLS) if not isinstance(e, TextDelta)]
    assert kinds == [
        ("ToolCallStart", 0),
        ("ToolCallDelta", 0),
        ("ToolCallEnd", 0),  # complete as soon as the next call begins: dispatchable early
        ("ToolCallStart", 1),
        ("ToolCallDelta", 1),
        ("ToolCallEnd", 1),
    ]


def test_a_server_reusing_index_0_for_every_call_still_yields_two_calls() -> None:
    # lmdeploy issue #3412: every call at index 0, told apart by a new id with a name.
    pieces = [
        chunk({"tool_calls": [first(0, "chatcmpl-tool-c9ZC", "get_weather")]}),
        chunk({"tool_calls": [args(0, '{"city": "Oslo"}', call_id="")]}),
        chunk({"tool_calls": [first(0, "chatcmpl-tool-HfzZ", "get_weather")]}),
        chunk({"tool_calls": [args(0, '{"city": "Rome"}', call_id="")]}),
        chunk({}, "tool_calls"),
    ]
    ends = [e.call for e in run(pieces, tools=TOOLS) if isinstance(e, ToolCallEnd)]
    assert [(c.id, c.arguments["city"]) for c in ends] == [
        ("chatcmpl-tool-c9ZC", "Oslo"),
        ("chatcmpl-tool-HfzZ", "Rome"),
    ]


def test_structured_call_to_an_undeclared_tool_is_rejected_before_any_start() -> None:
    pieces = [
        chunk({"tool_calls": [first(0, "call_x", "delete_everything")]}),
        chunk({"tool_calls": [args(0, '{"path": "/"}')]}),
        chunk({}, "tool_calls"),
    ]
    events = run(pieces, tools=TOOLS)
    assert not any(isinstance(e, ToolCallStart | ToolCallDelta | ToolCallEnd) for e in events)
    (rejected,) = [e for e in events if isinstance(e, ToolCallRejected)]
    assert (rejected.reason, rejected.name, rejected.started) == ("unknown_tool", "delete_everything", False)


def test_structured_call_with_invalid_arguments_is_rejected_with_them() -> None:
    pieces = [
        chunk({"tool_calls": [first(0, "call_x", "get_weather")]}),
        chunk({"tool_calls": [args(0, '{"city": "Paris", "days": "many"}')]}),
        chunk({}, "tool_calls"),
    ]
    reader = OpenAISSEReader()
    parser = StreamParser(tools=TOOLS, record=True)
    events = list(openai_sse_events(pieces, parser=parser, reader=reader))
    rejected = events[-1]
    assert isinstance(rejected, ToolCallRejected) and rejected.started
    assert rejected.reason == "schema_violation" and "$.days" in rejected.detail
    assert rejected.arguments == '{"city": "Paris", "days": "many"}'
    assert parser.finish_reason == "stop" and parser.stats.rejections == {"schema_violation": 1}


def test_structured_call_cut_by_the_length_limit_is_truncated_and_the_finish_reason_says_length() -> None:
    pieces = [
        chunk({"tool_calls": [first(0, "call_x", "get_weather")]}),
        chunk({"tool_calls": [args(0, '{"city": "Par')]}),
        chunk({}, "length"),
    ]
    events = run(pieces, tools=TOOLS)
    assert [(e.reason, e.started) for e in events if isinstance(e, ToolCallRejected)] == [("truncated", True)]
    assert ParseResult.from_events(events).finish_reason == "length"


def test_a_stream_dropped_inside_a_structured_call_never_returns_the_call() -> None:
    raw = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in OPENAI_CALL[:4])  # no finish, no [DONE]
    events = run([raw], tools=TOOLS)
    assert not any(isinstance(e, ToolCallEnd) for e in events)
    assert [e.reason for e in events if isinstance(e, ToolCallRejected)] == ["truncated"]


def test_snapshot_and_result_see_the_structured_call() -> None:
    parser = StreamParser(tools=TOOLS, record=True)
    stream = iter(openai_sse_events(OPENAI_CALL, parser=parser))
    for event in stream:
        if isinstance(event, ToolCallDelta) and "Pa" in event.arguments:
            assert parser.snapshot(event.index).arguments == {"city": "Pa"}
            break
    list(stream)
    message = parser.result().to_openai_message()
    assert message["content"] == "Let me check."
    assert message["tool_calls"] == [
        {
            "id": "call_aqwOReHDKPnqiF7NbRxzDTY1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ]


def test_async_reader_emits_structured_calls_too() -> None:
    async def source() -> Any:
        for c in OPENAI_CALL:
            yield c

    async def main() -> list[Any]:
        return [e async for e in aopenai_sse_events(source(), tools=TOOLS)]

    events = anyio.run(main)
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEnd)] == [{"city": "Paris"}]


OLLAMA_LINES = [
    {
        "model": "llama3.2",
        "created_at": "2024-07-22T20:33:28.123648Z",
        "message": {"role": "assistant", "content": "Checking. "},
        "done": False,
    },
    {
        "model": "llama3.2",
        "created_at": "2024-07-22T20:33:28.223648Z",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris, FR", "days": 2}}}],
        },
        "done": False,
    },
    {
        "model": "llama3.2",
        "created_at": "2024-07-22T20:33:28.323648Z",
        "message": {"role": "assistant", "content": ""},
        "done_reason": "stop",
        "done": True,
        "total_duration": 885095291,
        "eval_count": 16,
    },
]


@pytest.mark.parametrize("size", [0, 1, 13])
def test_ollama_tool_calls_become_validated_calls(size: int) -> None:
    raw = "".join(json.dumps(line) + "\n" for line in OLLAMA_LINES).encode()
    pieces = [raw] if not size else [raw[i : i + size] for i in range(0, len(raw), size)]
    events = merge_events(list(ollama_ndjson_events(pieces, tools=TOOLS)))
    assert events[0] == TextDelta("Checking.")  # the space before the call is a separator (exact output)
    assert isinstance(events[1], ToolCallStart) and events[1].name == "get_weather"
    assert events[2] == ToolCallDelta(0, '{"city": "Paris, FR", "days": 2}')
    end = events[3]
    assert isinstance(end, ToolCallEnd) and end.call.arguments == {"city": "Paris, FR", "days": 2}
    assert end.call.format == "ollama_tool_calls" and end.call.id == events[1].id == "call_0"
    # Ollama says done_reason "stop"; a call was accepted, so the turn's finish_reason is tool_calls.
    assert ParseResult.from_events(events, "stop").finish_reason == "tool_calls"
    reader = OllamaNDJSONReader()
    list(ollama_ndjson_events(pieces, tools=TOOLS, reader=reader))
    assert reader.finish_reason == "tool_calls"


ANTHROPIC_EVENTS = [
    {
        "type": "message_start",
        "message": {"id": "msg_014p7gG3wDgGV9EUtLvnow3U", "type": "message", "role": "assistant", "model": "claude"},
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Okay, let me check."}},
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {
            "type": "tool_use",
            "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            "name": "get_weather",
            "input": {},
        },
    },
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"city":'}},
    {
        "type": "content_block_delta",
        "index": 1,
        "delta": {"type": "input_json_delta", "partial_json": ' "San Francisco"}'},
    },
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 89},
    },
    {"type": "message_stop"},
]


def test_anthropic_tool_use_blocks_become_validated_calls() -> None:
    raw = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in ANTHROPIC_EVENTS)
    for pieces in ([raw], [raw[i : i + 5] for i in range(0, len(raw), 5)], ANTHROPIC_EVENTS):
        events = merge_events(list(anthropic_sse_events(pieces, tools=TOOLS)))
        assert events[0] == TextDelta("Okay, let me check.")
        assert events[1] == ToolCallStart(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather")
        assert events[2] == ToolCallDelta(0, '{"city": "San Francisco"}')
        assert isinstance(events[3], ToolCallEnd) and events[3].call.format == "anthropic_tool_use"
        assert events[3].call.arguments == {"city": "San Francisco"}


def test_anthropic_tool_use_to_an_unknown_tool_is_rejected() -> None:
    renamed = [
        {**e, "content_block": {**e["content_block"], "name": "rm_rf"}} if e["type"] == "content_block_start" else e
        for e in ANTHROPIC_EVENTS
    ]
    events = list(anthropic_sse_events(renamed, tools=TOOLS))
    assert [(e.reason, e.name) for e in events if isinstance(e, ToolCallRejected)] == [("unknown_tool", "rm_rf")]
    assert not any(isinstance(e, ToolCallStart) for e in events)


def test_the_upstream_stop_reason_reaches_close_so_a_call_whose_closer_a_stop_sequence_ate_is_kept() -> None:
    body = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}'  # "</tool_call>" was the stop string
    stopped = [chunk({"content": body}), chunk({}, "stop")]
    assert [e.call.arguments for e in run(stopped, tools=TOOLS) if isinstance(e, ToolCallEnd)] == [{"city": "Paris"}]
    cut = [chunk({"content": body}), chunk({}, "length")]
    assert [e.reason for e in run(cut, tools=TOOLS) if isinstance(e, ToolCallRejected)] == ["truncated"]


MIXED = [
    chunk({"role": "assistant", "content": "One. "}),
    chunk({"content": '<tool_call>{"name": "lookup_order", "arguments": {}}</tool_call> Two. '}),
    chunk({"tool_calls": [first(0, "call_a", "get_weather")]}),
    chunk({"tool_calls": [args(0, '{"city": "Lyon", "days": 2}')]}),
    chunk({"tool_calls": [first(1, "call_b", "nope")]}),
    chunk({"tool_calls": [args(1, "{}")]}),
    chunk({}, "tool_calls"),
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(sse(MIXED))), max_size=40))
def test_mixed_stream_events_do_not_depend_on_how_the_bytes_are_split(cuts: list[int]) -> None:
    raw = sse(MIXED)
    bounds = [0, *sorted(set(cuts)), len(raw)]
    pieces = [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    got = merge_events(run(pieces, formats=["hermes"], tools=TOOLS))
    assert got == merge_events(run([raw], formats=["hermes"], tools=TOOLS))
    assert [type(e).__name__ for e in got if not isinstance(e, TextDelta | ToolCallDelta)] == [
        "ToolCallStart",
        "ToolCallEnd",
        "ToolCallStart",
        "ToolCallEnd",
        "ToolCallRejected",
    ]


def test_anthropic_tool_use_cut_by_max_tokens_is_truncated() -> None:
    cut = [
        *ANTHROPIC_EVENTS[:7],  # the tool_use block has its first argument piece only
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens", "stop_sequence": None}, "usage": {}},
        {"type": "message_stop"},
    ]
    events = list(anthropic_sse_events(cut, tools=TOOLS))
    assert [(e.reason, e.started) for e in events if isinstance(e, ToolCallRejected)] == [("truncated", True)]
    assert ParseResult.from_events(events).finish_reason == "length"


def test_anthropic_tool_use_ends_as_soon_as_the_next_block_begins() -> None:
    second = {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "toolu_02", "name": "lookup_order", "input": {}},
    }
    reader_events = list(anthropic_sse_events([*ANTHROPIC_EVENTS[:9], second], tools=TOOLS))
    kinds = [type(e).__name__ for e in reader_events if not isinstance(e, TextDelta | ToolCallDelta)]
    assert kinds[:3] == ["ToolCallStart", "ToolCallEnd", "ToolCallStart"]  # the first ends before the second starts


def test_a_non_streaming_completion_with_tool_calls_gives_the_same_events() -> None:
    completion = {
        "id": "chatcmpl-abc123",
        "object": "chat.completion",
        "created": 1741927352,
        "model": "gpt-4.1-mini",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                        },
                        {"id": "call_2", "type": "function", "function": {"name": "lookup_order", "arguments": "{}"}},
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    ends = [e for e in run([completion], tools=TOOLS) if isinstance(e, ToolCallEnd)]
    assert [(e.index, e.call.id, e.call.arguments) for e in ends] == [
        (0, "call_1", {"city": "Oslo"}),
        (1, "call_2", {}),
    ]
