"""pythonic, gemma_tool_code, gemma4, generic_xml and key_value: real-looking output under every chunking."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import calls, check_deltas, check_stream, reasons, run

from streamparse import ToolCallDelta, ToolCallEnd, ToolCallStart
from streamparse.events import ParseResult, merge_events
from streamparse.formats import CATALOG

CODE = 'def f(x):\n    return x < 3 and x > 1  # "quoted" \\ backslash {braces} [brackets] (parens) </tool>\n'
OWN = ("pythonic", "gemma_tool_code", "gemma4", "generic_xml", "key_value")


def tool(name: str, **props: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {k: {"type": t} for k, t in props.items()}},
        },
    }


ALARM_TOOLS = [tool("set_alarm", label="string", minutes="integer", daily="boolean", ratio="number", tags="array")]


# -- pythonic ---------------------------------------------------------------------------------------------

NESTED_PY = "cfg={'deep': [1, {'x': (2, 3)}], \"k\": None, 'ok': True, 'j': null}"
NESTED_ARGS = {"deep": [1, {"x": [2, 3]}], "k": None, "ok": True, "j": None}
STRING_PY = "s='it\\'s \"q\" \\\\ back ] ) } <|python_end|> 東京 🚀'"
STRING_VAL = 'it\'s "q" \\ back ] ) } <|python_end|> 東京 🚀'

PY_FIXTURES: dict[str, tuple[str, list[tuple[str, dict[str, Any]]], str]] = {
    "llama4_wrapped_in_prose": (
        "Let me do both.\n<|python_start|>[set_alarm(label='standup', minutes=15), "
        'lookup_order(order_id="A-1001")]<|python_end|>\nDone.',
        [("set_alarm", {"label": "standup", "minutes": 15}), ("lookup_order", {"order_id": "A-1001"})],
        "Let me do both.\nDone.",
    ),
    "lfm2_nested_and_strings": (
        "Sure.<|tool_call_start|>[f(" + NESTED_PY + ", " + STRING_PY + ", code='''" + CODE + "''')]"
        "<|tool_call_end|>After.",
        [("f", {"cfg": NESTED_ARGS, "s": STRING_VAL, "code": CODE})],
        "Sure.After.",
    ),
    # vLLM 0.33.0 tests/tool_parsers/test_lfm2_tool_parser.py: what LFM2 writes that Python does not read.
    "lfm2_unescaped_quotes_and_zero_padded": (
        "<|tool_call_start|>[bash(command='sed -n '360,450p' /testbed/common.py'), "
        "set_date(month=07, day=05)]<|tool_call_end|>",
        [("bash", {"command": "sed -n '360,450p' /testbed/common.py"}), ("set_date", {"month": 7, "day": 5})],
        "",
    ),
    "olmo3_lines": (
        'I\'ll check.\n<function_calls>\nlookup_order(order_id="A-1001")\nrefresh()\n'
        "set_alarm(minutes=15, tags=['a', 'b'],)\n</function_calls>\nOK.",
        [("lookup_order", {"order_id": "A-1001"}), ("refresh", {}), ("set_alarm", {"minutes": 15, "tags": ["a", "b"]})],
        "I'll check.\nOK.",
    ),
    "bare_at_start_after_reasoning": (
        '<think>Two calls.</think>\n[a(x=1.5e3), b(s="line\\nbreak", n=-2)]',
        [("a", {"x": 1500.0}), ("b", {"s": "line\nbreak", "n": -2})],
        "",
    ),
}


@pytest.mark.parametrize("name", list(PY_FIXTURES))
@pytest.mark.parametrize("formats", [["pythonic"], "auto"], ids=["configured", "auto"])
def test_pythonic_fixtures_under_every_chunking(name: str, formats: Any) -> None:
    text, expected, visible = PY_FIXTURES[name]
    result = check_stream(text, formats=formats, seeds=12 if formats != "auto" else 4)
    assert calls(result) == expected
    assert result.rejected == [] and result.text == visible
    for call in result.tool_calls:
        assert call.format == "pythonic" and call.raw in text


def test_bare_list_only_at_the_start_and_only_when_call_shaped() -> None:
    for text in ("[print(x) for x in y] done", "[Draft] note", "[1, 2]", "Sure: [f(a=1)]", "[f(a=1) or g(b=2)]"):
        result = check_stream(text, formats="auto")
        assert result.tool_calls == [] and result.rejected == [] and result.text == text, text
    named = check_stream("[f(a=1)] and [g(b=2)]", formats=["pythonic"])
    assert calls(named) == [("f", {"a": 1})] and named.text == "and [g(b=2)]"
    assert check_stream("[f(a=1)]", formats="auto").tool_calls[0].fallback_used
    assert not check_stream("[f(a=1)]", formats=["pythonic"]).tool_calls[0].fallback_used
    assert check_stream("[f(a=1)]", formats=["hermes"]).text == "[f(a=1)]"


def test_wrapped_call_with_positional_arguments_is_rejected_and_the_rest_kept() -> None:
    text = "x <|python_start|>[f(1), g(b=len(y)), h(c='ok')]<|python_end|> y"
    result = check_stream(text, formats="auto")
    assert calls(result) == [("h", {"c": "ok"})]
    assert reasons(result) == ["malformed", "malformed"]
    assert [r.raw for r in result.rejected] == ["f(1)", "g(b=len(y))"]
    assert result.text == "x y"


def test_wrapped_junk_is_rejected_up_to_the_closer_without_leaking() -> None:
    text = "a <|tool_call_start|>[f(a=1), 42, g(b=2)]<|tool_call_end|> b <|python_start|>[f(a=(]<|python_end|> c"
    result = check_stream(text, formats=["pythonic"])
    assert calls(result) == [("f", {"a": 1})]
    assert reasons(result) == ["malformed", "malformed"]
    assert result.text == "a b c"


def test_wrapper_without_a_call_list_is_plain_text() -> None:
    text = "the <|python_start|> token, <|tool_call_start|>oops, <function_calls> and [x]"
    for formats in (["pythonic"], "auto"):
        result = check_stream(text, formats=formats)
        assert result.tool_calls == [] and result.rejected == [] and result.text == text


def test_truncated_lists_reject_the_open_call_and_keep_finished_ones() -> None:
    wrapped = check_stream("<|python_start|>[f(a=1), g(b='unfinished", formats=["pythonic"])
    assert calls(wrapped) == [("f", {"a": 1})] and reasons(wrapped) == ["truncated"] and wrapped.text == ""
    bare = check_stream("[f(a='x', b=", formats="auto")
    assert bare.tool_calls == [] and reasons(bare) == ["truncated"] and bare.rejected[0].raw == "[f(a='x', b="
    assert check_stream("[f", formats="auto").text == "[f"  # shorter than ``[NAME(``: text (end-of-stream rule)


def test_shared_function_calls_opener_goes_to_the_right_format() -> None:
    text = (
        '<function_calls>\n<invoke name="a">\n<parameter name="k">v</parameter>\n</invoke>\n</function_calls>\n'
        "<function_calls>\nb(k='v')\n</function_calls>"
    )
    result = check_stream(text, formats="auto")
    assert calls(result) == [("a", {"k": "v"}), ("b", {"k": "v"})]
    assert [c.format for c in result.tool_calls] == ["xml_invoke", "pythonic"]


def test_each_call_ends_when_its_parenthesis_closes() -> None:
    from streamparse import StreamParser

    parser = StreamParser(formats=["pythonic"])
    events = parser.feed("<|python_start|>[lookup_order(")
    assert [type(e) for e in events] == [ToolCallStart]
    events = parser.feed("order_id='A-1'), set_alarm(minutes=")
    assert [type(e) for e in events] == [ToolCallDelta, ToolCallEnd, ToolCallStart]
    assert events[1].call.arguments == {"order_id": "A-1"}  # type: ignore[union-attr]
    events = parser.feed("15)")
    assert [type(e) for e in events] == [ToolCallDelta, ToolCallEnd]


def test_pythonic_arguments_are_validated_against_tools() -> None:
    tools = [tool("set_alarm", minutes="integer")]
    text = "<|python_start|>[set_alarm(minutes='15'), set_alarm(minutes=15), rm(path='/')]<|python_end|>"
    result = check_stream(text, formats=["pythonic"], tools=tools)
    assert calls(result) == [("set_alarm", {"minutes": 15})]
    assert reasons(result) == ["schema_violation", "unknown_tool"]


# -- gemma_tool_code ----------------------------------------------------------------------------------------

GEMMA3 = (
    'Checking the order.\n\n```tool_code\nprint(default_api.lookup_order(order_id="A-1001"))\n'
    'set_alarm(label=\'東京 🚀\', minutes=15)\n```\n\n```tool_output\n{"status": "shipped"}\n```\n'
    "```python\nf(a=1)\n```\nShipped."
)


@pytest.mark.parametrize("formats", [["gemma_tool_code"], "auto"], ids=["configured", "auto"])
def test_gemma_tool_code_fence_holds_calls_and_other_fences_are_code(formats: Any) -> None:
    result = check_stream(GEMMA3, formats=formats)
    assert calls(result) == [
        ("lookup_order", {"order_id": "A-1001"}),
        ("set_alarm", {"label": "東京 🚀", "minutes": 15}),
    ]
    assert result.rejected == []
    assert result.text == (
        'Checking the order.\n```tool_output\n{"status": "shipped"}\n```\n```python\nf(a=1)\n```\nShipped.'
    )
    assert [c.format for c in result.tool_calls] == ["gemma_tool_code"] * 2


def test_gemma_tool_code_fence_without_a_call_is_code_and_bad_lines_are_rejected() -> None:
    code = "```tool_code\nx = 5\n```"
    assert check_stream(code, formats="auto").text == code
    result = check_stream("```tool_code\nf(a=1)\nx = 5\n```\nafter", formats=["gemma_tool_code"])
    assert calls(result) == [("f", {"a": 1})] and reasons(result) == ["malformed"] and result.text == "after"
    cut = check_stream("```tool_code\nf(a='x", formats=["gemma_tool_code"])
    assert reasons(cut) == ["truncated"] and cut.text == ""


# -- gemma4 ---------------------------------------------------------------------------------------------

GEMMA4 = (
    "<|channel>thought\nNeed an alarm.<channel|>Setting it."
    '<|tool_call>call:set_alarm{label:<|"|>standup, daily: {x} [y] <tool_call|><|"|>,minutes:15,'
    'opts:{days:[<|"|>mon<|"|>,<|"|>tue<|"|>],loud:true,snooze:null,vol:0.5}}<tool_call|>'
    "<|tool_call>call:refresh{}<tool_call|> Done."
)


@pytest.mark.parametrize("formats", [["gemma4"], "auto"], ids=["configured", "auto"])
def test_gemma4_calls_with_delimited_strings(formats: Any) -> None:
    result = check_stream(GEMMA4, formats=formats)
    assert calls(result) == [
        (
            "set_alarm",
            {
                "label": "standup, daily: {x} [y] <tool_call|>",
                "minutes": 15,
                "opts": {"days": ["mon", "tue"], "loud": True, "snooze": None, "vol": 0.5},
            },
        ),
        ("refresh", {}),
    ]
    assert result.reasoning == "Need an alarm." and result.text == "Setting it. Done."
    assert result.rejected == []


def test_functiongemma_and_concatenated_calls() -> None:
    text = (
        "<start_function_call>call:lookup_order{order_id:<escape>A-1001<escape>}<end_function_call>"
        'then <|tool_call>call:a{n:1}call:b{s:<|"|>x<|"|>}<tool_call|>'
    )
    result = check_stream(text, formats=["gemma4"])
    assert calls(result) == [("lookup_order", {"order_id": "A-1001"}), ("a", {"n": 1}), ("b", {"s": "x"})]
    assert result.text == "then"


def test_gemma4_bad_bodies_are_rejected_without_leaking() -> None:
    text = (
        "a<|tool_call>call:f{s:bare words}<tool_call|>b<|tool_call>call:g{x:]}<tool_call|>c"
        '<|tool_call>call:h{n:1} junk<tool_call|>d<|tool_call>call:k{s:<|"|>cut'
    )
    result = check_stream(text, formats=["gemma4"])
    assert result.tool_calls == []
    assert reasons(result) == ["malformed", "malformed", "malformed", "truncated"]
    assert result.text == "abcd"
    assert check_stream("<|tool_call>nothing", formats="auto").text == "<|tool_call>nothing"


# -- generic_xml ------------------------------------------------------------------------------------------

GENERIC_XML = (
    "I'll set it.\n<tool>\n  <name>set_alarm</name>\n  <arguments>\n    <label> daily standup </label>\n"
    '    <minutes>15</minutes>\n    <daily>\n      TRUE\n    </daily>\n    <tags>["a", "b"]</tags>\n'
    "  </arguments>\n</tool>\nDone.<tool><name>write_file</name><arguments><content>\n" + CODE + "東京 🚀\n"
    "</content></arguments></tool>"
)


def test_generic_xml_values_are_trimmed_and_typed_by_the_schema() -> None:
    tools = ALARM_TOOLS + [tool("write_file", content="string")]
    result = check_stream(GENERIC_XML, formats=["generic_xml"], tools=tools)
    assert calls(result) == [
        ("set_alarm", {"label": "daily standup", "minutes": 15, "daily": True, "tags": ["a", "b"]}),
        ("write_file", {"content": CODE + "東京 🚀"}),
    ]
    assert result.text == "I'll set it.\nDone."
    assert result.tool_calls[0].raw.startswith("<tool>") and result.tool_calls[0].raw.endswith("</tool>")


def test_generic_xml_without_tools_keeps_strings_and_works_in_auto_mode() -> None:
    for formats in (["generic_xml"], "auto"):
        result = check_stream(GENERIC_XML, formats=formats, seeds=4)
        assert calls(result)[0] == (
            "set_alarm",
            {"label": "daily standup", "minutes": "15", "daily": "TRUE", "tags": '["a", "b"]'},
        )
        assert result.text == "I'll set it.\nDone."


def test_generic_xml_zero_arguments_and_the_seed_example() -> None:
    text = (
        "<tool><name>now</name></tool> and <tool><name>set_alarm</name><arguments><minutes>15</minutes>"
        "</arguments></tool>"
    )
    assert calls(check_stream(text, formats=["generic_xml"])) == [("now", {}), ("set_alarm", {"minutes": "15"})]
    typed = check_stream(text, formats=["generic_xml"], tools=ALARM_TOOLS + [tool("now")])
    assert calls(typed)[1] == ("set_alarm", {"minutes": 15})


def test_generic_xml_needs_a_name_tag_and_leaves_prose_alone() -> None:
    text = "Use <tool> for it, or <toolbox>, or <tool>\n<other>x</other></tool> and a < b."
    for formats in (["generic_xml"], "auto"):
        result = check_stream(text, formats=formats)
        assert result.tool_calls == [] and result.rejected == [] and result.text == text


def test_generic_xml_truncated_and_malformed_are_rejected_without_leaking() -> None:
    truncated = check_stream("Hi <tool><name>f</name><arguments><a>1</a><b>par", formats=["generic_xml"])
    assert reasons(truncated) == ["truncated"] and truncated.text == "Hi"
    junk = check_stream("<tool><name>f</name><arguments>oops<a>1</a></arguments></tool>!", formats=["generic_xml"])
    assert reasons(junk) == ["malformed"] and junk.text == "!"


# -- key_value -------------------------------------------------------------------------------------------

KEY_VALUE = (
    'Setting it now.\n✦ tool_call: set_alarm for label "daily \\"standup\\" 東京" minutes 15 daily true\n'
    "Then the other one.\n  ✦ tool_call: refresh\n✦ tool_call: set_alarm for label x ratio 0.5"
)


def test_key_value_calls_end_at_the_end_of_their_line() -> None:
    result = check_stream(KEY_VALUE, formats=["key_value"], tools=ALARM_TOOLS + [tool("refresh")])
    assert calls(result) == [
        ("set_alarm", {"label": 'daily "standup" 東京', "minutes": 15, "daily": True}),
        ("refresh", {}),
        ("set_alarm", {"label": "x", "ratio": 0.5}),
    ]
    assert result.text == "Setting it now.\nThen the other one."


def test_key_value_without_schema_keeps_strings() -> None:
    result = check_stream(KEY_VALUE, formats=["key_value"])
    assert calls(result)[0] == ("set_alarm", {"label": 'daily "standup" 東京', "minutes": "15", "daily": "true"})


def test_key_value_is_opt_in_and_only_at_a_line_start() -> None:
    assert CATALOG["key_value"].opt_in
    auto = check_stream(KEY_VALUE, formats="auto")
    assert auto.tool_calls == [] and auto.text == KEY_VALUE
    mid = "I typed ✦ tool_call: f for a 1 in the prompt."
    assert check_stream(mid, formats=["key_value"]).text == mid


def test_key_value_malformed_lines_are_rejected() -> None:
    text = '✦ tool_call: f with a 1\n✦ tool_call: g for a\n✦ tool_call: h for a "open\nnext\n✦ tool_call: k for a "cut'
    result = check_stream(text, formats=["key_value"])
    assert result.tool_calls == []
    assert reasons(result) == ["malformed", "malformed", "malformed", "truncated"]
    assert result.text == "next"


def test_key_value_streams_each_pair_when_its_value_completes() -> None:
    from streamparse import StreamParser

    parser = StreamParser(formats=["key_value"])
    events = parser.feed("✦ tool_call: f for a 1 b ")
    assert [type(e) for e in events] == [ToolCallStart, ToolCallDelta]
    assert events[1].arguments == '{"a": "1"'  # type: ignore[union-attr]
    events = parser.feed('"two"\n')
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert len(ends) == 1 and ends[0].call.arguments == {"a": "1", "b": "two"}


# -- every spec --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [n for n in OWN if n in CATALOG])
def test_spec_example_parses_to_a_call(name: str) -> None:
    spec = CATALOG[name]
    assert spec.models and spec.delimiters
    result = check_stream(spec.example, formats=[name])
    assert len(result.tool_calls) >= 1 and result.rejected == []
    assert all(c.format == name for c in result.tool_calls)


# -- early completion (early completion) -------------------------------------------------------------------------

EARLY = [
    (PY_FIXTURES["llama4_wrapped_in_prose"][0], ["pythonic"]),
    (PY_FIXTURES["olmo3_lines"][0], ["pythonic"]),
    (PY_FIXTURES["bare_at_start_after_reasoning"][0], "auto"),
    (GEMMA3, ["gemma_tool_code"]),
    (GEMMA4, ["gemma4"]),
    (GENERIC_XML, ["generic_xml"]),
    (KEY_VALUE, ["key_value"]),
]


@pytest.mark.parametrize("index", range(len(EARLY)))
def test_each_call_ends_with_the_feed_of_its_last_character(index: int) -> None:
    from streamparse import StreamParser

    text, formats = EARLY[index]
    parser = StreamParser(formats=formats)
    search_from, ended = 0, 0
    for i, ch in enumerate(text):
        for ev in parser.feed(ch):
            if isinstance(ev, ToolCallEnd):
                start = text.index(ev.call.raw, search_from)
                search_from = start + len(ev.call.raw)
                # key_value ends with the newline that ends its line (visible text, not raw markup)
                assert i + 1 == search_from + (ev.call.format == "key_value"), ev.call.name
                ended += 1
    parser.close()
    assert ended >= 1


# -- random chunkings -----------------------------------------------------------------------------------

HYPO_FIXTURES: list[tuple[str, Any]] = [
    (GENERIC_XML, ["generic_xml"]),
    (KEY_VALUE, ["key_value"]),
    (GEMMA3, "auto"),
    (GEMMA4, "auto"),
    (PY_FIXTURES["lfm2_nested_and_strings"][0], ["pythonic"]),
    (PY_FIXTURES["olmo3_lines"][0], "auto"),
    (PY_FIXTURES["bare_at_start_after_reasoning"][0], "auto"),
]


def split_at(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces, last = [], 0
    for p in points:
        pieces.append(text[last:p])
        last = p
    pieces.append(text[last:])
    return [p for p in pieces if p]


def reference(text: str, formats: Any) -> ParseResult:
    return ParseResult.from_events(run([text], formats=formats))


@settings(max_examples=50, deadline=None)
@given(which=st.integers(min_value=0, max_value=100), cuts=st.lists(st.integers(min_value=0), max_size=12))
def test_random_chunkings_give_the_same_events(which: int, cuts: list[int]) -> None:
    text, formats = HYPO_FIXTURES[which % len(HYPO_FIXTURES)]
    events = run(split_at(text, cuts), formats=formats)
    check_deltas(events)
    assert merge_events(events) == merge_events(run([text], formats=formats))
    assert reference(text, formats).tool_calls


def test_tool_code_fence_closing_run_is_the_same_under_every_chunking() -> None:
    from invariants import check_stream

    result = check_stream("```tool_code\nt()````", formats=["gemma_tool_code"])
    assert [c.name for c in result.tool_calls] == ["t"] and result.text == ""
