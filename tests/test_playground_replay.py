"""The playground's replay (no server): steps, held input, spans on the input, OpenAI chunks, limits."""

from __future__ import annotations

import json
from typing import Any

import pytest

from streamparse import formats, merge_events, parse
from streamparse.events import Event, ReasoningDelta, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallRejected
from streamparse.events import ToolCallStart as Start
from streamparse.parser import build_parser
from streamparse.playground.examples import examples
from streamparse.playground.replay import LIMITS, ReplayRequest, RequestError, replay
from streamparse.recordings import load_recordings


def run(req: ReplayRequest) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    messages = list(replay(req))
    assert messages[0][0] == "start" and messages[-1][0] == "done"
    assert all(kind == "step" for kind, _ in messages[1:-1])
    return messages[0][1], [m for _, m in messages[1:-1]], messages[-1][1]


def _event(d: dict[str, Any]) -> Event:
    kind = d["type"]
    if kind == "text":
        return TextDelta(d["text"])
    if kind == "reasoning":
        return ReasoningDelta(d["text"])
    if kind == "tool_call_start":
        return Start(d["index"], d["id"], d["name"])
    if kind == "tool_call_delta":
        return ToolCallDelta(d["index"], d["arguments"])
    if kind == "tool_call_rejected":
        return ToolCallRejected(d["index"], d["reason"], d["raw"], d["name"], d["detail"], d["format"])
    assert kind == "tool_call_end"
    return ToolCallEnd(d["index"], _call(d["call"]))


def _call(c: dict[str, Any]) -> Any:
    from streamparse import ToolCall

    return ToolCall(**c)


def events_of(steps: list[dict[str, Any]]) -> list[Event]:
    return [_event(d) for s in steps for d in s["events"]]


def recording_request(rec: Any, chunk_size: int, **extra: Any) -> ReplayRequest:
    fmts = () if rec.formats == "auto" else tuple(rec.formats)
    return ReplayRequest(
        input=rec.text,
        model=rec.model,
        formats=fmts,
        chunk_size=chunk_size,
        start_in_reasoning=rec.start_in_reasoning,
        **extra,
    )


def reference(rec: Any, **options: Any) -> list[Event]:
    fmts = None if rec.formats == "auto" else rec.formats
    parser = build_parser(rec.model, fmts, start_in_reasoning=rec.start_in_reasoning, **options)
    return parser.feed(rec.text) + parser.close()


