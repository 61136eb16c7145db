"""The loop around the parser, in the library: the assistant turn to send back, rejections a model can act
on, ``parser.result()``, typed partials, ``model=`` wherever a parser is built, one finish_reason rule."""

from __future__ import annotations

import json
import logging
from typing import Any, Literal

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from test_providers_structured import TOOLS as STRUCTURED_TOOLS

from streamparse import ParseResult, StreamParser, ToolCallDelta, ToolCallRejected, aparse, parse
from streamparse.providers import AnthropicEventWriter, OpenAIChunkWriter, completion_from_result, openai_sse_events

# get_weather as an OpenAI definition (shared with the structured-call tests), lookup_order as an Anthropic one.
TOOLS = [
    STRUCTURED_TOOLS[0],
    {"name": "lookup_order", "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}}},
]


def call(name: str, arguments: str) -> str:
    return f'<tool_call>{{"name": "{name}", "arguments": {arguments}}}</tool_call>'


# -- the assistant turn ------------------------------------------------------------------------------


def test_openai_message_carries_text_reasoning_and_the_calls_with_their_ids() -> None:
    text = "<think>Paris first.</think>On it." + call("get_weather", '{"city": "Paris"}')
    message = parse(text, formats=["hermes"], tools=TOOLS).to_openai_message()
    assert message == {
        "role": "assistant",
        "content": "On it.",
        "reasoning_content": "Paris first.",
        "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
        ],
    }


def test_openai_message_puts_reasoning_where_the_server_reads_it() -> None:
    result = parse("<think>hm</think>Hi.", formats=["hermes"])
    assert result.to_openai_message(reasoning_field="reasoning")["reasoning"] == "hm"
    assert "reasoning_content" not in result.to_openai_message(reasoning_field=None)


def test_content_is_none_when_the_turn_is_only_calls_and_empty_text_without_calls() -> None:
    assert parse(call("get_weather", '{"city": "Oslo"}'), tools=TOOLS).to_openai_message()["content"] is None
    assert parse("", tools=TOOLS).to_openai_message() == {"role": "assistant", "content": ""}


def test_anthropic_message_has_thinking_text_and_tool_use_blocks() -> None:
    text = "<think>check</think>Sure." + call("get_weather", '{"city": "Lyon"}')
    message = parse(text, formats=["hermes"], tools=TOOLS).to_anthropic_message()
    assert message == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "check"},
            {"type": "text", "text": "Sure."},
            {"type": "tool_use", "id": "call_0", "name": "get_weather", "input": {"city": "Lyon"}},
        ],
    }


def test_ids_are_stable_across_messages_and_anthropic_safe() -> None:
    # Kimi-K2 writes its own call ids (functions.NAME:N): kept for OpenAI, made Anthropic-valid, the same each time.
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Rome"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    result = parse(text, formats=["kimi_k2"], tools=TOOLS)
    assert result.to_openai_message()["tool_calls"][0]["id"] == "functions.get_weather:0"
    assert result.to_openai_message() == result.to_openai_message()
    assert result.to_anthropic_message()["content"][0]["id"] == "functions_get_weather_0"


def test_rejected_calls_are_in_the_message_under_the_id_their_tool_message_answers() -> None:
    text = call("get_weather", '{"city": "Paris"}') + call("get_weather", '{"days": 2}') + call("book_flight", "{}")
    result = parse(text, formats=["hermes"], tools=TOOLS)
    message = result.to_openai_message()
    ids = [c["id"] for c in message["tool_calls"]]
    assert ids == ["call_0", "call_rejected_1", "call_rejected_2"]
    assert json.loads(message["tool_calls"][1]["function"]["arguments"]) == {"days": 2}  # valid JSON for servers
    answers = [r.to_tool_message()["tool_call_id"] for r in result.rejected]
    assert answers == ids[1:]
    anthropic = result.to_anthropic_message()
    assert [b["id"] for b in anthropic["content"]] == ["call_0", "call_rejected_1", "call_rejected_2"]
    assert [r.to_tool_message("anthropic")["tool_use_id"] for r in result.rejected] == ids[1:]
    only_accepted = result.to_openai_message(include_rejected=False)["tool_calls"]
    assert [c["id"] for c in only_accepted] == ["call_0"]


# -- rejections a model can fix ----------------------------------------------------------------------


def test_schema_violation_message_names_the_path_and_the_expected_type() -> None:
    result = parse(call("get_weather", '{"city": "Paris", "days": "many"}'), tools=TOOLS, coercion="strict")
    message = result.rejected[0].to_tool_message()
    assert message["role"] == "tool" and message["tool_call_id"] == "call_rejected_0"
    assert "argument days" in message["content"] and "'integer'" in message["content"]
    assert "get_weather" in message["content"]


