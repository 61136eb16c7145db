"""The vLLM adapter's own promises: registration, None while nothing is certain, gap-free indices,
vLLM's ids, one parser per request, calls inside <think>, and vLLM's real serving path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from engine_tokenizer import marker_tokenizer
from vllm.parser import ParserManager
from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager
from vllm_drive import chat_request, joined_arguments, stream, tool_deltas

from streamparse import formats
from streamparse.integrations import vllm as adapter

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def test_every_format_and_the_preset_name_are_registered_for_tools_and_reasoning() -> None:
    names = ["streamparse"] + [f"streamparse_{f}" for f in formats.names()]
    for name in names:
        assert issubclass(ToolParserManager.get_tool_parser(name), adapter.StreamparseToolParser)
        assert issubclass(ReasoningParserManager.get_reasoning_parser(name), adapter.StreamparseReasoningParser)
    assert ToolParserManager.get_tool_parser("streamparse_qwen3_coder").format_names == ("qwen3_coder",)


def test_plugin_entry_point_names_register() -> None:
    from importlib.metadata import entry_points

    found = [e for e in entry_points(group="vllm.general_plugins") if e.name == "streamparse"]
    assert found
    assert {e.load() for e in found} == {adapter.register}


def test_nothing_certain_is_none_not_an_empty_message() -> None:
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer())
    req = chat_request()
    # "<tool" could open a call: nothing is certain yet.
    assert parser.extract_tool_calls_streaming("", "<tool", "<tool", [], [1], [1], req) is None


def test_indices_are_gap_free_when_a_candidate_is_rejected_before_its_name() -> None:
    text = '<tool_call>{"nome": 1}</tool_call>' + CALL + CALL
    deltas = stream(
        adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer()), marker_tokenizer(), chat_request(), text
    )
    opened = [tc for tc in tool_deltas(deltas) if tc.function.name]
    assert [tc.index for tc in opened] == [0, 1]
    assert all(tc.id.startswith("chatcmpl-tool-") for tc in opened)
    assert len({tc.id for tc in opened}) == 2


def test_no_argument_call_streams_an_empty_object() -> None:
    text = '<tool_call>{"name": "now"}</tool_call>'
    for interval in (1, 3, 100):
        parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer())
        deltas = stream(parser, marker_tokenizer(), chat_request(), text, interval)
        assert joined_arguments(deltas) == "{}"


def test_text_held_at_end_is_flushed_by_finish_streaming() -> None:
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer())
    req = chat_request()
    assert parser.extract_tool_calls_streaming("", "Hi <tool", "Hi <tool", [], [], [], req).content == "Hi "
    assert parser.finish_streaming().content == "<tool"


def test_each_request_has_its_own_parser() -> None:
    cls = adapter.TOOL_PARSERS["streamparse_hermes"]
    tok, req = marker_tokenizer(), chat_request()
    first, second = cls(tok), cls(tok)
    first.extract_tool_calls_streaming("", "<tool_call>", "<tool_call>", [], [], [], req)
    # The second request starts clean: its text is text, not the first request's open call.
    assert second.extract_tool_calls_streaming("", "plain", "plain", [], [], [], req).content == "plain"


@pytest.mark.parametrize("interval", [1, 2, 7, 1000])
def test_streaming_equals_one_shot_at_any_stream_interval(interval: int) -> None:
    text = "Let me see." + CALL + " and " + CALL.replace("Paris", "Rome")
    cls = adapter.TOOL_PARSERS["streamparse_hermes"]
    one = cls(marker_tokenizer()).extract_tool_calls(text, chat_request())
    deltas = stream(cls(marker_tokenizer()), marker_tokenizer(), chat_request(), text, interval)
    assert "".join(d.content or "" for d in deltas) == one.content
    for i, call in enumerate(one.tool_calls):
        assert joined_arguments(deltas, i) == call.function.arguments
        assert [tc.function.name for tc in tool_deltas(deltas) if tc.index == i and tc.function.name] == [
            call.function.name
        ]


def test_unknown_tool_is_never_sent() -> None:
    req = chat_request(tools=TOOLS)
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer(), req.tools)
    text = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>' + CALL
    deltas = stream(parser, marker_tokenizer(), req, text)
    assert [tc.function.name for tc in tool_deltas(deltas) if tc.function.name] == ["get_weather"]
    assert [tc.index for tc in tool_deltas(deltas) if tc.function.name] == [0]


def test_adjust_request_keeps_special_tokens_when_tools_are_on() -> None:
    req = chat_request(tools=TOOLS)
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](marker_tokenizer(), req.tools)
    assert parser.adjust_request(req).skip_special_tokens is False


def _serve(tool: str, reasoning: str | None, text: str, interval: int, prompt: list[int]) -> list[Any]:
    """vLLM's own composition (DelegatingParser.parse_delta), as the chat endpoint drives it."""
    tok = marker_tokenizer()
    cls = ParserManager.get_parser(tool_parser_name=tool, reasoning_parser_name=reasoning, enable_auto_tools=True)
    req = chat_request(tools=TOOLS)
    parser = cls(tok, req.tools)
    ids = tok.encode(text)
    out = []
    for i in range(0, len(ids), interval):
        chunk = ids[i : i + interval]
        last = i + interval >= len(ids)
        delta = parser.parse_delta(tok.decode(chunk), chunk, req, prompt, finished=last)
        if delta is not None:
            out.append(delta)
    return out


