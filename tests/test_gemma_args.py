"""Gemma 4 / FunctionGemma argument grammar: conversion to JSON and the incremental end tracker."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse.formats.gemma_args import GemmaArgsTracker, gemma_args_to_json
from streamparse.formats.pyliteral import MAX_DEPTH

D = '<|"|>'
E = "<escape>"


def test_catalog_example_keeps_commas_inside_a_delimited_string() -> None:
    text = "{label:" + D + "standup, daily" + D + ",minutes:15}"
    out = gemma_args_to_json(text)
    assert out == '{"label": "standup, daily", "minutes": 15}'
    assert json.loads(out) == {"label": "standup, daily", "minutes": 15}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (D + "text" + D, "text"),
        (D + D, ""),
        (D + "a:b,c{d}[e] \"q\" 'q' \\n" + D, "a:b,c{d}[e] \"q\" 'q' \\n"),
        (D + "two\nlines" + D, "two\nlines"),
        (D + "東京 😀" + D, "東京 😀"),
        ("0", 0),
        ("-12", -12),
        ("3.5", 3.5),
        ("-1.5e3", -1500.0),
        ("2E-2", 0.02),
        ("true", True),
        ("false", False),
        ("null", None),
        ("[]", []),
        ("{}", {}),
        ("[1," + D + "x" + D + ",true,null]", [1, "x", True, None]),
        ("{inner:{deep:[" + D + "}" + D + "]}}", {"inner": {"deep": ["}"]}}),
        ("[[],[[]],{}]", [[], [[]], {}]),
    ],
)
def test_every_value_kind_converts(value: str, expected: Any) -> None:
    out = gemma_args_to_json("{v:" + value + "}")
    assert json.loads(out) == {"v": expected}
    assert type(json.loads(out)["v"]) is type(expected)


def test_whitespace_between_tokens_and_a_trailing_comma_are_tolerated() -> None:
    text = "{\n  a : 1 ,\n  b :\t[ 1 , 2 , ] ,\n}\n"
    assert json.loads(gemma_args_to_json(text)) == {"a": 1, "b": [1, 2]}


def test_keys_may_be_bare_words_or_delimited_strings() -> None:
    text = "{max-results:3,user.id:7," + D + "with space" + D + ":true,城市:" + D + "東京" + D + "}"
    assert json.loads(gemma_args_to_json(text)) == {
        "max-results": 3,
        "user.id": 7,
        "with space": True,
        "城市": "東京",
    }


def test_json_output_escapes_what_json_requires() -> None:
    out = gemma_args_to_json("{s:" + D + 'quote " back \\ tab \t nl \n' + D + "}")
    assert json.loads(out) == {"s": 'quote " back \\ tab \t nl \n'}


def test_functiongemma_escape_delimiter() -> None:
    text = "{city:" + E + "New York, NY" + E + ",days:3}"
    assert json.loads(gemma_args_to_json(text, E)) == {"city": "New York, NY", "days": 3}
    with pytest.raises(ValueError):
        gemma_args_to_json(text)  # with the Gemma 4 delimiter `<escape>` is not a string


def test_empty_arguments() -> None:
    assert gemma_args_to_json("{}") == "{}"
    assert gemma_args_to_json("  { }  ") == "{}"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[1]",
        "a:1",
        "{a:bare}",
        "{a:Yes}",
        "{a:'x'}",
        '{a:"x"}',
        "{a:01}",
        "{a:1.}",
        "{a:.5}",
        "{a:+1}",
        "{a:1e999}",
        "{a:" + "9" * 5000 + "}",
        "{a:1",
        "{a:1}}",
        "{a:1} extra",
        "{a:[1}",
        "{a:{b:1]}",
        "{a 1}",
        "{a:}",
        "{:1}",
        "{,}",
        "{a:1,,b:2}",
        "{a:[,]}",
        "{a:[1,,2]}",
        "{a:1 b:2}",
        "{a:" + D + "unterminated}",
        "{" + D + "k:1}",
        "{a:" + D + "x" + D + D + "y" + D + "}",
    ],
)
def test_malformed_arguments_are_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        gemma_args_to_json(text)


def test_deep_nesting_is_a_value_error_not_a_recursion_error() -> None:
    text = "{a:" + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ValueError, match="nesting"):
        gemma_args_to_json(text)
    with pytest.raises(ValueError):
        gemma_args_to_json("{a:" + "{b:" * 100_000)


def test_nesting_up_to_the_limit_converts() -> None:
    text = "{a:" + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"
    assert json.loads(gemma_args_to_json(text)) is not None


def test_megabyte_string_converts_whole() -> None:
    body = "line, with: {braces} [and] <tags>\n" * 30_000
    out = gemma_args_to_json("{body:" + D + body + D + "}")
    assert json.loads(out) == {"body": body}


@pytest.mark.parametrize("delim", ["", "{", "<|[|>"])
def test_a_delimiter_that_is_empty_or_holds_brackets_is_refused(delim: str) -> None:
    with pytest.raises(ValueError):
        gemma_args_to_json("{}", delim)
    with pytest.raises(ValueError):
        GemmaArgsTracker(delim)


# --- generated values round-trip -------------------------------------------------------------------------

_keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,10}", fullmatch=True).filter(lambda k: k != "")
_strings = st.text(max_size=20).filter(lambda s: D not in s and E not in s)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _strings
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=20,
)


def _render(value: Any, delim: str) -> str:
    """Gemma-style text for a value (test-side writer; recursion is fine at these sizes)."""
    if isinstance(value, str):
        return delim + value + delim
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_render(v, delim)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_render(v, delim) for v in value) + "]"
    return json.dumps(value)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_keys, _values, max_size=5), st.sampled_from([D, E]))
def test_any_rendered_value_converts_back(args: dict[str, Any], delim: str) -> None:
    out = gemma_args_to_json(_render(args, delim), delim)
    assert json.loads(out) == args


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}[]:,<|"> a1-.etrunl\n', max_size=40))
def test_arbitrary_text_gives_json_or_a_value_error(text: str) -> None:
    try:
        out = gemma_args_to_json(text)
    except ValueError:
        return
    assert isinstance(json.loads(out), dict)


# --- GemmaArgsTracker -------------------------------------------------------------------------------------


def _feed_pieces(pieces: list[str], delim: str = D) -> tuple[int | None, bool, int]:
    tracker = GemmaArgsTracker(delim)
    done = 0
    for piece in pieces:
        at = tracker.feed(piece)
        if at is not None:
            return done + at, tracker.broken, tracker.depth
        done += len(piece)
    return None, tracker.broken, tracker.depth


@pytest.mark.parametrize(
    ("text", "close"),
    [
        ("{a:1}<tool_call|>", 5),
        ("{a:" + D + "}" + D + "}tail", 15),
        ("{a:[{b:" + D + "]}" + D + "}]}x", 22),
        ("{a:" + D + D + "}", 14),
        ("{}", 2),
        ('{a:<|,b:<|" ,c:' + D + "}" + D + "}x", 27),
    ],
)
def test_tracker_finds_the_close_outside_delimited_strings(text: str, close: int) -> None:
    assert _feed_pieces([text]) == (close, False, 0)
    assert _feed_pieces(list(text)) == (close, False, 0)


@pytest.mark.parametrize("text", ["}", "[1]", "{a:[1}", "{a:{b:1]}", D + "{"])
def test_tracker_marks_mismatched_or_non_object_candidates_broken(text: str) -> None:
    for pieces in ([text], list(text)):
        close, broken, _ = _feed_pieces(pieces)
        assert close is None
        assert broken


def test_tracker_waits_inside_an_unclosed_string() -> None:
    tracker = GemmaArgsTracker()
    assert tracker.feed("{a:" + D + "}}}]]]") is None
    assert tracker.depth == 1
    assert not tracker.broken
    assert tracker.feed(D + "}") == len(D) + 1
    assert tracker.closed
    assert tracker.feed("}") is None


@pytest.mark.parametrize("delim", [D, E])
def test_tracker_handles_the_delimiter_split_at_every_offset(delim: str) -> None:
    text = "{label:" + delim + "standup}, {daily" + delim + ",tags:[" + delim + "]" + delim + "],n:1}<tool_call|>"
    expected = _feed_pieces([text], delim)
    assert expected[0] == text.index("<tool_call|>")
    for i in range(len(text) + 1):
        assert _feed_pieces([text[:i], text[i:]], delim) == expected
        for j in range(i, min(i + len(delim) + 2, len(text)) + 1):
            assert _feed_pieces([text[:i], text[i:j], text[j:]], delim) == expected


def test_tracker_survives_100k_nesting() -> None:
    text = "{a:" + "[" * 100_000 + "]" * 100_000 + "}"
    tracker = GemmaArgsTracker()
    assert tracker.feed(text[:70_000]) is None
    assert tracker.depth == 70_000 - 3 + 1
    assert tracker.feed(text[70_000:]) == len(text) - 70_000


@st.composite
def _splits(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=10)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=300, deadline=None)
@given(st.data(), st.text(alphabet='{}[]<|">a', max_size=40), st.sampled_from([D, E]))
def test_tracker_agrees_on_any_split_of_any_text(data: st.DataObject, text: str, delim: str) -> None:
    text = "{" + text.replace("a", delim)
    whole = _feed_pieces([text], delim)
    assert _feed_pieces(list(text), delim) == whole
    assert _feed_pieces(data.draw(_splits(text)), delim) == whole


@settings(max_examples=100, deadline=None)
@given(st.data(), st.dictionaries(_keys, _values, max_size=5))
def test_tracker_closes_exactly_at_the_end_of_generated_arguments(data: st.DataObject, args: dict[str, Any]) -> None:
    text = _render(args, D)
    tail = data.draw(st.sampled_from(["", "<tool_call|>", "}", D]))
    close, broken, _ = _feed_pieces(data.draw(_splits(text + tail)))
    assert (close, broken) == (len(text), False)
    assert json.loads(gemma_args_to_json(text[:close])) == args


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.sampled_from(["", "{", "{a:", "{a:" + D, "{a:" + E]))
def test_arbitrary_unicode_gives_json_or_a_value_error(text: str, prefix: str) -> None:
    for delim in (D, E):
        tracker = GemmaArgsTracker(delim)
        for char in prefix + text:
            tracker.feed(char)
        try:
            out = gemma_args_to_json(prefix + text, delim)
        except ValueError:
            continue
        assert isinstance(json.loads(out), dict)


def test_python_literals_the_chat_template_prints_are_read_as_json() -> None:
    # Gemma 4's chat template renders a None / True / False argument the Python way (issue 10).
    assert json.loads(gemma_args_to_json("{a:None,b:True,c:False}")) == {"a": None, "b": True, "c": False}


def test_keys_with_spaces_are_keys_as_the_template_prints_them() -> None:
    # Gemma 4's template prints ``{{ key }}:``: a property named "first name" comes back under that name.
    assert json.loads(gemma_args_to_json('{first name:<|"|>Ada<|"|>, zip code :75001}')) == {
        "first name": "Ada",
        "zip code": 75001,
    }
    with pytest.raises(ValueError):
        gemma_args_to_json('{first name<|"|>Ada<|"|>}')  # still needs its colon
