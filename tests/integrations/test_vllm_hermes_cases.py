"""vLLM's Hermes tool-parser cases (tests/tool_parsers/test_hermes_tool_parser.py at v0.33), as data.

Each case runs against the adapter (``streamparse_hermes``) and, marked ``peer``, against vLLM's own
``Hermes2ProToolParser``, so the pass counts can be read side by side (docs/integrations.md). The
inputs and the expectations are vLLM's; the harness is ours (tests/integrations/vllm_drive.py).
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from engine_tokenizer import marker_tokenizer
from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser
from vllm_drive import chat_request, joined_arguments, stream, tool_deltas

from streamparse.integrations.vllm import TOOL_PARSERS

IMPLS = {"streamparse": TOOL_PARSERS["streamparse_hermes"], "vllm": Hermes2ProToolParser}


# The engine's own parser on the same cases is the baseline `make vllm-baseline` runs (it sets this variable);
# `make test-vllm` collects only the adapter.
BASELINE = os.environ.get("STREAMPARSE_ENGINE_BASELINE") == "1"


@pytest.fixture(params=[pytest.param("vllm", marks=pytest.mark.peer)] if BASELINE else ["streamparse"])
def make(request: Any) -> Any:
    tokenizer = marker_tokenizer()
    return lambda: IMPLS[request.param](tokenizer)


@pytest.fixture
def tok() -> Any:
    return marker_tokenizer()


@pytest.fixture
def req() -> Any:
    return chat_request(seed=42)


def test_streaming_just_forwards_text(make: Any, tok: Any, req: Any) -> None:
    text = "This is some prior text that has nothing to do with tool calling."
    deltas = stream(make(), tok, req, text)
    assert all(not d.tool_calls for d in deltas)
    assert "".join(d.content for d in deltas) == text


def test_streaming_bool_argument_bug_19056(make: Any, tok: Any, req: Any) -> None:
    text = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>'
    deltas = stream(make(), tok, req, text)
    assert deltas[0].tool_calls[0].function.name == "final_answer"
    assert joined_arguments(deltas) == '{"trigger": true}'


def test_streaming_call(make: Any, tok: Any, req: Any) -> None:
    text = (
        '<tool_call>{"name": "get_current_temperature","arguments": {"location":'
        '"San Francisco, California, United States", "unit": "celsius"}}</tool_call>'
    )
    deltas = stream(make(), tok, req, text)
    assert deltas[0].tool_calls[0].function.name == "get_current_temperature"
    assert json.loads(joined_arguments(deltas)) == {
        "location": "San Francisco, California, United States",
        "unit": "celsius",
    }


@pytest.mark.parametrize("interval", [2, 3, 5, 8])
def test_streaming_call_at_stream_interval(make: Any, tok: Any, req: Any, interval: int) -> None:
    text = (
        '<tool_call>{"name": "get_current_temperature", '
        '"arguments": {"location": "San Francisco", "unit": "celsius"}}</tool_call>'
    )
    deltas = stream(make(), tok, req, text, interval)
    assert tool_deltas(deltas)[0].function.name == "get_current_temperature"
    assert json.loads(joined_arguments(deltas)) == {"location": "San Francisco", "unit": "celsius"}


@pytest.mark.parametrize("interval", [2, 3, 5, 8])
def test_streaming_content_then_call_at_stream_interval(make: Any, tok: Any, req: Any, interval: int) -> None:
    text = 'Sure, let me check the weather.<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>'
    deltas = stream(make(), tok, req, text, interval)
    assert "".join(d.content for d in deltas if d.content) == "Sure, let me check the weather."
    assert tool_deltas(deltas)[0].function.name == "get_weather"
    assert json.loads(joined_arguments(deltas)) == {"city": "NYC"}


@pytest.mark.parametrize("interval", [1, 2, 4])
def test_streaming_two_calls_at_stream_interval(make: Any, tok: Any, req: Any, interval: int) -> None:
    text = (
        '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>'
        '<tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>'
    )
    deltas = stream(make(), tok, req, text, interval)
    calls = tool_deltas(deltas)
    assert [tc for tc in calls if tc.index == 0][0].function.name == "search"
    assert json.loads(joined_arguments(deltas, 0)) == {"q": "cats"}
    assert [tc for tc in calls if tc.index == 1][0].function.name == "search"
    assert json.loads(joined_arguments(deltas, 1)) == {"q": "dogs"}


@pytest.mark.parametrize("interval", [2, 5])
def test_streaming_bool_argument_at_stream_interval(make: Any, tok: Any, req: Any, interval: int) -> None:
    text = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>'
    deltas = stream(make(), tok, req, text, interval)
    assert tool_deltas(deltas)[0].function.name == "final_answer"
    assert json.loads(joined_arguments(deltas)) == {"trigger": True}


@pytest.mark.parametrize("interval", [2, 3, 5])
def test_streaming_forwards_text_at_stream_interval(make: Any, tok: Any, req: Any, interval: int) -> None:
    text = "This is plain text with no tool calling involved."
    deltas = stream(make(), tok, req, text, interval)
    assert all(not d.tool_calls for d in deltas)
    assert "".join(d.content for d in deltas) == text


def test_one_shot_no_call(make: Any, req: Any) -> None:
    info = make().extract_tool_calls("This is not a tool call.", req)
    assert not info.tools_called


def test_one_shot_call_between_tags(make: Any, req: Any) -> None:
    text = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>'
    info = make().extract_tool_calls(text, req)
    assert info.tools_called
    assert info.tool_calls[0].function.name == "final_answer"
    assert info.tool_calls[0].function.arguments == '{"trigger": true}'


def test_one_shot_call_until_end_of_output(make: Any, req: Any) -> None:
    """The closer is missing but the body is complete: a stop sequence ate it (the stream stopped normally)."""
    text = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}'
    info = make().extract_tool_calls(text, req)
    assert info.tools_called
    assert info.tool_calls[0].function.name == "final_answer"
    assert info.tool_calls[0].function.arguments == '{"trigger": true}'


def test_one_shot_invalid_json_is_no_call(make: Any, req: Any) -> None:
    text = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}'
    assert not make().extract_tool_calls(text, req).tools_called


def test_one_shot_serialized_arguments_decode_once(make: Any, req: Any) -> None:
    text = '<tool_call>\n{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>'
    info = make().extract_tool_calls(text, req)
    assert info.tools_called
    assert info.tool_calls[0].function.name == "get_db_config"
    assert json.loads(info.tool_calls[0].function.arguments) == {"param": "max_connections"}


def test_one_shot_bare_string_arguments_stay_json(make: Any, req: Any) -> None:
    text = '<tool_call>\n{"name": "do_thing", "arguments": "hello"}\n</tool_call>'
    info = make().extract_tool_calls(text, req)
    assert info.tools_called
    assert json.loads(info.tool_calls[0].function.arguments) == "hello"


@pytest.mark.parametrize("interval", [1, 2, 3, 5])
def test_streaming_serialized_arguments_at_stream_interval(make: Any, tok: Any, req: Any, interval: int) -> None:
    text = '<tool_call>{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}</tool_call>'
    deltas = stream(make(), tok, req, text, interval)
    assert tool_deltas(deltas)[0].function.name == "get_db_config"
    assert json.loads(joined_arguments(deltas)) == {"param": "max_connections"}


@pytest.mark.parametrize("interval", [1, 3])
def test_streaming_bare_string_arguments_at_stream_interval(make: Any, tok: Any, req: Any, interval: int) -> None:
    text = '<tool_call>{"name": "do_thing", "arguments": "hello"}</tool_call>'
    deltas = stream(make(), tok, req, text, interval)
    assert json.loads(joined_arguments(deltas)) == "hello"


@pytest.mark.parametrize(
    "value", ['{"param": "max_connections"}', "hello", "{hello world}", "[oops", '{"a": 1} tail text']
)
@pytest.mark.parametrize("interval", [1, 3])
def test_streaming_string_arguments_equal_one_shot(make: Any, tok: Any, req: Any, value: str, interval: int) -> None:
    text = "<tool_call>" + json.dumps({"name": "f", "arguments": value}) + "</tool_call>"
    expected = make().extract_tool_calls(text, req).tool_calls[0].function.arguments
    deltas = stream(make(), tok, req, text, interval)
    assert joined_arguments(deltas) == expected
    json.loads(joined_arguments(deltas))


def test_content_and_call_in_one_chunk(make: Any, tok: Any, req: Any) -> None:
    text = 'Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
    deltas = stream(make(), tok, req, text, 9999)
    assert "".join(d.content for d in deltas if d.content) == "Hi!"
    assert tool_deltas(deltas)[0].function.name == "f"
    assert json.loads(joined_arguments(deltas)) == {"x": 1}