def merged_spans(steps: list[dict[str, Any]]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for s, e, kind in (span for step in steps for span in step["spans"]):
        if out and out[-1][2] == kind and out[-1][1] == s:
            out[-1][1] = e
        else:
            out.append([s, e, kind])
    return out


RECORDINGS = load_recordings()


@pytest.mark.parametrize("rec", RECORDINGS, ids=[r.name for r in RECORDINGS])
@pytest.mark.parametrize("chunk_size", [1, 5, 64])
def test_every_recording_replays_to_the_events_of_one_shot_parsing(rec: Any, chunk_size: int) -> None:
    start, steps, done = run(recording_request(rec, chunk_size))
    assert start["input"] == rec.text
    assert merge_events(events_of(steps)) == merge_events(reference(rec))
    assert steps[-1]["closing"] and steps[-1]["fed"] == [len(rec.text), len(rec.text)]
    assert done["unplaced"] == 0


@pytest.mark.parametrize("rec", RECORDINGS, ids=[r.name for r in RECORDINGS])
def test_spans_cover_the_input_in_order_and_spell_out_text_and_reasoning(rec: Any) -> None:
    _, steps, _ = run(recording_request(rec, 3))
    spans = merged_spans(steps)
    assert spans[0][0] == 0 and spans[-1][1] == len(rec.text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    result = parse(rec.text, formats=rec.formats, start_in_reasoning=rec.start_in_reasoning)
    assert "".join(rec.text[s:e] for s, e, k in spans if k == "text") == result.text
    assert "".join(rec.text[s:e] for s, e, k in spans if k == "reasoning") == result.reasoning
    calls = [rec.text[s:e] for step in steps for s, e, k in step["spans"] if k == "call"]
    assert calls == [c.raw for c in result.tool_calls]


@pytest.mark.parametrize("rec", RECORDINGS, ids=[r.name for r in RECORDINGS])
def test_span_map_does_not_depend_on_chunking(rec: Any) -> None:
    whole = merged_spans(run(recording_request(rec, LIMITS["chunk_size"]))[1])
    for size in (1, 2, 7):
        assert merged_spans(run(recording_request(rec, size))[1]) == whole


@pytest.mark.parametrize("name", formats.names())
def test_span_map_of_each_format_example_does_not_depend_on_chunking(name: str) -> None:
    example = formats.get(name).example
    whole = merged_spans(run(ReplayRequest(input=example, formats=(name,), chunk_size=len(example)))[1])
    for size in (1, 3):
        assert merged_spans(run(ReplayRequest(input=example, formats=(name,), chunk_size=size))[1]) == whole


def test_a_possible_marker_prefix_is_held_until_it_is_ruled_out() -> None:
    text = "Hello <tool_cake> is not a tag."
    _, steps, _ = run(ReplayRequest(input=text, formats=("hermes",), chunk_size=12))
    first = steps[0]  # fed "Hello <tool_"
    assert first["fed"] == [0, 12]
    assert [e["text"] for e in first["events"]] == ["Hello"]  # the space waits: a separator before a marker?
    assert text[slice(*first["held"])] == " <tool_"
    assert first["open_call"] is None
    second = steps[1]  # fed "cake> is not": "<tool_cake>" is text after all, released; nothing held
    assert "".join(e["text"] for e in second["events"]) == " <tool_cake> is not"
    assert second["held"][0] == second["held"][1]


def test_an_open_call_is_reported_while_its_markup_is_held() -> None:
    text = 'Sure.<tool_call>{"name": "f", "arguments": {"a": "xxxxxxxxxx"}}</tool_call>'
    _, steps, _ = run(ReplayRequest(input=text, formats=("hermes",), chunk_size=8))
    opened = [s for s in steps if s["open_call"] is not None]
    assert opened, "no step saw the call open"
    for s in opened:
        assert text[s["held"][0] :].startswith("<tool_call>")  # held from the call's opening tag
    last = steps[-2]  # after the closing tag was fed: the call is released, nothing held
    assert last["open_call"] is None and last["held"][0] == last["held"][1] == len(text)


def test_openai_chunks_are_what_the_fail_closed_writer_sends() -> None:
    ex = next(e for e in examples() if e["name"] == "rejections")
    start, steps, done = run(ReplayRequest.from_json(ex["state"]))
    envelope = start["chunk_envelope"]
    assert envelope == {"id": "chatcmpl-playground", "object": "chat.completion.chunk", "created": 0,
                        "model": ex["state"]["model"]}  # fmt: skip
    chunks = [{**envelope, "choices": [c]} for s in steps for c in s["openai"]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    calls = [d["tool_calls"][0] for c in chunks if "tool_calls" in (d := c["choices"][0]["delta"])]
    # Only the accepted call goes out (its start, then its arguments whole); rejected ones never do.
    assert [c.get("function", {}).get("name") for c in calls] == ["get_weather", None]
    assert json.loads(calls[1]["function"]["arguments"]) == {"city": "Paris", "unit": "celsius"}
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert steps[-1]["sse"] == "data: [DONE]\n\n"
    assert done["finish_reason"] == "tool_calls"
    rejected = [e for s in steps for e in s["events"] if e["type"] == "tool_call_rejected"]
    assert [(r["reason"], r["name"]) for r in rejected] == [
        ("schema_violation", "get_weather"),
        ("unknown_tool", "book_flight"),
        ("truncated", "get_weather"),
    ]


def test_an_sse_capture_is_decoded_and_fed_delta_by_delta() -> None:
    ex = next(e for e in examples() if e["name"] == "sse-capture")
    start, steps, _ = run(ReplayRequest.from_json({**ex["state"], "input_kind": "auto"}))
    assert start["input_kind"] == "openai-sse"
    assert start["input"].startswith("I'll look that up.\n<tool_call>")
    assert start["pieces"] == len(steps) - 1  # one step per content delta, then close()
    ends = [e for s in steps for e in s["events"] if e["type"] == "tool_call_end"]
    assert [(e["call"]["name"], e["call"]["arguments"]) for e in ends] == [("get_weather", {"city": "Oslo"})]


def test_server_split_reasoning_in_an_sse_capture_passes_through() -> None:
    chunk = {"choices": [{"index": 0, "delta": {"reasoning_content": "thinking"}}]}
    body = (
        f"data: {json.dumps(chunk)}\n\n"
        + 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n'
    )
    start, steps, _ = run(ReplayRequest(input=body))
    assert start["input"] == "Hi"
    assert [e for s in steps for e in s["events"]] == [
        {"type": "reasoning", "text": "thinking"},
        {"type": "text", "text": "Hi"},
    ]


def test_many_chunks_are_fed_several_per_step_within_the_step_limit() -> None:
    text = "word " * 2000 + '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    start, steps, _ = run(ReplayRequest(input=text, formats=("hermes",), chunk_size=1))
    assert start["pieces"] == len(text) and start["per_step"] == 6
    assert len(steps) - 1 == start["steps"] <= LIMITS["steps"]
    assert merge_events(events_of(steps)) == merge_events(parse(text, formats=["hermes"]).events)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "JSON object"),
        ({"input": 5}, "'input' must be a string"),
        ({"input": "x" * (LIMITS["input_chars"] + 1)}, "at most"),
        ({"input": "x", "input_kind": "html"}, "input_kind"),
        ({"input": "x", "formats": "hermes"}, "list of format names"),
        ({"input": "x", "chunk_size": 0}, "chunk_size"),
        ({"input": "x", "chunk_size": 2.5}, "whole number"),
        ({"input": "x", "speed": -1}, "speed"),
        ({"input": "x", "tools": "[{"}, "invalid JSON"),
        ({"input": "x", "tools": '{"a": 1}'}, "expected a JSON list"),
        ({"input": "x", "start_in_reasoning": "maybe"}, "start_in_reasoning"),
    ],
)
def test_bad_requests_are_refused_with_a_reason(body: Any, message: str) -> None:
    with pytest.raises(RequestError, match=message):
        ReplayRequest.from_json(body)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"input": "x", "formats": ["hermez"]}, "unknown format 'hermez'"),
        ({"input": "x", "tools": '[{"type": "function", "function": {}}]'}, "no name"),
        ({"input": 'data: {"error": {"message": "boom"}}\n\n'}, "boom"),
        ({"input": "data: {}\n\n", "input_kind": "openai-sse"}, "no content"),
    ],
)
def test_unusable_options_fail_before_the_first_message(body: dict[str, Any], message: str) -> None:
    with pytest.raises(RequestError, match=message):
        next(replay(ReplayRequest.from_json(body)))


