"""OpenAI chunks out: validated with the official SDK's types and its own stream accumulator."""

from __future__ import annotations

import json
from typing import Any

from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from streamparse import (
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
    parse,
)
from streamparse.providers import OpenAIChunkWriter, completion_from_result, to_sse
from streamparse.providers.sse import SSEDecoder

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

# Three candidates; the middle one violates the schema and is rejected after its deltas were emitted.
TEXT = (
    "<think>Two cities.</think>Checking. "
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    '<tool_call>{"name": "get_weather", "arguments": {"town": "LEAKED"}}</tool_call>'
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
)


def accumulate(chunks: list[dict[str, Any]], final: bool = True) -> Any:
    """What the openai client builds from the stream (it validates each chunk as it goes)."""
    state = ChatCompletionStreamState()
    for c in chunks:
        state.handle_chunk(ChatCompletionChunk.model_validate(c))
    # get_final_completion() refuses finish_reason "length" by design: the snapshot is the same build.
    return state.get_final_completion() if final else state.current_completion_snapshot


def write_all(writer: OpenAIChunkWriter, events: list[Any], reason: str | None = None) -> list[dict[str, Any]]:
    return writer.write(events) + writer.finish(reason)


def test_parsed_stream_reassembles_in_the_openai_client() -> None:
    events = parse(TEXT, formats=["hermes"], tools=TOOLS).events
    assert any(isinstance(e, ToolCallRejected) for e in events)
    chunks = write_all(OpenAIChunkWriter("qwen3", id="chatcmpl-x", created=1), events)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    completion = accumulate(chunks)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Checking."
    calls = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls]
    assert calls == [
        ("call_0", "get_weather", {"city": "Paris"}),
        ("call_2", "get_weather", {"city": "Rome"}),
    ]
    assert completion.id == "chatcmpl-x"
    assert choice.message.model_extra is not None  # reasoning_content survives as an extra field
    reasoning = "".join(c["choices"][0]["delta"].get("reasoning_content", "") for c in chunks if c["choices"])
    assert reasoning == "Two cities."


def test_rejected_call_never_reaches_the_wire_and_indices_stay_contiguous() -> None:
    events = parse(TEXT, formats=["hermes"], tools=TOOLS).events
    chunks = write_all(OpenAIChunkWriter("m"), events)
    wire = json.dumps(chunks)
    assert "LEAKED" not in wire and "town" not in wire
    indices = [tc["index"] for c in chunks for tc in c["choices"][0]["delta"].get("tool_calls", []) if "id" in tc]
    assert indices == [0, 1]


def test_hand_built_events_with_a_rejection_between_two_calls_are_remapped() -> None:
    a = ToolCall("call_a", "f", {"x": 1}, '{"x": 1}', "hermes", "raw")
    b = ToolCall("call_b", "g", {}, "{}", "hermes", "raw")
    events = [
        ToolCallStart(0, "call_a", "f"),
        ToolCallDelta(0, '{"x": '),
        ToolCallDelta(0, "1}"),
        ToolCallEnd(0, a),
        ToolCallStart(1, "call_bad", "h"),
        ToolCallDelta(1, '{"y"'),
        ToolCallRejected(1, "truncated", "raw", "h"),
        ToolCallStart(2, "call_b", "g"),
        ToolCallDelta(2, "{}"),
        ToolCallEnd(2, b),
    ]
    message = accumulate(write_all(OpenAIChunkWriter("m"), events)).choices[0].message
    assert [(tc.index, tc.id, tc.function.arguments) for tc in message.tool_calls] == [
        (0, "call_a", '{"x": 1}'),
        (1, "call_b", "{}"),
    ]


def test_buffered_mode_sends_nothing_of_a_call_before_its_end() -> None:
    w = OpenAIChunkWriter("m")
    w.write(TextDelta("hi"))
    assert w.write([ToolCallStart(0, "c", "f"), ToolCallDelta(0, '{"a"')]) == []


def test_eager_mode_streams_argument_deltas_as_they_arrive() -> None:
    w = OpenAIChunkWriter("m", eager=True)
    first = w.write([ToolCallStart(0, "c", "f"), ToolCallDelta(0, '{"a": ')])
    assert [c["choices"][0]["delta"]["tool_calls"][0] for c in first[1:]] == [
        {"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": ""}},
        {"index": 0, "function": {"arguments": '{"a": '}},
    ]
    rest = w.write([ToolCallDelta(0, "1}"), ToolCallEnd(0, ToolCall("c", "f", {"a": 1}, '{"a": 1}', "x", "r"))])
    msg = accumulate(first + rest + w.finish()).choices[0].message
    assert msg.tool_calls[0].function.arguments == '{"a": 1}'


def test_finish_reason_is_upstreams_without_calls_and_stop_by_default() -> None:
    w = OpenAIChunkWriter("m")
    assert accumulate(write_all(w, [TextDelta("cut")], "length"), final=False).choices[0].finish_reason == "length"
    w = OpenAIChunkWriter("m")
    assert accumulate(write_all(w, [TextDelta("ok")])).choices[0].finish_reason == "stop"
    w = OpenAIChunkWriter("m")  # only a rejected candidate: no tool_calls finish
    assert accumulate(write_all(w, [ToolCallRejected(0, "malformed", "x")])).choices[0].finish_reason == "stop"


def test_rejected_note_is_opt_in_visible_text() -> None:
    ev = [ToolCallRejected(0, "schema_violation", "raw", "f")]
    assert accumulate(write_all(OpenAIChunkWriter("m"), ev)).choices[0].message.content in ("", None)
    noted = accumulate(write_all(OpenAIChunkWriter("m", rejected_note=True), ev)).choices[0].message.content
    assert noted == "[tool call f rejected: schema_violation]"


def test_to_sse_frames_a_chunk_that_decodes_back() -> None:
    chunk = OpenAIChunkWriter("m").write(TextDelta("a\nb"))[-1]
    frame = to_sse(chunk)
    assert frame.startswith(b"data: ") and frame.endswith(b"\n\n")
    (event,) = SSEDecoder().feed(frame)
    assert json.loads(event.data) == chunk


def test_completion_from_result_validates_as_chat_completion() -> None:
    result = parse(TEXT, formats=["hermes"], tools=TOOLS)
    completion = ChatCompletion.model_validate(completion_from_result(result, "qwen3", usage=None))
    msg = completion.choices[0].message
    calls = [tc.model_dump() for tc in msg.tool_calls or []]
    assert [json.loads(c["function"]["arguments"])["city"] for c in calls] == ["Paris", "Rome"]
    assert completion.choices[0].finish_reason == "tool_calls"
    assert msg.content == "Checking."
    assert (msg.model_extra or {}).get("reasoning_content") == "Two cities."
    only_calls = parse('<tool_call>{"name": "f", "arguments": {}}</tool_call>', formats=["hermes"])
    msg2 = ChatCompletion.model_validate(completion_from_result(only_calls, "m")).choices[0].message
    assert msg2.content is None and msg2.tool_calls is not None


def test_reasoning_field_can_be_renamed() -> None:
    chunks = OpenAIChunkWriter("m", reasoning_field="reasoning").write(ReasoningDelta("hmm"))
    assert chunks[-1]["choices"][0]["delta"] == {"reasoning": "hmm"}
