"""Fail-closed limits: ``max_call_chars`` and bounded holdback (issue 4).

A call growing past ``max_call_chars`` is rejected ``too_large`` without buffering more of it, for every
body kind, with a verdict that does not depend on the chunking; the stream goes on after the call. Nothing
is held back unboundedly waiting for a continuation.
"""

from __future__ import annotations

import tracemalloc

import pytest
from invariants import calls, check_stream, reasons

from streamparse import StreamParser, ToolCallDelta, ToolCallEnd, ToolCallRejected, parse
from streamparse.events import Event

BIG = "x" * 3000
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string"}, "n": {"type": "integer"}, "obj": {"type": "object"}},
            },
        },
    },
    {"type": "function", "function": {"name": "g", "parameters": {"type": "object", "properties": {}}}},
]

# One oversized call per body kind, with a small valid call after it and text around.
OVERSIZED = {
    "json call object": (["hermes"], '<tool_call>{"name": "f", "arguments": {"q": "' + BIG + '"}}</tool_call>'),
    "json call, args before name": (
        ["hermes"],
        '<tool_call>{"arguments": {"q": "' + BIG + '"}, "name": "f"}</tool_call>',
    ),
    "json args after a name header": (["function_tag"], '<function=f>{"q": "' + BIG + '"}</function>'),
    "json args in tokens": (
        ["kimi_k2"],
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
        '{"q": "' + BIG + '"}<|tool_call_end|><|tool_calls_section_end|>',
    ),
    "nested arrays": (
        ["hermes"],
        '<tool_call>{"name": "f", "arguments": {"obj": {"a": ' + "[" * 1500 + "]" * 1500 + "}}}</tool_call>",
    ),
    "json-encoded string arguments": (
        ["hermes"],
        '<tool_call>{"name": "f", "arguments": "{\\"q\\": \\"' + BIG + '\\"}"}</tool_call>',
    ),
    "tag params": (
        ["qwen3_coder"],
        "<tool_call>\n<function=f>\n<parameter=q>\n" + BIG + "\n</parameter>\n</function>\n</tool_call>",
    ),
    "typed tag param": (
        ["qwen3_coder"],
        "<tool_call>\n<function=f>\n<parameter=n>\n" + "7" * 3000 + "\n</parameter>\n</function>\n</tool_call>",
    ),
    "section of invokes": (
        ["xml_invoke"],
        '<function_calls>\n<invoke name="f">\n<parameter name="q">'
        + BIG
        + "</parameter>\n</invoke>\n</function_calls>",
    ),
    "glm arg values": (
        ["glm45"],
        "<tool_call>f\n<arg_key>q</arg_key>\n<arg_value>" + BIG + "</arg_value>\n</tool_call>",
    ),
}
SMALL_CALL = {
    "hermes": '<tool_call>{"name": "g", "arguments": {}}</tool_call>',
    "function_tag": "<function=g>{}</function>",
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>{}"
    "<|tool_call_end|><|tool_calls_section_end|>",
    "qwen3_coder": "<tool_call>\n<function=g>\n</function>\n</tool_call>",
    "xml_invoke": '<function_calls>\n<invoke name="g">\n</invoke>\n</function_calls>',
    "glm45": "<tool_call>g</tool_call>",
}


@pytest.mark.parametrize("kind", list(OVERSIZED))
@pytest.mark.parametrize("with_tools", [False, True])
def test_call_past_the_limit_is_rejected_too_large_in_every_chunking(kind: str, with_tools: bool) -> None:
    formats, call = OVERSIZED[kind]
    text = "Before. " + call + " middle " + SMALL_CALL[formats[0]] + " after."
    options = {"formats": formats, "max_call_chars": 500, "tools": TOOLS if with_tools else None}
    result = check_stream(text, seeds=4, **options)
    assert reasons(result) == ["too_large"]
    rejected = result.rejected[0]
    assert len(rejected.raw) == 500  # exactly the first max_call_chars characters of the markup
    assert rejected.raw in call  # (a section opener before the call is block markup, not the call's)
    assert "the call grew past max_call_chars=500" in rejected.detail
    assert calls(result) == [("g", {})]  # the stream goes on: the next call is read normally
    assert result.text.startswith("Before. ")
    assert result.text.endswith(" middle after.")  # the oversized call's markup never becomes text
    assert BIG[:50] not in result.text


@pytest.mark.parametrize("kind", list(OVERSIZED))
def test_the_same_calls_pass_without_a_limit_or_under_a_larger_one(kind: str) -> None:
    formats, call = OVERSIZED[kind]
    for limit in (None, len(call) + 10):
        result = parse(call, formats=formats, max_call_chars=limit)
        assert "too_large" not in reasons(result)


