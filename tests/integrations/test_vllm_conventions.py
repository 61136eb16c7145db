"""The tool-parser adapters follow the engine parser's convention for text it drops (Kimi K2, DeepSeek V3.1,
Llama 3 JSON, LFM2), and Kimi's header shares a delta with its first argument fragment, as vLLM's parser engine
sends it. streamparse's own parser still reports every character (the last test)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from suite_tokenizer import suite_tokenizer
from vllm_drive import chat_request, joined_arguments, tool_deltas

from streamparse import StreamParser, TextDelta
from streamparse.integrations import vllm as adapter

KIMI_CALL = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
    '<|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|><|tool_calls_section_end|>'
)
DS_CALLS = (
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜>'
    '<｜tool▁call▁begin｜>bar<｜tool▁sep｜>{"y":2}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
)
LFM2_BODY = "[lookup(q='apple')]"
LFM2_CALL = f"<|tool_call_start|>{LFM2_BODY}<|tool_call_end|>"


def parser(fmt: str) -> Any:
    return adapter.TOOL_PARSERS[f"streamparse_{fmt}"](suite_tokenizer())


def stream_deltas(tool_parser: Any, deltas: list[str], ids: bool = True, finish: bool = True) -> list[Any]:
    """Each string one delta, with its token ids (or none), as vLLM's serving loop hands them."""
    tok, request, out = tool_parser.model_tokenizer, chat_request(), []
    for text in deltas:
        token_ids = tok.encode(text, add_special_tokens=False) if ids else []
        out.append(tool_parser.extract_tool_calls_streaming("", text, text, [], token_ids, token_ids, request))
    if finish:
        out.append(tool_parser.finish_streaming())
    return [d for d in out if d is not None]


def content(deltas: list[Any]) -> str:
    return "".join(d.content or "" for d in deltas)


def test_kimi_text_after_the_tool_section_is_dropped_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, "streamparse.integrations.vllm")
    result = parser("kimi_k2").extract_tool_calls("Before. " + KIMI_CALL + " After tools.", chat_request())
    assert result.content == "Before. "
    assert [c.function.name for c in result.tool_calls] == ["get_weather"]
    assert "After tools." in caplog.text
    deltas = stream_deltas(parser("kimi_k2"), ["Before. ", KIMI_CALL, " After tools."])
    assert content(deltas) == "Before. "
    assert json.loads(joined_arguments(deltas)) == {"city": "Tokyo"}


def test_kimi_paired_with_its_reasoning_parser_drops_the_same_text() -> None:
    tok = suite_tokenizer()
    reasoning_parser = adapter.REASONING_PARSERS["streamparse_kimi_k2"](tok)
    tool_parser = adapter.TOOL_PARSERS["streamparse_kimi_k2"](tok)  # built right after: the pair
    assert tool_parser.reasoning_parser is reasoning_parser
    reasoning, text = reasoning_parser.extract_reasoning("Let me see.</think>Before. " + KIMI_CALL + " After.", None)
    result = tool_parser.extract_tool_calls(text or "", chat_request())
    assert (reasoning, result.content) == ("Let me see.", "Before. ")
    assert [c.function.name for c in result.tool_calls] == ["get_weather"]


def test_kimi_header_and_first_fragment_share_a_delta_and_a_cut_call_is_still_rejected() -> None:
    tool_parser = parser("kimi_k2")
    head = ["I'll check. ", "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "functions.get_weather:0 "]
    deltas = stream_deltas(tool_parser, [*head, "<|tool_call_argument_begin|>", '{"city": "Bei'], finish=False)
    calls = tool_deltas(deltas)
    assert calls[0].function.name == "get_weather" and calls[0].id == "functions.get_weather:0"
    assert joined_arguments(deltas) == '{"city": "Bei'  # what the model wrote so far, before the stream ends
    tool_parser.finish_streaming()
    session = tool_parser.session()
    assert session.accepted == [] and session.rejected_after_name  # the cut call is never accepted


def test_deepseek_v31_content_is_the_text_before_its_calls_in_one_piece_only() -> None:
    text = "some prefix text" + DS_CALLS + " some suffix text"
    result = parser("deepseek_v31").extract_tool_calls(text, chat_request())
    assert result.content == "some prefix text"
    assert [c.function.name for c in result.tool_calls] == ["foo", "bar"]
    # vLLM's streaming path hands the text after the calls on: so does the adapter's.
    deltas = stream_deltas(parser("deepseek_v31"), ["some prefix text", DS_CALLS, " some suffix text"])
    assert content(deltas) == "some prefix text some suffix text"


def test_llama3_json_without_request_tools_reads_calls_in_prose_and_drops_the_prose() -> None:
    text = 'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?'
    result = parser("llama3_json").extract_tool_calls(text, chat_request())
    assert [(c.function.name, c.function.arguments) for c in result.tool_calls] == [("getOpenIncidentsTool", "{}")]
    assert result.content is None


def test_llama3_json_names_are_still_checked_when_the_request_has_tools() -> None:
    tools = [{"type": "function", "function": {"name": "search", "parameters": {}}}]
    text = 'Here is the result: {"name": "getOpenIncidentsTool", "parameters": {}} Would you like to know more?'
    result = parser("llama3_json").extract_tool_calls(text, chat_request(tools=tools))
    assert result.tool_calls == []
    assert result.content == text


def test_llama3_json_without_calls_keeps_the_output_as_written() -> None:
    text = '{"name": "invalidTool", "parameters": {invalid json}'
    result = parser("llama3_json").extract_tool_calls(text, chat_request())
    assert not result.tools_called
    assert result.content == text


@pytest.mark.parametrize("ids", [True, False])
def test_lfm2_echoed_call_body_is_dropped_and_later_text_kept(ids: bool) -> None:
    text = LFM2_CALL + LFM2_BODY + "<|tool_call_end|> Done."
    result = parser("pythonic").extract_tool_calls(text, chat_request())
    assert [c.function.name for c in result.tool_calls] == ["lookup"]
    assert result.content == " Done."
    deltas = stream_deltas(parser("pythonic"), [LFM2_CALL, LFM2_BODY, "<|tool_call_end|>", " Done."], ids)
    assert content(deltas) == " Done."
    assert [tc.function.name for tc in tool_deltas(deltas) if tc.function.name] == ["lookup"]


def test_lfm2_text_after_a_call_that_is_no_echo_is_not_held() -> None:
    deltas = stream_deltas(parser("pythonic"), [LFM2_CALL, "The weather", " is sunny."], finish=False)
    assert content(deltas) == "The weather is sunny."


def test_lfm2_held_text_is_bounded_and_released_as_text() -> None:
    tail = "[" + "x" * 600 + "]"  # looks like markup, but no orphan end marker comes
    deltas = stream_deltas(parser("pythonic"), [LFM2_CALL, *tail], finish=False)
    assert content(deltas) == tail  # released before the end of the stream, once past the bound
    finished = stream_deltas(parser("pythonic"), [LFM2_CALL, "[not an echo"])
    assert content(finished) == "[not an echo"  # held until the end of the stream, then text


def test_lfm2_marker_streamed_one_character_at_a_time_without_ids_is_read_as_text() -> None:
    deltas = stream_deltas(parser("pythonic"), list(LFM2_CALL), ids=False)
    assert [tc.function.name for tc in tool_deltas(deltas) if tc.function.name] == ["lookup"]


def test_streamparse_itself_keeps_every_character() -> None:
    events = StreamParser(["kimi_k2"]).feed("Before. " + KIMI_CALL + " After tools.")
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).endswith("After tools.")
