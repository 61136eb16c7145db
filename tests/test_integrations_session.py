"""The engine-neutral mapping the vLLM and SGLang adapters share (streamparse.integrations.session)."""

from __future__ import annotations

import json

import pytest
from invariants import random_pieces

from streamparse import StreamParser
from streamparse.integrations import Piece, RequestSession, one_shot
from streamparse.integrations.session import split

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
TEXT = "<think>Weather? " + CALL + "</think>Sure." + CALL.replace("Paris", "Rome") + " Done."


def session() -> RequestSession:
    return RequestSession(StreamParser(["hermes"], calls_in_reasoning="promote"))


def drain(s: RequestSession, pieces: list[str]) -> list[Piece]:
    out = [s.push(p) for p in pieces] + [s.finish()]
    return [p for p in out if p is not None]


def test_a_chunk_that_makes_nothing_certain_gives_none() -> None:
    s = session()
    assert s.push("<tool") is None
    assert s.push("") is None


def test_every_piece_holds_something() -> None:
    assert all(bool(p) for p in drain(session(), list(TEXT)))


@pytest.mark.parametrize("seed", range(8))
def test_pieces_join_to_the_one_shot_result_under_any_chunking(seed: int) -> None:
    whole = one_shot(StreamParser(["hermes"], calls_in_reasoning="promote"), TEXT)
    pieces = drain(session(), random_pieces(TEXT, seed))
    assert "".join(p.content for p in pieces) == whole.content == "Sure. Done."
    assert "".join(p.reasoning for p in pieces) == whole.reasoning == "Weather?"
    calls = [c for p in pieces for c in p.calls]
    for index, call in enumerate(whole.calls):
        assert "".join(c.arguments for c in calls if c.index == index) == call.arguments_json
        assert [c.name for c in calls if c.index == index and c.name] == [call.name]
    assert [json.loads(c.arguments_json)["city"] for c in whole.calls] == ["Paris", "Rome"]


def test_one_piece_per_call_per_chunk() -> None:
    (piece,) = drain(session(), [CALL])
    assert len(piece.calls) == 1
    assert piece.calls[0].name == "get_weather"
    assert piece.calls[0].arguments == '{"city": "Paris"}'


def test_a_candidate_rejected_before_its_name_takes_no_index() -> None:
    s = RequestSession(StreamParser(["hermes"]))
    pieces = drain(s, ['<tool_call>{"nome": 1}</tool_call>', CALL])
    assert [c.index for p in pieces for c in p.calls if c.name] == [0]
    assert len(s.rejected) == 1 and not s.rejected_after_name


def test_ids_come_from_the_engine_maker() -> None:
    made: list[str] = []

    def new_id(name: str, parser_id: str) -> str:
        made.append(f"{name}/{parser_id}")
        return f"engine-{len(made)}"

    s = RequestSession(StreamParser(["hermes"]), new_id)
    pieces = drain(s, [CALL, CALL])
    assert [c.id for p in pieces for c in p.calls if c.name] == ["engine-1", "engine-2"]
    # The maker sees the parser's own id too (a format's native id, Kimi's functions.NAME:N, is kept by vLLM's).
    assert made == ["get_weather/call_0", "get_weather/call_1"]


def test_finish_flushes_held_text_once() -> None:
    s = session()
    assert s.push("Hi <tool").content == "Hi"  # the space waits: it is content only if text follows
    assert s.finish().content == " <tool"
    assert s.finish() is None


def test_one_shot_moves_text_an_orphan_think_closer_showed_was_reasoning() -> None:
    text = "Let me think about it.</think>The answer." + CALL
    whole = one_shot(StreamParser(["hermes"], calls_in_reasoning="promote"), text)
    assert (whole.reasoning, whole.content) == ("Let me think about it.", "The answer.")
    for seed in range(6):
        pieces = drain(session(), random_pieces(text, seed))
        assert any(p.text_was_reasoning for p in pieces)
        assert split(pieces) == ("The answer.", "Let me think about it.")


def test_a_responses_api_namespace_is_flattened_into_its_tools_names() -> None:
    from types import SimpleNamespace as NS

    from streamparse.integrations.session import tool_specs

    schema = {"type": "object", "properties": {"app": {"type": "string"}}}
    inner = NS(type="function", name="get_app_state", parameters=schema)
    tools = [
        NS(type="namespace", name="mcp__computer_use", tools=[inner]),
        NS(type="function", name="t", parameters={}),
    ]
    specs = tool_specs(tools) or []
    assert [s["function"]["name"] for s in specs] == ["mcp__computer_use__get_app_state", "t"]
    assert specs[0]["function"]["parameters"] == schema
    parser = StreamParser(["glm45"], tools=specs)
    text = "<tool_call>mcp__computer_use__get_app_state<arg_key>app</arg_key><arg_value>Chrome</arg_value></tool_call>"
    result = one_shot(parser, text)
    assert [(c.name, c.arguments) for c in result.calls] == [("mcp__computer_use__get_app_state", {"app": "Chrome"})]


BROKEN = "<tool_call>not valid json</tool_call>"


@pytest.mark.parametrize("seed", range(6))
def test_rejected_markup_is_content_where_the_engine_has_no_rejection(seed: int) -> None:
    # SGLang's API has no rejection event: the markup goes on as text, in its place; the rejection is kept.
    s = RequestSession(StreamParser(["hermes"], separators="keep"), rejected_text="unsent")
    pieces = drain(s, random_pieces("Before " + BROKEN + " after", seed))
    assert "".join(p.content for p in pieces) == "Before " + BROKEN + " after"
    assert [r.reason for r in s.rejected] == ["malformed"]
    assert not any(p.calls for p in pieces)


def test_rejected_markup_is_not_content_by_default() -> None:
    s = RequestSession(StreamParser(["hermes"]))
    assert "".join(p.content for p in drain(s, [BROKEN])) == ""
    assert len(s.rejected) == 1


def test_the_markup_of_a_call_whose_name_was_sent_stays_out_of_the_content_unless_nothing_was_sent() -> None:
    # The name went out before the arguments broke: "unsent" keeps the markup out (the engine cannot take the
    # name back, the rejection is what is left); "all" is for callers that send nothing before a call ends.
    broken = '<tool_call>{"name": "get_weather", "arguments": {oops}}</tool_call>'
    unsent = RequestSession(StreamParser(["hermes"]), rejected_text="unsent")
    assert "<tool_call>" not in "".join(p.content for p in drain(unsent, [broken[:40], broken[40:]]))
    assert len(unsent.rejected_after_name) == 1
    every = RequestSession(StreamParser(["hermes"]), rejected_text="all")
    assert '"get_weather"' in "".join(p.content for p in drain(every, [broken[:40], broken[40:]]))