def test_a_model_preset_configures_the_replay_and_is_reported() -> None:
    start, steps, _ = run(ReplayRequest(input="a</think>b", model="Qwen/QwQ-32B"))
    assert start["preset"]["family"] and start["preset"]["start_in_reasoning"] is True
    assert [e["type"] for s in steps for e in s["events"]] == ["reasoning", "text"]
    start, steps, _ = run(ReplayRequest(input="a</think>b", model="Qwen/QwQ-32B", start_in_reasoning=False))
    assert "reasoning" not in [e["type"] for s in steps for e in s["events"]]


def test_every_example_replays_without_unplaced_pieces() -> None:
    for ex in examples():
        _, steps, done = run(ReplayRequest.from_json(ex["state"]))
        assert done["unplaced"] == 0, ex["name"]
        assert any(e["type"] == "tool_call_end" for s in steps for e in s["events"]), ex["name"]


@pytest.mark.parametrize(("mode", "calls"), [("ignore", 0), ("promote", 1)])
def test_calls_in_reasoning_follow_the_requested_policy(mode: str, calls: int) -> None:
    text = '<think>I will call.<tool_call>{"name": "f", "arguments": {}}</tool_call></think>Done.'
    body = {"input": text, "formats": ["hermes"], "calls_in_reasoning": mode}
    _, steps, _ = run(ReplayRequest.from_json(body))
    assert sum(e["type"] == "tool_call_end" for s in steps for e in s["events"]) == calls