def test_a_call_of_exactly_the_limit_is_accepted_and_one_more_char_is_not() -> None:
    call = '<tool_call>{"name": "f", "arguments": {"q": "abc"}}</tool_call>'
    text = call + " tail"
    ok = check_stream(text, formats=["hermes"], max_call_chars=len(call))
    assert calls(ok) == [("f", {"q": "abc"})] and ok.text == "tail"
    too_big = check_stream(text, formats=["hermes"], max_call_chars=len(call) - 1)
    assert reasons(too_big) == ["too_large"] and too_big.text == "tail"
    assert too_big.rejected[0].raw == call[:-1]


def test_a_too_large_call_streams_deltas_only_up_to_the_limit() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"q": "' + BIG + '"}}</tool_call>'
    parser = StreamParser(formats=["hermes"], max_call_chars=200)
    events: list[Event] = []
    for i in range(0, len(text), 7):
        events += parser.feed(text[i : i + 7])
    events += parser.close()
    streamed = "".join(e.arguments for e in events if isinstance(e, ToolCallDelta))
    assert 0 < len(streamed) < 200
    assert not any(isinstance(e, ToolCallEnd) for e in events)
    assert [e.reason for e in events if isinstance(e, ToolCallRejected)] == ["too_large"]
    assert parser.stats.rejections == {"too_large": 1}


def test_the_limit_counts_each_call_separately() -> None:
    one = '<tool_call>{"name": "f", "arguments": {"q": "' + "y" * 100 + '"}}</tool_call>\n'
    result = check_stream(one * 5, seeds=3, formats=["hermes"], max_call_chars=len(one))
    assert len(result.tool_calls) == 5 and not result.rejected


def test_truncated_call_within_the_limit_stays_truncated() -> None:
    result = check_stream('<tool_call>{"name": "f", "arguments": {"q": "ab', formats=["hermes"], max_call_chars=1000)
    assert reasons(result) == ["truncated"]


def test_max_call_chars_must_be_positive() -> None:
    with pytest.raises(ValueError):
        StreamParser(max_call_chars=0)


def _peak_while_feeding(text: str, chunk: int, **options: object) -> tuple[int, list[str]]:
    tracemalloc.start()
    try:
        parser = StreamParser(**options)  # type: ignore[arg-type]
        seen: list[str] = []
        for i in range(0, len(text), chunk):
            for ev in parser.feed(text[i : i + chunk]):
                if isinstance(ev, ToolCallRejected):
                    seen.append(ev.reason)
                elif isinstance(ev, ToolCallEnd):
                    seen.append("end")
        for ev in parser.close():
            if isinstance(ev, ToolCallRejected):
                seen.append(ev.reason)
        return tracemalloc.get_traced_memory()[1], seen
    finally:
        tracemalloc.stop()


def test_a_50_mb_string_argument_is_rejected_with_small_memory() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"q": "' + "x" * 50_000_000 + '"}}</tool_call> after'
    peak, seen = _peak_while_feeding(text, 65536, formats=["hermes"], max_call_chars=10_000)
    assert seen == ["too_large"]
    assert peak < 2_000_000, f"peak {peak} bytes while rejecting a 50 MB argument"


