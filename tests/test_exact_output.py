"""Exact output: content and reasoning are the message fields the template was given, argument values are
what the model meant (each format's template, inverted), under every chunking (docs/FORMATS.md)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, released_after_each_char

from streamparse import StreamParser, parse
from streamparse.events import ParseResult, TextDelta
from streamparse.states.separators import HOLD_LIMIT

WS = " \t\r\n"
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CALL = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'


@pytest.mark.parametrize(
    ("text", "visible", "reasoning"),
    [
        # The separators real templates write (tests/data/real/templates.json holds the renders).
        ("<think>\nWhy.\n</think>\n\nSo.", "So.", "Why."),
        ("Let me check.\n\n" + CALL, "Let me check.", ""),
        (CALL + "\n" + CALL, "", ""),
        (CALL + "\nDone.", "Done.", ""),
        ("Text.\n" + CALL + "\n\nMore text.", "Text.\nMore text.", ""),  # joined by the lightest separator
        ("Text. " + CALL + " more.", "Text. more.", ""),
        ("Text." + CALL + "more.", "Text.more.", ""),  # no separator was written: none is made up
        ("  indented first line\n  second\n", "indented first line\n  second", ""),
        ("Keep  inner   spaces\n\nand lines.", "Keep  inner   spaces\n\nand lines.", ""),
    ],
)
def test_content_and_reasoning_are_the_message_fields(text: str, visible: str, reasoning: str) -> None:
    result = check_stream(text, formats=["hermes"])
    assert (result.text, result.reasoning) == (visible, reasoning)


def test_separators_keep_leaves_the_raw_text() -> None:
    text = "<think>\nWhy.\n</think>\n\nLet me check.\n\n" + CALL + "\n"
    kept = check_stream(text, formats=["hermes"], separators="keep")
    assert (kept.text, kept.reasoning) == ("\n\nLet me check.\n\n\n", "\nWhy.\n")
    assert parse(text, formats=["hermes"], separators="keep").text == kept.text
    preset = StreamParser.for_model("Qwen/Qwen3-8B", separators="keep")
    result = ParseResult.from_events(preset.feed("Why.\n</think>\n\nSo.\n") + preset.close())
    assert (result.text, result.reasoning) == ("\n\nSo.\n", "Why.\n")


def test_separators_option_is_checked() -> None:
    with pytest.raises(ValueError, match="separators"):
        StreamParser(separators="strip")  # type: ignore[arg-type]


def test_trailing_whitespace_waits_only_for_the_next_character() -> None:
    parser = StreamParser(formats=["hermes"])
    assert [e.text for e in parser.feed("Hello \n") if isinstance(e, TextDelta)] == ["Hello"]
    assert [e.text for e in parser.feed("world") if isinstance(e, TextDelta)] == [" \nworld"]
    assert parser.feed("  <tool_c") == []  # held: a marker, or "<tool_c" as text, decides
    assert [e.text for e in parser.feed("ake") if isinstance(e, TextDelta)] == ["  <tool_cake"]


def test_a_long_whitespace_run_is_content_and_the_hold_stays_bounded() -> None:
    run = " " * (HOLD_LIMIT + 50)
    parser = StreamParser(formats=["hermes"])
    released = []
    for ch in "a" + run:
        released += [e.text for e in parser.feed(ch) if isinstance(e, TextDelta)]
    assert "".join(released) == "a" + run  # past the limit the run is content, released at once
    assert parser.stats.largest_holdback <= HOLD_LIMIT
    assert check_stream("a" + run + CALL, formats=["hermes"]).text == "a" + run


WORDS = st.lists(st.sampled_from(["a", "b c", " ", "\n", "\n\n", "\t", CALL, "<think>r\n</think>"]), max_size=12)


@FAST
@given(parts=WORDS)
def test_text_never_starts_or_ends_with_separator_whitespace(parts: list[str]) -> None:
    text = "".join(parts)
    result = check_stream(text, seeds=2, formats=["hermes"])
    assert result.text == result.text.strip(WS)
    assert result.reasoning == result.reasoning.strip(WS)
    kept = check_stream(text, seeds=1, formats=["hermes"], separators="keep")
    # Dropping separators only removes whitespace (and joins segments with at most one character).
    assert len(result.text) <= len(kept.text) + text.count("<")


@FAST
@given(text=st.text(alphabet="ab \n\t.", max_size=40))
def test_prose_without_markup_is_exact_but_its_ends(text: str) -> None:
    assert check_stream(text, seeds=2, formats="auto").text == text.strip(WS)
    released = released_after_each_char(text, formats=["hermes"])
    for i, got in enumerate(released):
        assert got == text[: i + 1].strip(WS)  # earliest release: only a whitespace run is held


# -- argument values: the inverse of how each template writes them ---------------------------------------

VALUE = "  Beijing \n  "
VALUE_CASES: list[tuple[str, str, str]] = [
    # GLM-4.5/4.6/4.7: <arg_value>{{ v }}</arg_value>
    ("glm45", f"<tool_call>f<arg_key>q</arg_key><arg_value>{VALUE}</arg_value></tool_call>", VALUE),
    ("glm45", f"<tool_call>f\n<arg_key>q</arg_key>\n<arg_value>{VALUE}</arg_value>\n</tool_call>", VALUE),
    # Seed-OSS: "<parameter=" + k + ">" + v + "</parameter>\n"
    (
        "seed_oss",
        f"<seed:tool_call>\n<function=f>\n<parameter=q>{VALUE}</parameter>\n</function>\n</seed:tool_call>",
        VALUE,
    ),
    # MiniMax-M2: '<parameter name="' + k + '">' + v + '</parameter>'
    (
        "minimax",
        f'<minimax:tool_call>\n<invoke name="f">\n<parameter name="q">{VALUE}</parameter>\n</invoke>\n'
        "</minimax:tool_call>",
        VALUE,
    ),
    # DeepSeek V3.2 DSML: <｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>
    (
        "deepseek_dsml",
        f'<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="q" string="true">{VALUE}'
        "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        VALUE,
    ),
    # Anthropic XML: <parameter name="k">v</parameter>
    (
        "xml_invoke",
        f'<function_calls>\n<invoke name="f">\n<parameter name="q">{VALUE}</parameter>\n</invoke>\n</function_calls>',
        VALUE,
    ),
    # Qwen3-Coder: "<parameter=" + k + ">\n" + v + "\n</parameter>\n": one newline per side is the template's
    (
        "qwen3_coder",
        f"<tool_call>\n<function=f>\n<parameter=q>\n{VALUE}\n</parameter>\n</function>\n</tool_call>",
        VALUE,
    ),
]


@pytest.mark.parametrize(("fmt", "text", "value"), VALUE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(VALUE_CASES)])
def test_argument_values_keep_the_whitespace_the_model_wrote(fmt: str, text: str, value: str) -> None:
    for formats in ([fmt], "auto"):
        result = check_stream(text, formats=formats)
        assert calls(result) == [("f", {"q": value})], formats


@pytest.mark.parametrize("fmt", ["glm45", "minimax", "qwen3_coder"])
def test_typed_values_read_through_the_whitespace_around_them(fmt: str) -> None:
    tools: Any = [
        {"type": "function", "function": {"name": "f", "parameters": {"properties": {"q": {"type": "integer"}}}}}
    ]
    text = next(t for f, t, _ in VALUE_CASES if f == fmt).replace(VALUE, " 15 ")
    assert calls(check_stream(text, formats=[fmt], tools=tools)) == [("f", {"q": 15})]


# -- markers inside values: any value round-trips unless it spells what the template writes after a value --

PIECES = ["a", "b c", " ", "\n", "</parameter>", "</function>", "<function=x>", "</tool_call>", "<tool_call>"]
_QWEN_AMBIGUOUS = re.compile(
    # (`</parameter></tool_call>` too: a call whose `</function>` the model left out ends there, issue 22)
    r"(?:^|\n)<parameter=|</parameter>\s*(?:<parameter=|</function>|</tool_call>)"
    r"|</function>\s*(?:</tool_call>|<tool_call>|<function=)"
)


@FAST
@given(pieces=st.lists(st.sampled_from(PIECES), max_size=10))
def test_qwen3_coder_values_holding_markers_round_trip(pieces: list[str]) -> None:
    value = "".join(pieces)
    assume(_QWEN_AMBIGUOUS.search(value) is None)
    text = f"<tool_call>\n<function=f>\n<parameter=q>\n{value}\n</parameter>\n</function>\n</tool_call>"
    assert calls(check_stream(text, seeds=2, formats=["qwen3_coder"])) == [("f", {"q": value})]


GLM_PIECES = ["a", " ", "\n", "</arg_value>", "<arg_value>", "</arg_key>", "</tool_call>"]


@FAST
@given(pieces=st.lists(st.sampled_from(GLM_PIECES), max_size=10))
def test_glm_values_holding_markers_round_trip(pieces: list[str]) -> None:
    value = "".join(pieces)
    assume(re.search(r"</arg_value>\s*(?:<arg_key>|</tool_call>|$)", value) is None)
    text = f"<tool_call>f<arg_key>q</arg_key><arg_value>{value}</arg_value></tool_call>"
    assert calls(check_stream(text, seeds=2, formats=["glm45"])) == [("f", {"q": value})]


def test_a_closer_inside_a_value_is_decided_within_the_lookahead() -> None:
    from streamparse.core.lookahead import LOOKAHEAD

    value = "a</parameter>" + " " * (LOOKAHEAD + 40) + "still the value"
    text = f"<tool_call>\n<function=f>\n<parameter=q>\n{value}\n</parameter>\n</function>\n</tool_call>"
    parser = StreamParser(formats=["qwen3_coder"])
    for ch in text:
        parser.feed(ch)
    parser.close()
    # A closer followed by more whitespace than the look-ahead ends the value: decided, never held longer.
    assert parser.stats.largest_holdback <= LOOKAHEAD + len("</parameter>") + 1
    assert check_stream(text, seeds=2, formats=["qwen3_coder"]).rejected  # "still the value" is stray text


def test_kimi_noise_is_dropped_only_between_section_markers() -> None:
    call = '<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|>'
    inside = check_stream(
        "Hi<|tool_calls_section_begin|> um " + call + " uh <|tool_calls_section_end|>", formats=["kimi_k2"]
    )
    assert calls(inside) == [("f", {"a": 1})] and inside.text == "Hi"
    # No section marker within the look-ahead: the section ended, the prose after it is text.
    prose = "x" * 300
    after = check_stream("<|tool_calls_section_begin|>" + call + " " + prose, seeds=2, formats=["kimi_k2"])
    assert calls(after) == [("f", {"a": 1})] and after.text == prose


def test_gemma4_keys_with_spaces_come_back_under_every_chunking() -> None:
    text = '<|tool_call>call:add_contact{first name:<|"|>Ada<|"|>,zip code:75001}<tool_call|>'
    result = check_stream(text, formats=["gemma4"])
    assert calls(result) == [("add_contact", {"first name": "Ada", "zip code": 75001})]
