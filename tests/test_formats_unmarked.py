"""Unmarked formats (start rule, end-of-stream rule): json, xlam, envelope, bare llama3_json, tool_request form (c)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons, released_after_each_char, run

from streamparse import StreamParser, parse
from streamparse.core.json_reader import DQ_RUN
from streamparse.events import ParseResult, TextDelta, ToolCallEnd, merge_events
from streamparse.formats.unmarked import HOLD_CAP

NESTED = {
    "q": 'a "quoted" \\ back\\slash',
    "n": {"deep": [1, {"x": "}]{["}]},
    "cjk": "東京 ✓ 🚀",
    "nl": "line1\nline2",
    "tag": "see </tool_call> and ``` here",
}
ORDER = {"order_id": "A-1001"}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
        },
    }
]


def obj(name: str, args: dict, name_key: str = "name", args_key: str = "arguments") -> str:
    return json.dumps({name_key: name, args_key: args}, ensure_ascii=False)


# (formats, text, expected calls, expected visible text)
FIXTURES: dict[str, tuple[object, str, list[tuple[str, dict]], str]] = {
    "bare_object_at_start": ("auto", obj("lookup_order", ORDER), [("lookup_order", ORDER)], ""),
    "leading_space_and_text_after": (
        "auto",
        "  " + obj("lookup_order", ORDER) + "\nI looked it up.",
        [("lookup_order", ORDER)],
        "I looked it up.",
    ),
    "nested_arguments": ("auto", obj("write", NESTED), [("write", NESTED)], ""),
    "pretty_printed": ("auto", json.dumps({"name": "w", "arguments": NESTED}, indent=2), [("w", NESTED)], ""),
    "tool_name_parameters": ("auto", obj("f", {"a": 1}, "tool_name", "parameters"), [("f", {"a": 1})], ""),
    "tool_params": ("auto", obj("f", {"a": 1}, "tool", "params"), [("f", {"a": 1})], ""),
    "function_string_args": ("auto", obj("f", {"a": 1}, "function", "args"), [("f", {"a": 1})], ""),
    "input_key": ("auto", obj("f", {"a": [1, 2]}, "name", "input"), [("f", {"a": [1, 2]})], ""),
    "args_before_name": ("auto", '{"arguments": {"x": "}"}, "name": "f"}', [("f", {"x": "}"})], ""),
    "openai_nesting": (
        "auto",
        json.dumps({"id": "c1", "type": "function", "function": {"name": "f", "arguments": json.dumps(NESTED)}}),
        [("f", NESTED)],
        "",
    ),
    "llama33_type_key": ("auto", '{"type": "function", "name": "f", "parameters": {"k": 2}}', [("f", {"k": 2})], ""),
    "null_arguments": ("auto", '{"name": "now", "arguments": null}', [("now", {})], ""),
    "repairs_single_quotes": (
        "auto",
        "{'name': 'f', 'arguments': {'ok': True, 'it': \"it's\", 'l': [1, 2,],}}",
        [("f", {"ok": True, "it": "it's", "l": [1, 2]})],
        "",
    ),
    "after_reasoning": (
        "auto",
        "<think>Need the order {x}.</think>\n\n" + obj("lookup_order", ORDER) + "<|im_end|>",
        [("lookup_order", ORDER)],
        "",
    ),
    "json_fence_at_start": (
        "auto",
        "```json\n" + obj("f", NESTED) + "\n```\nDone.",
        [("f", NESTED)],
        "Done.",
    ),
    "bare_fence_at_start": ("auto", "```\n" + obj("f", {"a": 1}) + "\n```", [("f", {"a": 1})], ""),
    "two_objects_on_lines": (
        "auto",
        obj("a", {"i": 1}) + "\n" + obj("b", {"i": 2}) + "\nok",
        [("a", {"i": 1}), ("b", {"i": 2})],
        "ok",
    ),
    "configured_after_prose": (
        ["json"],
        "Sure!\n\n" + obj("lookup_order", ORDER) + "\nand\n   " + obj("b", {}) + " done",
        [("lookup_order", ORDER), ("b", {})],
        "Sure!\nand\ndone",
    ),
    "configured_fence_after_prose": (
        ["json"],
        "Calling:\n```json\n" + obj("f", {"a": 1}) + "\n```\nthen",
        [("f", {"a": 1})],
        "Calling:\nthen",
    ),
    "xlam_list": (
        ["xlam"],
        "[" + obj("a", {"i": 1}) + ",\n " + obj("b", NESTED) + "]",
        [("a", {"i": 1}), ("b", NESTED)],
        "",
    ),
    "list_in_fence_auto": (
        "auto",
        "```json\n[\n  " + obj("a", {"i": 1}) + "\n]\n```",
        [("a", {"i": 1})],
        "",
    ),
    "llama3_semicolons": (
        ["llama3_json"],
        obj("a", {"i": 1}, args_key="parameters") + "; " + obj("b", {"i": 2}, args_key="parameters"),
        [("a", {"i": 1}), ("b", {"i": 2})],
        "",
    ),
    "envelope_seed_004": (
        "auto",
        '{"toolCalls": [' + obj("read_file", {"path": "x.txt"}) + '], "content": "Reading x: 東京 🚀", '
        '"needsMoreWork": true}',
        [("read_file", {"path": "x.txt"})],
        "Reading x: 東京 🚀",
    ),
    "envelope_content_first": (
        ["envelope"],
        'Note:\n{"content": "The answer is 42", "needsMoreWork": false}\nbye',
        [],
        "Note:\nThe answer is 42\nbye",
    ),
    "envelope_fenced": (
        "auto",
        '```json\n{"needsMoreWork": true, "toolCalls": [' + obj("a", {}) + ", " + obj("b", {"x": 1}) + "]}\n```",
        [("a", {}), ("b", {"x": 1})],
        "",
    ),
    "tool_request_numbered": (
        ["tool_request"],
        "I will check.\n1 " + obj("lookup_order", ORDER) + "[END_TOOL_REQUEST]\nDone.",
        [("lookup_order", ORDER)],
        "I will check.\nDone.",
    ),
    "tool_request_numbered_auto_start": (
        "auto",
        "1 " + obj("lookup_order", ORDER) + "\n[END_TOOL_REQUEST]",
        [("lookup_order", ORDER)],
        "",
    ),
    "tool_request_json_then_marker": (
        ["json", "tool_request"],
        obj("f", {"a": 1}) + " [TOOL_REQUEST_END] x",
        [("f", {"a": 1})],
        "x",  # the call ended with its JSON (early completion); the marker after it is markup
    ),
}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture(name: str) -> None:
    formats, text, expected, visible = FIXTURES[name]
    result = check_stream(text, formats=formats)
    assert calls(result) == expected
    assert result.text == visible
    assert not result.rejected


@pytest.mark.parametrize(
    "name",
    ["bare_object_at_start", "nested_arguments", "json_fence_at_start", "openai_nesting", "two_objects_on_lines"],
)
def test_start_fixtures_also_work_configured(name: str) -> None:
    _, text, expected, visible = FIXTURES[name]
    result = check_stream(text, formats=["json"])
    assert calls(result) == expected and result.text == visible


def test_labels_name_the_format_that_matched() -> None:
    assert parse(obj("f", {}), formats=["json"]).tool_calls[0].format == "json"
    assert parse("[" + obj("f", {}) + "]", formats=["xlam"]).tool_calls[0].format == "xlam"
    assert parse(obj("f", {}, args_key="parameters"), formats=["llama3_json"]).tool_calls[0].format == "llama3_json"
    env = '{"toolCalls": [' + obj("f", {}) + "]}"
    assert parse(env, formats=["envelope"]).tool_calls[0].format == "envelope"
    tr = "1 " + obj("f", {}) + "[END_TOOL_REQUEST]"
    assert parse(tr, formats=["tool_request"]).tool_calls[0].format == "tool_request"


def test_envelope_needs_more_work_is_metadata() -> None:
    p = StreamParser(formats="auto")
    text = '{"toolCalls": [], "content": "All done.", "needsMoreWork": false}'
    events = [ev for ch in text for ev in p.feed(ch)] + p.close()
    assert merge_events(events) == [TextDelta("All done.")]
    assert p.metadata == {"needsMoreWork": False}
    p.reset()
    assert p.metadata == {}


def test_envelope_content_escapes_decode_whatever_the_chunking() -> None:
    text = '{"content": "Say \\"hi\\"\\n\\u00e9 \\ud83d\\ude00 \\\\ end", "toolCalls": [' + obj("f", {}) + "]}"
    whole = merge_events(run([text], formats="auto"))
    assert ParseResult.from_events(whole).text == 'Say "hi"\n\u00e9 \U0001f600 \\ end'
    for size in (1, 2, 3, 5, 7):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert merge_events(run(pieces, formats="auto")) == whole


def test_envelope_content_streams_before_the_envelope_ends() -> None:
    text = '{"toolCalls": [], "content": "Hello there, world", "needsMoreWork": true}'
    released = released_after_each_char(text, formats=["envelope"])
    assert released[text.index("world") + 2] == "Hello there, wor"


def test_envelope_argument_strings_stream_on_the_armed_path_whatever_the_chunking() -> None:
    """Inside a call's argument string the envelope arms the engine's fast path (plain chunks become deltas
    without a reader step): escapes, quotes, markers and astral characters split anywhere read the same."""
    text = '{"toolCalls": [' + obj("f", NESTED) + ", " + obj("g", ORDER) + '], "content": "ok"}'
    result = check_stream(text, formats=["envelope"])
    assert calls(result) == [("f", NESTED), ("g", ORDER)]
    assert result.text == "ok"
    parser = StreamParser(formats=["envelope"])
    parser.feed('{"toolCalls": [{"name": "f", "arguments": {"q": "plain')
    assert parser._engine.hot is DQ_RUN  # (armed: the next plain chunk takes the fast path)
    delta = parser.feed(" text")
    assert [type(ev).__name__ for ev in delta] == ["ToolCallDelta"]


def test_envelope_content_is_released_as_plain_text_without_a_reader_step() -> None:
    """Inside ``content`` a chunk with no backslash, quote or raw control character is visible text as it is
    (State.plain_text): released at once, and the reader goes on where it was (escapes, a raw newline and
    the closing quote after it read as before, under every chunking)."""
    parser = StreamParser(formats=["envelope"])
    parser.feed('{"toolCalls": [], "content": "Hel')
    assert parser._engine.scan_text is not None
    assert parser.feed("lo, wor") == [TextDelta("lo, wor")]
    text = '{"content": "Plain words, then \\"quoted\\" and\nraw\u00e9 🚀 end", "toolCalls": []}'
    result = check_stream(text, formats=["envelope"])
    assert result.text == 'Plain words, then "quoted" and\nraw\u00e9 🚀 end'


def test_call_name_and_arguments_stream_before_the_object_closes() -> None:
    text = obj("write", {"content": "x" * 200})
    p = StreamParser(formats="auto")
    events = []
    for ch in text[:150]:
        events += p.feed(ch)
    merged = merge_events(events)
    assert merged[0].name == "write"  # ToolCallStart
    assert merged[1].arguments.startswith('{"content": "xxx')
    end = [ev for ev in p.feed(text[150:]) if isinstance(ev, ToolCallEnd)]
    assert len(end) == 1  # early completion: the End comes with the closing brace, before close()


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "my-package", "version": "1.0.0", "scripts": {"test": "pytest"}}',
        '{"name": "Alice", "age": 30}',
        '{"name": "only a name"}',
        '{"name": "f", "args": [1, 2]}',
        '{"name": 5, "arguments": {}}',
        '{"name": "f", "arguments": "not json"}',
        '{"result": 42, "unit": "km"}',
        "[1, 2, 3]",
        '[{"id": 1}, {"id": 2}]',
        '["a", "b"]',
        "{x}",
        "{not json at all} <tool_call> inside",
        '{"content": "hi"}',
        '```json\n{"name": "pkg", "version": "2"}\n```\n',
        "```\nfunction f() { return 1; }\n```",
    ],
)
@pytest.mark.parametrize("formats", ["auto", ["json", "xlam", "envelope"]])
def test_json_that_is_not_a_call_is_text_exactly(text: str, formats: object) -> None:
    result = check_stream(text, formats=formats)
    assert result.text == text.rstrip("\n")  # the newline that ends the output is not content
    assert not result.tool_calls and not result.rejected


def test_mid_sentence_json_is_text_even_when_configured() -> None:
    text = 'The call is {"name": "f", "arguments": {}} in JSON, or [{"name": "g", "arguments": {}}].'
    result = check_stream(text, formats=["json", "xlam"])
    assert result.text == text and not result.tool_calls


def test_auto_mode_tries_unmarked_only_at_the_start() -> None:
    text = "Here it is:\n" + obj("f", {"a": 1})
    result = check_stream(text, formats="auto")
    assert result.text == text and not result.tool_calls


def test_package_json_is_released_at_the_first_foreign_key() -> None:
    text = '{"name": "pkg", "version": "1.0", "description": "' + "d" * 50 + '"}'
    released = released_after_each_char(text, formats="auto")
    cut = text.index('"version"') + len('"version"') + 2  # the key's value has started
    assert released[cut] == text[: cut + 1]


def test_undeclared_tool_is_rejected() -> None:
    result = check_stream(obj("drop_tables", {}), formats="auto", tools=TOOLS)
    assert reasons(result) == ["unknown_tool"] and result.text == ""
    ok = check_stream(obj("lookup_order", ORDER), formats="auto", tools=TOOLS)
    assert calls(ok) == [("lookup_order", ORDER)] and ok.tool_calls[0].validation == "pass"


def test_call_shaped_but_malformed_is_rejected_and_the_rest_is_text() -> None:
    text = '{"name": "f", "arguments": {"a": 1 "b": 2}}\nnext'
    result = check_stream(text, formats="auto")
    assert reasons(result) == ["malformed"]
    assert result.text.endswith("next")


@pytest.mark.parametrize(
    "text, truncated",
    [
        ('{"name": "f", "argu', True),
        ('{"name": "f", "arguments": ', True),
        ('{"name": "f", "arguments": {"a": "par', True),
        ('{"arguments": {"a": 1}, "name": "f', False),
        ('{"name": "f", "', False),
        ('{"name": "f"', False),
        ('{"name": "f", "x', False),
        ("[" + '{"name": "f", "ar', True),
        ('```json\n{"name": "f", "par', True),
    ],
)
def test_end_of_stream_inside_a_candidate(text: str, truncated: bool) -> None:
    result = check_stream(text, formats="auto")
    if truncated:
        assert reasons(result) == ["truncated"] and result.text == ""
        assert result.rejected[0].raw == text
    else:
        assert not result.rejected and result.text == text


def test_hold_is_bounded_by_the_cap() -> None:
    text = '{"content": "' + "x" * (HOLD_CAP + 500) + '", "needsMoreWork": true}'
    p = StreamParser(formats="auto")
    events = []
    for i in range(0, len(text), 100):
        events += p.feed(text[i : i + 100])
    assert p.stats.largest_holdback <= HOLD_CAP + 100
    events += p.close()
    assert ParseResult.from_events(events).text == text  # too big to wait for: plain text


def test_max_call_chars_lowers_the_hold_cap() -> None:
    text = '{"name": "f", "description": "' + "y" * 300 + '"}'
    result = check_stream(text, formats="auto", max_call_chars=100)
    assert result.text == text
    slow = '{"arguments": {"a": "' + "z" * 300 + '"}, "name": "f"}'
    result = check_stream(slow, formats="auto", max_call_chars=100)
    assert result.text == slow and not result.tool_calls


def test_tool_request_without_end_marker() -> None:
    text = "1 " + obj("f", {"a": 1}) + "\nmore"
    assert check_stream(text, formats=["tool_request"]).text == text
    assert check_stream(text, formats=["tool_request", "json"]).text == text  # a line number: not json
    bare = obj("f", {"a": 1}) + "\nmore"
    assert check_stream(bare, formats=["tool_request"]).text == bare
    assert calls(check_stream(bare, formats=["tool_request", "json"])) == [("f", {"a": 1})]


def test_fenced_non_call_keeps_the_rest_of_the_fence_as_code() -> None:
    text = '```json\n{"name": "pkg", "version": "1"}\n<tool_call>{"name": "x", "arguments": {}}</tool_call>\n```\n'
    result = check_stream(text, formats=["json", "hermes"])
    assert result.text == text.rstrip("\n") and not result.tool_calls


def test_call_in_fence_followed_by_more_code() -> None:
    text = "```json\n" + obj("f", {}) + "\nconsole.log(1)\n```\nafter"
    result = check_stream(text, formats="auto")
    assert calls(result) == [("f", {})]
    assert result.text == "console.log(1)\n```\nafter"


def test_marked_formats_still_win_in_auto_mode() -> None:
    text = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    result = check_stream(text, formats="auto")
    assert calls(result) == [("f", {})] and result.tool_calls[0].format == "hermes"


FUZZ = [
    ("auto", obj("write", NESTED) + "\n" + obj("b", {"i": 2})),
    (
        "auto",
        '{"toolCalls": [' + obj("a", NESTED) + '], "content": "Émoji 🚀 \\ud83d\\ude00 ok", "needsMoreWork": true}',
    ),
    (["json"], "Text {x}\n```json\n[" + obj("a", {}) + "]\n```\n" + '{"name": "pkg", "version": "1"}'),
    (["tool_request"], "x\n12 " + obj("f", NESTED) + "\n[END_TOOL_REQUEST]"),
]


@settings(max_examples=40, deadline=None)
@given(which=st.integers(0, len(FUZZ) - 1), cuts=st.lists(st.integers(0, 400), max_size=12))
def test_random_chunkings_agree(which: int, cuts: list[int]) -> None:
    formats, text = FUZZ[which]
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert merge_events(run(pieces, formats=formats)) == merge_events(run([text], formats=formats))
