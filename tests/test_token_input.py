"""Token-id input: a marker that is a special token is recognised only when it arrives as that token id."""

from __future__ import annotations

import json

import pytest
from invariants import check_deltas, random_pieces

from streamparse import StreamParser
from streamparse.events import Event, merge_events

SPECIAL = {100: "<tool_call>", 101: "</tool_call>", 102: "<think>", 103: "</think>", 104: "<|im_end|>"}
BODY = '{"name": "get_weather", "arguments": {"city": "Paris", "note": "<tool_call>x</tool_call>"}}'


def run(pieces: list[tuple[int | None, str]], **options: object) -> list[Event]:
    parser = StreamParser(["hermes"], special_tokens=SPECIAL, **options)  # type: ignore[arg-type]
    events: list[Event] = []
    for piece in pieces:
        events += parser.feed_tokens([piece])
    return events + parser.close()


def plain(text: str, seed: int) -> list[tuple[int | None, str]]:
    return [(None, p) for p in random_pieces(text, seed)]


@pytest.mark.parametrize("seed", range(10))
def test_markers_typed_as_plain_text_stay_text_under_any_split(seed: int) -> None:
    text = "You wrote <tool_call>" + BODY + "</tool_call> and <think>hm</think> literally."
    events = run(plain(text, seed))
    assert [ev.type for ev in merge_events(events)] == ["text"]
    assert "".join(ev.text for ev in events) == text  # type: ignore[union-attr]


@pytest.mark.parametrize("seed", range(10))
def test_the_same_markers_as_token_ids_open_the_call(seed: int) -> None:
    pieces = [(None, "Sure. "), (100, "<tool_call>"), *plain(BODY, seed), (101, "</tool_call>"), (104, "<|im_end|>")]
    events = run(pieces)
    check_deltas(events)
    (end,) = [ev for ev in events if ev.type == "tool_call_end"]
    # The marker characters typed inside the arguments are the arguments, unchanged.
    assert end.call.arguments == json.loads(BODY)["arguments"]  # type: ignore[union-attr]
    assert end.call.raw == "<tool_call>" + BODY + "</tool_call>"  # type: ignore[union-attr]
    deltas = "".join(ev.arguments for ev in events if ev.type == "tool_call_delta")  # type: ignore[union-attr]
    assert deltas == end.call.arguments_json  # type: ignore[union-attr]


def test_reasoning_markers_count_only_as_ids() -> None:
    typed = run([(None, "<think>not reasoning</think> text")])
    assert [ev.type for ev in merge_events(typed)] == ["text"]
    real = run([(102, "<think>"), (None, "reasoning"), (103, "</think>"), (None, "text")])
    assert [(ev.type, getattr(ev, "text", "")) for ev in merge_events(real)] == [
        ("reasoning", "reasoning"),
        ("text", "text"),
    ]


def test_a_held_plain_tail_is_released_at_close() -> None:
    events = run([(None, "ends with <tool_ca")])
    assert "".join(ev.text for ev in events) == "ends with <tool_ca"  # type: ignore[union-attr]


def test_a_special_token_ends_a_held_plain_tail() -> None:
    events = run([(None, "<tool_ca"), (100, "<tool_call>"), (None, BODY), (101, "</tool_call>")])
    assert [ev.type for ev in merge_events(events)][:2] == ["text", "tool_call_start"]
    assert events[0].text == "<tool_ca"  # type: ignore[union-attr]


def test_plain_feed_in_token_mode_is_plain_text() -> None:
    parser = StreamParser(["hermes"], special_tokens=SPECIAL)
    events = parser.feed("<tool_call>" + BODY + "</tool_call>") + parser.close()
    assert [ev.type for ev in merge_events(events)] == ["text"]
    with pytest.raises(TypeError):
        StreamParser(["hermes"], special_tokens=SPECIAL).feed(b"<tool_call>")


def test_feed_tokens_needs_the_table() -> None:
    with pytest.raises(ValueError, match="special_tokens"):
        StreamParser(["hermes"]).feed_tokens([(100, "<tool_call>")])


def test_reset_forgets_a_held_tail() -> None:
    parser = StreamParser(["hermes"], special_tokens=SPECIAL)
    parser.feed_tokens([(None, "<tool_ca")])
    parser.reset()
    events = parser.feed_tokens([(None, "fresh")]) + parser.close()
    assert "".join(ev.text for ev in events) == "fresh"  # type: ignore[union-attr]