def test_missing_required_argument_is_named() -> None:
    result = parse(call("get_weather", '{"days": 1}'), tools=TOOLS)
    assert "'city' is a required property" in result.rejected[0].to_tool_message()["content"]


def test_unknown_tool_message_names_it_and_the_tools_offered() -> None:
    rejected = parse(call("book_flight", '{"to": "NYC"}'), tools=TOOLS).rejected[0]
    text = rejected.to_tool_message(tools=TOOLS)["content"]
    assert "'book_flight'" in text and "get_weather, lookup_order" in text
    block = rejected.to_tool_message("anthropic", tools=["get_weather"])
    assert block["type"] == "tool_result" and block["is_error"] is True and "get_weather" in block["content"]


def test_truncated_and_malformed_calls_say_what_to_do() -> None:
    cut = parse('<tool_call>{"name": "get_weather", "arguments": {"city": "Pa', tools=TOOLS).rejected[0]
    assert "cut off" in cut.to_tool_message()["content"]
    bad = parse('<tool_call>{"name": "get_weather", "arguments": {"city": }}</tool_call>', tools=TOOLS).rejected[0]
    assert bad.reason == "malformed" and "valid JSON" in bad.to_tool_message()["content"]


def test_unknown_style_is_a_programmer_error() -> None:
    rejected = parse(call("nope", "{}"), tools=TOOLS).rejected[0]
    with pytest.raises(ValueError, match="style"):
        rejected.to_tool_message("gemini")  # type: ignore[arg-type]


# -- parser.result() ---------------------------------------------------------------------------------


def test_result_is_the_parse_of_everything_fed_so_far() -> None:
    text = "<think>a</think>Hello " + call("get_weather", '{"city": "Nice"}') + " bye"
    parser = StreamParser(formats=["hermes"], tools=TOOLS, record=True)
    for i in range(0, len(text), 3):
        parser.feed(text[i : i + 3])
    assert parser.result().tool_calls[0].arguments == {"city": "Nice"}  # before close: what is certain so far
    parser.close()
    whole = parse(text, formats=["hermes"], tools=TOOLS)
    got = parser.result()
    assert (got.text, got.reasoning, got.tool_calls, got.finish_reason) == (
        whole.text,
        whole.reasoning,
        whole.tool_calls,
        whole.finish_reason,
    )
    parser.reset()
    assert parser.result().events == []


def test_result_without_record_says_how_to_get_it() -> None:
    with pytest.raises(RuntimeError, match="record=True"):
        StreamParser().result()


def test_result_of_a_provider_stream_includes_server_split_reasoning() -> None:
    chunks = [
        {"choices": [{"index": 0, "delta": {"reasoning_content": "Think."}}]},
        {"choices": [{"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"}]},
    ]
    parser = StreamParser(record=True)
    list(openai_sse_events(chunks, parser=parser))
    assert parser.result().to_openai_message() == {
        "role": "assistant",
        "content": "Done.",
        "reasoning_content": "Think.",
    }


# -- one finish_reason rule --------------------------------------------------------------------------


def test_finish_reason_is_tool_calls_length_or_stop_everywhere() -> None:
    accepted = call("get_weather", '{"city": "Paris"}')
    cut = '<tool_call>{"name": "get_weather", "arguments": {"city": "Pa'
    for text, expected in [(accepted, "tool_calls"), (cut, "length"), ("plain", "stop")]:
        result = parse(text, tools=TOOLS)
        assert result.finish_reason == expected, text
        assert ParseResult.from_events(result.events).finish_reason == expected
        parser = StreamParser(tools=TOOLS)
        parser.feed(text)
        parser.close()
        assert parser.finish_reason == expected
        openai = OpenAIChunkWriter("m")
        openai.write(result.events)
        assert openai.finish()[-1]["choices"][0]["finish_reason"] == expected
        anthropic = AnthropicEventWriter("m")
        anthropic.write(result.events)
        stop = {"tool_calls": "tool_use", "length": "max_tokens", "stop": "end_turn"}[expected]
        assert anthropic.finish()[-2]["delta"]["stop_reason"] == stop
        assert completion_from_result(result, "m")["choices"][0]["finish_reason"] == expected


def test_close_with_length_says_length_even_without_a_call() -> None:
    parser = StreamParser()
    parser.feed("The answer is")
    parser.close("length")
    assert parser.finish_reason == "length"


# -- model= wherever a parser is built, and the no-tools notice ---------------------------------------


KIMI = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
    '{"city": "Rome"}<|tool_call_end|><|tool_calls_section_end|>'
)


