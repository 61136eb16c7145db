"""A bare pythonic list after prose is a call list only when it ends its line (issue 17 §3, prose is not a
call): decided at the list's ``]``, with nothing emitted before; a list at the output start commits at its
first confirmed call (early completion)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons

from streamparse import StreamParser, ToolCallStart

TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": {}}}}
    for n in ("lookup", "fetch")
]
TWO = "[lookup(q='x'), fetch(url='https://e.x/?a=[1,2]', opts={'k': [1, (2)]})]"
TWO_CALLS = [("lookup", {"q": "x"}), ("fetch", {"url": "https://e.x/?a=[1,2]", "opts": {"k": [1, 2]}})]


@pytest.mark.parametrize(
    "text",
    [
        f"the docs say {TWO} returns the first hit",
        "the docs say [lookup(q='x'), fetch(url='y')], then it stops.",
        "Compare [lookup(q='x'), fetch(url='y')]: the second one fails.",
        "the docs say [lookup(q='x')] returns the first hit",
        "see [lookup(q='x'), ] for the syntax",
    ],
)
def test_a_list_of_calls_quoted_mid_sentence_is_text(text: str) -> None:
    for tools in (None, TOOLS):
        result = check_stream(text, formats=["pythonic"], tools=tools)
        assert calls(result) == [] and result.rejected == [] and result.text == text


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        (f"Let me check.\n{TWO}\nDone.", "Let me check.\nDone."),
        (f"Let me check: {TWO}", "Let me check:"),
        (f"Let me check:\n{TWO}  \n", "Let me check:"),
    ],
)
def test_a_list_of_calls_that_ends_its_line_after_prose_is_every_call(text: str, visible: str) -> None:
    result = check_stream(text, formats=["pythonic"], tools=TOOLS)
    assert calls(result) == TWO_CALLS and result.rejected == [] and result.text == visible
    assert "".join(c.raw for c in result.tool_calls) == TWO


def test_no_call_event_before_the_list_end_decides() -> None:
    text = f"Let me check: {TWO}\nDone."
    parser = StreamParser(formats=["pythonic"], tools=TOOLS)
    decided = text.index("]\n") + 2  # the newline after the list's ``]`` decides
    for i, ch in enumerate(text):
        started = [e for e in parser.feed(ch) if isinstance(e, ToolCallStart)]
        assert not started or i + 1 == decided, f"a call started at {i} before the list's end was decided"
    parser.close()


def test_a_list_at_the_start_commits_at_its_first_confirmed_call() -> None:
    parser = StreamParser(formats=["pythonic"])
    events = parser.feed("[lookup(q='x'),")
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["lookup"]
    # the engines read the whole output as one list; the start rule keeps the list and the prose after it
    result = check_stream(f"{TWO} is how it is called", formats=["pythonic"])
    assert calls(result) == TWO_CALLS and result.text == "is how it is called"


def test_a_list_after_prose_cut_in_its_second_call_keeps_the_first() -> None:
    result = check_stream("Checking:\n[lookup(q='x'), fetch(url='y", formats=["pythonic"], tools=TOOLS)
    assert calls(result) == [("lookup", {"q": "x"})] and reasons(result) == ["truncated"]
    assert result.text == "Checking:"


def test_a_list_after_prose_with_a_non_call_element_is_text() -> None:
    text = "Checking:\n[lookup(q='x'), fetch(1)]\n"
    result = check_stream(text, formats=["pythonic"], tools=TOOLS)
    assert calls(result) == [] and result.rejected == [] and result.text == text.strip()


_WORD = st.text(alphabet="abcdefghij ,.", min_size=1, max_size=12).filter(lambda w: w.strip(" ") == w and "\n" not in w)


@settings(max_examples=40, deadline=None)
@given(before=_WORD, after=_WORD, n=st.integers(1, 3))
def test_property_a_list_between_words_on_one_line_is_text(before: str, after: str, n: int) -> None:
    items = ", ".join(f"lookup(q='{i}')" for i in range(n))
    text = f"{before} [{items}] {after}"
    result = check_stream(text, seeds=3, formats=["pythonic"], tools=TOOLS)
    assert calls(result) == [] and result.text == text
