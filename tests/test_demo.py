"""The bundled recordings, their chunking, recording lookup and the demo's two renderings."""

from __future__ import annotations

import io
import json
from importlib import resources

import pytest

from streamparse import parse
from streamparse.cli.demo import DemoState, run_demo
from streamparse.events import TextDelta, ToolCallEnd, ToolCallRejected, ToolCallStart
from streamparse.recordings import (
    DEMO_TOOLS,
    Recording,
    find_recording,
    load_recordings,
    make_recording,
    tokenish_chunks,
)
from streamparse.recordings.tools import _FAKE_TOOLS

RECORDINGS = load_recordings()
FAMILIES = {"qwen3", "qwen3-coder", "deepseek-v3.1", "gpt-oss", "kimi-k2"}


def test_the_required_model_families_are_bundled() -> None:
    assert {r.name for r in RECORDINGS} >= FAMILIES


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r.name)
def test_recording_file_has_the_documented_shape(rec: Recording) -> None:
    name = rec.name
    data = json.loads(resources.files("streamparse.recordings").joinpath(f"{name}.json").read_text("utf-8"))
    assert set(data) >= {"model", "formats", "start_in_reasoning", "chunks"}
    assert data["formats"] == "auto" or isinstance(data["formats"], list)
    assert isinstance(data["start_in_reasoning"], bool)
    assert all(isinstance(c, str) and c for c in data["chunks"])


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r.name)
def test_recording_calls_validate_against_the_demo_tools(rec: Recording) -> None:
    result = parse(rec.text, formats=rec.formats, start_in_reasoning=rec.start_in_reasoning, tools=DEMO_TOOLS)
    assert result.tool_calls and not result.rejected
    assert result.text.strip(), "realistic prose around the calls"
    for call in result.tool_calls:
        assert call.name in _FAKE_TOOLS and call.validation == "pass"


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r.name)
def test_recording_chunks_are_token_sized(rec: Recording) -> None:
    chunks = rec.chunks
    assert len(chunks) > 50
    long = [c for c in chunks if len(c) > 6]
    assert all(c.startswith(("<", "[")) and c.endswith((">", "[")) for c in long), long


def test_recording_replay_is_chunking_invariant_with_the_preset() -> None:
    for rec in RECORDINGS:
        parser = rec.parser(tools=DEMO_TOOLS)
        events = [ev for chunk in rec.chunks for ev in parser.feed(chunk)] + parser.close()
        streamed = [(e.call.name, e.call.arguments) for e in events if isinstance(e, ToolCallEnd)]
        whole = parse(rec.text, formats=rec.formats, start_in_reasoning=rec.start_in_reasoning, tools=DEMO_TOOLS)
        assert streamed == [(c.name, c.arguments) for c in whole.tool_calls], rec.name


def test_tokenish_chunks_are_lossless_deterministic_and_keep_special_tokens_whole() -> None:
    text = 'Hi there<|tool_call_begin|>functions.x:0<｜tool▁sep｜>{"a": 1}</think> done [e~['
    a, b = tokenish_chunks(text, seed=3), tokenish_chunks(text, seed=3)
    assert a == b and "".join(a) == text
    for token in ("<|tool_call_begin|>", "<｜tool▁sep｜>", "</think>", "[e~["):
        assert token in a
    assert tokenish_chunks(text, seed=4) != a


def test_make_recording_round_trips_the_text() -> None:
    rec = make_recording("x", "Hello <tool_call>{}</tool_call>", model="m/x", formats=["hermes"])
    assert rec.text == "Hello <tool_call>{}</tool_call>" and rec.to_json()["formats"] == ["hermes"]


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3-coder"),
        ("qwen3", "qwen3"),
        ("openai/gpt-oss-20b", "gpt-oss"),
        ("DeepSeek-V3.1", "deepseek-v3.1"),
        ("moonshotai/Kimi-K2-Instruct-0905", "kimi-k2"),
    ],
)
def test_find_recording_by_model_family(query: str, name: str) -> None:
    assert find_recording(model=query).name == name


def test_find_recording_unknown_name_raises_with_choices() -> None:
    with pytest.raises(LookupError, match="qwen3-coder"):
        find_recording(name="nope")


def test_demo_state_shows_rejected_calls() -> None:
    state = DemoState()
    state.apply(TextDelta("hi"))
    state.apply(ToolCallStart(0, "call_0", "get_weather"))
    state.apply(ToolCallRejected(0, "schema_violation", "<tool_call>…", "get_weather", "unit: not in enum"))
    assert state.calls[0].status == "rejected" and "schema_violation" in (state.calls[0].reason or "")
    assert state.accepted == []


def test_live_view_renders_reasoning_text_calls_and_results() -> None:
    out = io.StringIO()
    state = run_demo(find_recording(name="deepseek-v3.1"), speed=0, plain=False, out=out)
    rendered = out.getvalue()
    assert state.finish_reason == "tool_calls"
    assert [c.status for c in state.accepted] == ["done", "done"]
    for needle in (
        "lookup_order",
        "track_shipment",
        "in transit",
        "I'm sorry your package is late",
        "The customer says order A-1001",
        "finish_reason: tool_calls",
    ):
        assert needle in rendered


def test_plain_view_is_chosen_when_output_is_not_a_terminal() -> None:
    out = io.StringIO()
    run_demo(find_recording(name="kimi-k2"), speed=0, out=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("streamparse demo · kimi-k2")
    assert "call #0 search_docs: started (id functions.search_docs:0)" in lines