def test_model_picks_the_preset_in_parse_aparse_and_the_readers() -> None:
    assert parse(KIMI, model="moonshotai/Kimi-K2-Instruct").tool_calls[0].format == "kimi_k2"

    async def pieces() -> Any:
        yield KIMI

    async def collect() -> list[Any]:
        return [e async for e in aparse(pieces(), model="moonshotai/Kimi-K2-Instruct")]

    assert any(getattr(e, "call", None) for e in anyio.run(collect))
    chunks = [{"choices": [{"index": 0, "delta": {"content": KIMI}, "finish_reason": "stop"}]}]
    events = list(openai_sse_events(chunks, model="moonshotai/Kimi-K2-Instruct", tools=TOOLS))
    assert [e.call.format for e in events if hasattr(e, "call")] == ["kimi_k2"]


def test_no_tools_is_logged_once_per_parser_at_info(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="streamparse"):
        parser = StreamParser()
        parser.feed(call("anything", "{}") + call("else", "{}"))
        parser.close()
        StreamParser(tools=TOOLS)
    notices = [r for r in caplog.records if "no tools=" in r.getMessage()]
    assert len(notices) == 1 and notices[0].levelno == logging.INFO


# -- typed partials ----------------------------------------------------------------------------------


class Address(BaseModel):
    city: str
    zip: str


class create_user(BaseModel):  # noqa: N801 - a tool's name is its class name
    name: str
    age: int
    tags: list[str] = []
    address: Address
    role: Literal["admin", "user"] = "user"


def test_partial_is_an_instance_of_the_tool_model_growing_with_the_deltas() -> None:
    text = call(
        "create_user",
        '{"name": "Ada Lovelace", "age": 36, "address": {"city": "London", "zip": "W1"}, "role": "admin"}',
    )
    parser = StreamParser(formats=["hermes"], tools=[create_user])
    seen: list[create_user] = []
    for i in range(0, len(text), 5):
        for event in parser.feed(text[i : i + 5]):
            if isinstance(event, ToolCallDelta):
                seen.append(parser.snapshot(event.index).partial())
    parser.close()
    assert all(isinstance(p, create_user) for p in seen)
    names = [p.name for p in seen if p.name is not None]
    assert names[0] != "Ada Lovelace" and names[-1] == "Ada Lovelace"  # the string grows as it streams
    assert seen[0].age is None and seen[0].address is None  # not yet streamed: None
    with_city = next(p for p in seen if p.address is not None and p.address.city)
    assert isinstance(with_city.address, Address) and with_city.address.zip in (None, "")
    assert all(p.role in (None, "admin") for p in seen)  # "adm" is not a valid role yet: None
    final = parser.snapshot(0).partial()
    assert final == parser.snapshot(0).parsed and final.role == "admin"


def test_partial_takes_a_model_for_tools_given_as_json_schema() -> None:
    class Weather(BaseModel):
        city: str
        days: int = 1

    parser = StreamParser(formats=["hermes"], tools=TOOLS)
    parser.feed('<tool_call>{"name": "get_weather", "arguments": {"city": "Ber')
    snap = parser.snapshot(0)
    assert snap.partial(Weather) == Weather.model_construct(city="Ber", days=None)
    with pytest.raises(TypeError, match="partial\\(Model\\)"):
        snap.partial()


def test_partial_of_a_rejected_call_never_raises() -> None:
    parser = StreamParser(formats=["hermes"], tools=[create_user])
    parser.feed(call("create_user", '{"name": "Bob", "age": "old", "address": {"city": 5}}'))
    parser.close()
    snap = parser.snapshot(0)
    assert snap.status == "rejected" and isinstance(snap.reason, str)
    partial = snap.partial()
    assert partial.name == "Bob" and partial.age is None and partial.address is not None
    assert partial.address.city is None


def test_rejected_event_type_is_unchanged_for_consumers() -> None:
    assert ToolCallRejected(0, "truncated", "").to_tool_message()["tool_call_id"] == "call_rejected_0"


CARD_CALL = call(
    "create_user",
    r'{"name": "Ada \u00e9 \"L\"", "age": 36, "tags": ["x", "y"], "address": {"city": "London", "zip": "W1"}}',
)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(CARD_CALL)), max_size=30))
def test_partials_only_grow_and_end_as_the_parsed_call_under_any_chunking(cuts: list[int]) -> None:
    bounds = [0, *sorted(set(cuts)), len(CARD_CALL)]
    parser = StreamParser(formats=["hermes"], tools=[create_user])
    previous: create_user | None = None
    for a, b in zip(bounds, bounds[1:], strict=False):
        for event in parser.feed(CARD_CALL[a:b]):
            if not isinstance(event, ToolCallDelta):
                continue
            now = parser.snapshot(event.index).partial()
            if previous is not None and previous.name is not None:
                assert now.name is not None and now.name.startswith(previous.name)  # a string only grows
            if previous is not None and previous.age is not None:
                assert now.age == previous.age  # a number appears once, complete
            previous = now
    parser.close()
    final = parser.snapshot(0)
    assert (
        final.partial()
        == final.parsed
        == create_user(name='Ada é "L"', age=36, tags=["x", "y"], address=Address(city="London", zip="W1"))
    )
