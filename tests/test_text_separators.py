"""Declared text separators (``Declaration.text_separators``, exact output R12): text a template writes
around its own markers beyond whitespace is removed where separator whitespace is, and is content anywhere
else; the same under every chunking, in visible text and in reasoning; the field round-trips and validates."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import byte_pieces, random_pieces

from streamparse import StreamParser, formats
from streamparse.events import Event, ParseResult, merge_events
from streamparse.formats import Call, Declaration, JsonName, Reasoning
from streamparse.states.separators import SeparatorsOption

CALL = '<<call>>{"name": "f", "arguments": {"x": 1}}<</call>>'
DECL = Declaration(
    "x_phrased",
    Call("<<call>>", "<</call>>", JsonName()),
    reasoning=(Reasoning("<<think>>", "<</think>>"),),
    control_tokens=("<|eot|>",),
    text_separators=("Answer:", "\u3000"),
)


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    formats.register(DECL)
    yield
    formats.unregister(DECL.name)


def events(text: str, pieces: list[Any] | None = None, separators: SeparatorsOption = "drop") -> list[Event]:
    parser = StreamParser(formats=[DECL.name], separators=separators)
    out: list[Event] = []
    for piece in pieces if pieces is not None else [text]:
        out.extend(parser.feed(piece))
    return out + parser.close()


def parsed(text: str, separators: SeparatorsOption = "drop") -> ParseResult:
    """The whole parse, checked to be the same per character, per byte and in random pieces."""
    whole = events(text, separators=separators)
    chunkings: list[list[Any]] = [list(text), byte_pieces(text), *(random_pieces(text, seed) for seed in range(4))]
    for chunks in chunkings:
        assert merge_events(events(text, chunks, separators)) == merge_events(whole), chunks
    return ParseResult.from_events(whole)


@pytest.mark.parametrize(
    ("output", "text"),
    [
        ("Answer: Sure." + CALL, "Sure."),  # at the start of the output
        ("Sure.\u3000" + CALL + "\nAnswer: Done.", "Sure.\nDone."),  # before a call, after a call
        ("Sure.\nAnswer:", "Sure."),  # before the end of the output
        ("Sure. Answer:\u3000 <|eot|>", "Sure."),  # a run of separators and blanks before a control token
        ("Answer:\u3000 Answer: hi", "hi"),  # a run at the start
    ],
)
def test_a_declared_separator_beside_markup_is_not_content(output: str, text: str) -> None:
    assert parsed(output).text == text


@pytest.mark.parametrize("output", ["The Answer: is 42.", "x\u3000y", "So Answer:s are", "Sure. Answer:x" + CALL])
def test_a_declared_separator_inside_text_is_content(output: str) -> None:
    expected = output.replace(CALL, "")
    assert parsed(output).text == expected


def test_separators_in_reasoning_are_removed_like_whitespace() -> None:
    result = parsed("<<think>>Answer: plan it\u3000<</think>>Answer: Sure." + CALL)
    assert (result.reasoning, result.text, [c.name for c in result.tool_calls]) == ("plan it", "Sure.", ["f"])


def test_keep_leaves_declared_separators_in_the_content() -> None:
    output = "Answer: Sure.\u3000" + CALL
    assert parsed(output, separators="keep").text == "Answer: Sure.\u3000"


def test_a_format_without_the_separator_keeps_it() -> None:
    assert ParseResult.from_events(events_with_hermes("Answer: Sure.")).text == "Answer: Sure."


def events_with_hermes(text: str) -> list[Event]:
    parser = StreamParser(formats=["hermes"])
    return parser.feed(text) + parser.close()


def test_text_separators_round_trip_through_json() -> None:
    data = DECL.to_dict()
    assert data["text_separators"] == ["Answer:", "\u3000"]
    assert Declaration.from_dict(json.loads(json.dumps(data))) == DECL
    assert formats.load(formats.dump(DECL)) == DECL
    assert "text_separators" not in Declaration("x_plain", DECL.call).to_dict()  # the default is omitted


def test_a_user_declared_format_from_plain_data_uses_its_separators() -> None:
    spec = formats.declare(
        {"name": "x_user", "call": {"open": "<fn>", "close": "</fn>"}, "text_separators": ["-- reply --"]}
    )
    formats.register(spec)
    try:
        parser = StreamParser(formats=["x_user"])
        out = parser.feed('-- reply --\nHi.\n-- reply --<fn>{"name": "g", "arguments": {}}</fn>') + parser.close()
        result = ParseResult.from_events(out)
        assert (result.text, [c.name for c in result.tool_calls]) == ("Hi.", ["g"])
    finally:
        formats.unregister("x_user")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["\n "], "text_separators[0]: must be 1 to 128 characters, not only whitespace"),
        ([""], "text_separators[0]: must be 1 to 128 characters"),
        ("Answer:", "text_separators: must be a list"),
        (["<<call>>"], "text_separators[0]: '<<call>>' is also call.open"),
    ],
)
def test_invalid_text_separators_are_refused(value: object, message: str) -> None:
    data = {"name": "x_bad", "call": {"open": "<<call>>", "close": "<</call>>"}, "text_separators": value}
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Declaration.from_dict(data)


PIECES = st.sampled_from(["Answer:", "\u3000", " ", "\n", "Sure", ".", "Answer", CALL, "<|eot|>", "x"])


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(PIECES, max_size=8), seed=st.integers(0, 10_000))
def test_the_parse_does_not_depend_on_the_chunking(parts: list[str], seed: int) -> None:
    text = "".join(parts)
    whole = merge_events(events(text))
    assert merge_events(events(text, list(text))) == whole
    assert merge_events(events(text, random_pieces(text, seed))) == whole