@pytest.mark.parametrize("interval", [1, 3])
def test_recommended_setup_keeps_a_call_made_inside_think(interval: int) -> None:
    text = "<think>I need the weather. " + CALL + "</think>Checking."
    deltas = _serve("streamparse_hermes", "streamparse_hermes", text, interval, prompt=[])
    assert "".join(d.reasoning or "" for d in deltas) == "I need the weather. "
    assert "".join(d.content or "" for d in deltas) == "Checking."
    assert [tc.function.name for tc in tool_deltas(deltas) if tc.function.name] == ["get_weather"]
    assert json.loads(joined_arguments(deltas)) == {"city": "Paris"}


def test_recommended_setup_one_shot_keeps_a_call_made_inside_think() -> None:
    tok = marker_tokenizer()
    cls = ParserManager.get_parser(
        tool_parser_name="streamparse_hermes", reasoning_parser_name="streamparse_hermes", enable_auto_tools=True
    )
    text = "<think>I need the weather. " + CALL + "</think>Checking."
    req = chat_request(tools=TOOLS)
    reasoning, content, calls = cls(tok, req.tools).parse(text, req, enable_auto_tools=True)
    assert reasoning == "I need the weather. "
    assert content == "Checking."
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"city": "Paris"})]


def test_tool_parser_alone_through_vllm_streams_calls_and_content() -> None:
    deltas = _serve("streamparse_hermes", None, "Sure. " + CALL, 2, prompt=[])
    assert "".join(d.content or "" for d in deltas) == "Sure. "
    assert json.loads(joined_arguments(deltas)) == {"city": "Paris"}


def test_reasoning_parser_gates_on_think_tokens() -> None:
    tok = marker_tokenizer()
    parser = adapter.REASONING_PARSERS["streamparse_hermes"](tok)
    open_id, close_id = tok.convert_tokens_to_ids(["<think>", "</think>"])
    assert not parser.is_reasoning_end([5, open_id, 6])
    assert parser.is_reasoning_end([5, open_id, 6, close_id, 7])
    assert parser.extract_content_ids([open_id, 6, close_id, 7, 8]) == [7, 8]
    assert not parser.is_reasoning_end_streaming([open_id], [open_id])
    assert parser.is_reasoning_end_streaming([open_id, close_id], [close_id])


def test_preset_name_uses_the_served_model() -> None:
    parser = adapter.TOOL_PARSERS["streamparse"](marker_tokenizer())
    req = chat_request(model="Qwen/Qwen3-Coder-30B-A3B-Instruct")
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
    info = parser.extract_tool_calls(text, req)
    assert [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]


def _plain_ids(tok: Any, text: str) -> list[int]:
    """Ids that spell ``text`` without its added tokens: each character encoded on its own."""
    return [i for ch in text for i in tok.encode(ch)]


@pytest.mark.parametrize("interval", [1, 3, 1000])
def test_a_marker_typed_as_plain_tokens_never_opens_a_call(interval: int) -> None:
    tok = marker_tokenizer()
    req = chat_request(tools=TOOLS)
    text = "You typed " + CALL + " as text."
    ids = _plain_ids(tok, text)
    assert tok.convert_tokens_to_ids("<tool_call>") not in ids
    parser = adapter.TOOL_PARSERS["streamparse_hermes"](tok, req.tools)
    deltas = []
    for i in range(0, len(ids), interval):
        chunk = ids[i : i + interval]
        piece = tok.decode(chunk)
        deltas.append(parser.extract_tool_calls_streaming("", piece, piece, [], chunk, chunk, req))
    deltas.append(parser.finish_streaming())
    assert not tool_deltas([d for d in deltas if d is not None])
    assert "".join(d.content or "" for d in deltas if d is not None) == text


def test_the_marker_as_its_token_id_opens_the_call() -> None:
    tok = marker_tokenizer()
    req = chat_request(tools=TOOLS)
    ids = tok.encode("You asked. " + CALL)
    assert tok.convert_tokens_to_ids("<tool_call>") in ids
    deltas = stream(adapter.TOOL_PARSERS["streamparse_hermes"](tok, req.tools), tok, req, "You asked. " + CALL)
    assert json.loads(joined_arguments(deltas)) == {"city": "Paris"}