@pytest.mark.parametrize(
    "formats, head, body, tail",
    [
        (["hermes"], '<tool_call>{"name": "f", "arguments": "{\\"q\\": \\"', "x", '\\"}"}</tool_call>'),
        (["hermes"], '<tool_call>{"name": "f", "arguments": {"', "k", '": 1}}</tool_call>'),
        (
            ["qwen3_coder"],
            "<tool_call>\n<function=f>\n<parameter=n>\n",
            "7",
            "\n</parameter>\n</function>\n</tool_call>",
        ),
        (["xml_invoke"], '<invoke name="f">\n<parameter name="q">', "x<", "</parameter>\n</invoke>"),
    ],
    ids=["json-string-args", "huge-key", "typed-tag-value", "tag-value-with-lt"],
)
def test_memory_stays_small_after_a_too_large_rejection(formats: list[str], head: str, body: str, tail: str) -> None:
    text = head + body * (5_000_000 // len(body)) + tail + " after"
    peak, seen = _peak_while_feeding(text, 4096, formats=formats, tools=TOOLS, max_call_chars=10_000)
    assert seen and seen[0] == "too_large"
    assert peak < 1_500_000, f"peak {peak} bytes"


@pytest.mark.parametrize("limit", [None, 10_000])
def test_deep_nesting_is_rejected_early_with_bounded_memory(limit: int | None) -> None:
    text = '<tool_call>{"name": "f", "arguments": {"obj": ' + "[" * 2_000_000 + "</tool_call> after"
    peak, seen = _peak_while_feeding(text, 4096, formats=["hermes"], max_call_chars=limit)
    assert seen == ["malformed"]  # the earlier, more specific verdict, also when the limit ends the call
    # Without a limit the rejected call's raw markup is kept up to its closer (O(call)), never a stack.
    assert peak < (1_000_000 if limit else 3 * len(text)), f"peak {peak} bytes"


def test_nesting_json_can_load_is_accepted_and_deeper_is_malformed_without_recursion_errors() -> None:
    def call(depth: int) -> str:
        return '<tool_call>{"name": "f", "arguments": {"a": ' + "[" * depth + "]" * depth + "}}</tool_call>!"

    ok = check_stream(call(400), seeds=2, formats=["hermes"])
    assert len(ok.tool_calls) == 1 and ok.text == "!"
    deep = check_stream(call(100_000), seeds=1, formats=["hermes"])
    assert reasons(deep) == ["malformed"] and deep.text == "!"
    assert "nested deeper than" in deep.rejected[0].detail


# -- bounded holdback ------------------------------------------------------------------------------------

# The most ever held waiting for a continuation: a few LOOKAHEAD (256) windows (a harmony header is read
# within 512 characters), never a function of the input length.
HOLD_BOUND = 1024

FLOODS = {
    "<": "<",
    "<|": "<|",
    "[": "[",
    "{": "{",
    "newline brace": "\n{",
    "<｜": "<｜",
    "<tool_call>": "<tool_call>",
    "<function=": "<function=",
    "<function=f>": "<function=f>",
    "<invoke": "<invoke",
    "</": "</",
    "backticks": "`",
    "tildes": "~",
    "fence lines": "```\n",
    "TOOL_CALL": "TOOL_CALL ",
    ">>>": ">>>",
    "[TOOL_CALLS]": "[TOOL_CALLS]",
    "<|channel|>": "<|channel|>",
}


@pytest.mark.parametrize("name", list(FLOODS))
@pytest.mark.parametrize("formats", ["auto", None])
def test_a_flood_of_marker_prefixes_is_never_held_unboundedly(name: str, formats: str | None) -> None:
    from streamparse.formats import names

    unit = FLOODS[name]
    fmt = "auto" if formats == "auto" else names()  # every format, including the opt-in ones
    parser = StreamParser(formats=fmt)
    # A megabyte of the four classic floods in auto mode; 100 KB elsewhere, where every character is a
    # marker some format must look at (about 10 us each: linear, but slow enough to matter in the suite).
    size = 1_000_000 if formats == "auto" and name in ("<", "<|", "[", "{") else 100_000
    text = unit * (size // len(unit))
    for i in range(0, len(text), 4096):
        parser.feed(text[i : i + 4096])
    parser.close()
    assert parser.stats.largest_holdback <= HOLD_BOUND


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>" + " " * 20_000,
        "<tool_call>\n" + "\n" * 20_000 + "x",
        "```" + "`" * 20_000,
        "`" * 20_000 + "x`",
        "~~~" + "~" * 20_000,
        "```\ncode\n" + "`" * 20_000,
        "```\ncode\n```" + " " * 20_000,
        "<" * 20_000,
        "<function_calls>" + " " * 20_000,
    ],
    ids=lambda t: repr(t[:14]),
)
def test_one_character_feeds_hold_back_a_bounded_suffix(text: str) -> None:
    parser = StreamParser()
    for ch in text:
        parser.feed(ch)
    parser.close()
    assert parser.stats.largest_holdback <= HOLD_BOUND


def test_long_backtick_and_tilde_runs_are_text_in_every_chunking() -> None:
    text = "a " + "`" * 40 + "b`c`" + "\n" + "~" * 40 + '\n<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    result = check_stream(text, formats=["hermes"])
    assert calls(result) == [("f", {})]  # neither run opened code, so the call was read
    assert result.text.startswith("a " + "`" * 40 + "b`c`")


def test_a_long_number_in_arguments_is_rejected_not_held() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"n": ' + "1" * 6000 + "}}</tool_call> after"
    result = check_stream(text, seeds=2, formats=["hermes"])
    assert reasons(result) == ["malformed"] and result.text == "after"
    parser = StreamParser(formats=["hermes"])
    for ch in text:
        parser.feed(ch)
    assert parser.stats.largest_holdback <= 4400
