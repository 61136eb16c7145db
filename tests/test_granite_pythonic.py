"""granite_pythonic (formats/granite_pythonic.py): lines that are one Python-style call, with no marker, under
every chunking: a call only where the whole line is one, prose lines (even ones starting like a call) released as
text, cut calls, and any text around a call line property-tested. vLLM's own cases are in
tests/data/real/vllm.json (test_real_world.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons

from streamparse import parse

FORMATS = ["granite_pythonic"]

CASES: dict[str, tuple[str, list[tuple[str, dict[str, Any]]], str, list[str]]] = {
    # (output, calls, visible text, rejection reasons)
    "call_line_between_prose_lines": (
        'Checking.\nget_weather(city="Paris", days=3)  \nDone.',
        [("get_weather", {"city": "Paris", "days": 3})],
        "Checking.\nDone.",
        [],
    ),
    "a_line_starting_like_a_call_is_prose": (
        "print(x) is how you print.\nok",
        [],
        "print(x) is how you print.\nok",
        [],
    ),
    "a_call_inside_a_sentence_is_prose": (
        'Try get_weather(city="Paris") now.',
        [],
        'Try get_weather(city="Paris") now.',
        [],
    ),
    "positional_arguments_are_not_a_call": ("max(a, b)\n", [], "max(a, b)", []),
    "parenthesis_inside_a_string_argument": ('note(text="a) b\\n(c")', [("note", {"text": "a) b\n(c"})], "", []),
    "cut_inside_the_call": ('Checking.\nget_weather(city="Par', [], "Checking.", ["truncated"]),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_a_call_line_parses_under_every_chunking(key: str) -> None:
    text, want, visible, rejected = CASES[key]
    result = check_stream(text, formats=FORMATS)
    assert calls(result) == want
    assert result.text == visible
    assert reasons(result) == rejected


def test_granite_pythonic_is_read_only_where_named() -> None:
    text = 'get_weather(city="Paris")'
    assert calls(parse(text, formats=FORMATS)) == [("get_weather", {"city": "Paris"})]
    assert calls(parse(text, formats="auto")) == []


_LINE = st.text(alphabet=st.sampled_from(list("ab ()=,.\"'")), max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(_LINE, _LINE)
def test_a_call_line_is_found_whatever_prose_lines_surround_it(before: str, after: str) -> None:
    text = f'{before}\nget_weather(city="Paris")\n{after}'
    result = check_stream(text, seeds=3, formats=FORMATS)
    assert ("get_weather", {"city": "Paris"}) in calls(result)


def test_a_held_line_past_max_call_chars_is_a_call_too_large_and_the_next_line_is_read() -> None:
    text = 'note(text="' + "x" * 80 + '")\nDone.\nget_time(tz="UTC")'
    result = check_stream(text, formats=FORMATS, max_call_chars=40)
    assert reasons(result) == ["too_large"]
    assert result.rejected[0].raw == text[:40]
    assert calls(result) == [("get_time", {"tz": "UTC"})]
    assert result.text == "Done."


@pytest.mark.parametrize("line_start", ["1", "-", ".", "1."])
def test_a_line_that_cannot_begin_a_name_is_released_at_once(line_start: str) -> None:
    """A call line begins with its name: a line whose first character cannot begin one is prose, released with
    that character instead of held for the word after it (a name's start still waits for its ``(``). A blank
    is not held for the word either, but may be held as separator whitespace, so it is not asserted here."""
    from streamparse import StreamParser

    parser = StreamParser(formats=FORMATS)
    parser.feed("Checking.")
    parser.feed("\n")
    released = "".join(getattr(e, "text", "") for e in parser.feed(line_start))
    assert released.endswith(line_start)
    waiting = StreamParser(formats=FORMATS)
    waiting.feed("Checking.\n")
    assert "".join(getattr(e, "text", "") for e in waiting.feed("get")) == ""  # may still be get(...)
