"""Fixtures for the issue-2 formats, as real model output looks, checked under every chunking."""

from __future__ import annotations

import json

import pytest
from invariants import calls, check_stream, reasons

BIG = 'def f(x):\n    return x < 3 and x > 1  # "quoted" \\ backslash {braces} </tool_call>\n' * 40
NESTED = {"q": 'a "quoted" \\ back\\slash', "n": {"deep": [1, {"x": "}]{["}]}, "cjk": "東京 ✓ 🚀", "nl": "a\nb"}
DS = {
    "calls_begin": "<｜tool▁calls▁begin｜>",
    "calls_end": "<｜tool▁calls▁end｜>",
    "begin": "<｜tool▁call▁begin｜>",
    "end": "<｜tool▁call▁end｜>",
    "sep": "<｜tool▁sep｜>",
}


def hermes_block(name: str, args: dict) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False) + "\n</tool_call>"


FIXTURES: dict[str, tuple[list[str], str, list[tuple[str, dict]]]] = {
    "hermes_prose_two_calls": (
        ["hermes"],
        "Let me check both.\n"
        + hermes_block("lookup_order", {"order_id": "A-1001"})
        + hermes_block("write_file", {"path": "a.py", "content": BIG})
        + "\nDone.",
        [("lookup_order", {"order_id": "A-1001"}), ("write_file", {"path": "a.py", "content": BIG})],
    ),
    "hermes_nested_key_order": (
        ["hermes"],
        'Sure.<tool_call>{"arguments": ' + json.dumps(NESTED, ensure_ascii=False) + ', "name": "f"}</tool_call>',
        [("f", NESTED)],
    ),
    "hermes_end_tag_in_string": (
        ["hermes"],
        '<tool_call>{"name": "say", "arguments": {"text": "see </tool_call> here"}}</tool_call> after',
        [("say", {"text": "see </tool_call> here"})],
    ),
    "hermes_repairs": (
        ["hermes"],
        "<tool_call>{'name': 'f', 'arguments': {'ok': True, 'none': None, 'it': \"it's\", 'l': [1, 2,],}}</tool_call>",
        [("f", {"ok": True, "none": None, "it": "it's", "l": [1, 2]})],
    ),
    "hermes_fenced_payload": (
        ["hermes"],
        '<tool_call>\n```json\n{"name": "f", "arguments": {"a": 1}}\n```\n</tool_call>',
        [("f", {"a": 1})],
    ),
    "hermes_string_arguments": (
        ["hermes"],
        '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>',
        [("f", {"a": 1})],
    ),
    "hermes_zero_args": (["hermes"], '<tool_call>{"name": "now"}</tool_call>', [("now", {})]),
    "hermes_back_to_back_with_think": (
        ["hermes"],
        "<think>Two lookups.</think>\n\n" + hermes_block("a", {"i": 1}) + hermes_block("b", {"i": 2}) + "<|im_end|>",
        [("a", {"i": 1}), ("b", {"i": 2})],
    ),
    "qwen3_coder_code_value": (
        ["qwen3_coder"],
        "I'll write it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.py\n</parameter>\n"
        "<parameter=content>\n" + BIG + "\n</parameter>\n</function>\n</tool_call>\nWritten.",
        [("write_file", {"path": "src/a.py", "content": BIG})],
    ),
    "qwen3_coder_two_and_missing_close": (
        ["qwen3_coder"],
        "<tool_call>\n<function=a>\n<parameter=x>\n1 & 2 < 3\n<parameter=y>\n東京\n</parameter>\n</function>\n"
        "</tool_call>\n<tool_call>\n<function=b>\n</function>\n</tool_call>",
        [("a", {"x": "1 & 2 < 3", "y": "東京"}), ("b", {})],
    ),
    "qwen3_coder_without_tool_call_wrapper": (
        ["qwen3_coder"],
        "Running.\n<function=run_tests>\n<parameter=path>\ntests/api\n</parameter>\n</function>",
        [("run_tests", {"path": "tests/api"})],
    ),
    "seed_oss_with_reasoning": (
        ["seed_oss"],
        "<seed:think>Compare <seed:cot_budget_reflect>budget</seed:cot_budget_reflect> fares.</seed:think>\n"
        "<seed:tool_call>\n<function=fare_quote>\n<parameter=route>LIS-OPO</parameter>\n</function>\n"
        "</seed:tool_call><seed:eos>",
        [("fare_quote", {"route": "LIS-OPO"})],
    ),
    "xml_invoke_block_two": (
        ["xml_invoke"],
        'I\'ll fetch both.\n<function_calls>\n<invoke name="fetch_url">\n<parameter name="url">'
        "https://example.org/a?b=1&c=2</parameter>\n</invoke>\n<invoke name='fetch_url'>\n"
        '<parameter name="url">https://example.org/"x"</parameter>\n</invoke>\n</function_calls>\nOK',
        [("fetch_url", {"url": "https://example.org/a?b=1&c=2"}), ("fetch_url", {"url": 'https://example.org/"x"'})],
    ),
    "xml_invoke_namespaced_and_standalone": (
        ["xml_invoke"],
        '<ns1:function_calls>\n<ns1:invoke name="a">\n<ns1:parameter name="k">v</ns1:parameter>\n'
        '</ns1:invoke>\n</ns1:function_calls>\nthen <invoke name="b">\n<parameter name="q">x y</parameter>\n'
        "</invoke> end",
        [("a", {"k": "v"}), ("b", {"q": "x y"})],
    ),
    "minimax_primed": (
        ["minimax"],
        'Plan the trip.\n</think>\n\n<minimax:tool_call>\n<invoke name="fare_quote">\n'
        '<parameter name="route">LIS-OPO</parameter>\n</invoke>\n<invoke name="book">\n'
        '<parameter name="seat">12A</parameter>\n</invoke>\n</minimax:tool_call>[e~[',
        [("fare_quote", {"route": "LIS-OPO"}), ("book", {"seat": "12A"})],
    ),
    "deepseek_dsml": (
        ["deepseek_dsml"],
        'OK.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="set_alarm">\n'
        '<｜DSML｜parameter name="label" string="true">15</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="minutes" string="false">15</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="cfg" string="false">{"a": [1, 2]}</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        [("set_alarm", {"label": "15", "minutes": 15, "cfg": {"a": [1, 2]}})],
    ),
    "glm45_and_compact": (
        ["glm45"],
        "<think>Need the order.</think>\n<tool_call>lookup_order\n<arg_key>order_id</arg_key>\n"
        "<arg_value>A-1001</arg_value>\n</tool_call><tool_call>b<arg_key>k</arg_key><arg_value>v</arg_value>"
        "</tool_call><tool_call>now</tool_call>",
        [("lookup_order", {"order_id": "A-1001"}), ("b", {"k": "v"}), ("now", {})],
    ),
    "deepseek_v3_fenced": (
        ["deepseek_v3"],
        "Checking."
        + DS["calls_begin"]
        + DS["begin"]
        + "function"
        + DS["sep"]
        + 'lookup_order\n```json\n{\n  "order_id": "A-1001"\n}\n```'
        + DS["end"]
        + "\n"
        + DS["begin"]
        + "function"
        + DS["sep"]
        + 'set_alarm\n```json\n{"minutes": 15}\n```'
        + DS["end"]
        + DS["calls_end"]
        + "<｜end▁of▁sentence｜>",
        [("lookup_order", {"order_id": "A-1001"}), ("set_alarm", {"minutes": 15})],
    ),
    "deepseek_v31": (
        ["deepseek_v31"],
        DS["calls_begin"]
        + DS["begin"]
        + "lookup_order"
        + DS["sep"]
        + '{"order_id": "A-1001"}'
        + DS["end"]
        + DS["begin"]
        + "b"
        + DS["sep"]
        + "{}"
        + DS["end"]
        + DS["calls_end"],
        [("lookup_order", {"order_id": "A-1001"}), ("b", {})],
    ),
    "kimi_k2": (
        ["kimi_k2"],
        "I'll look.<|tool_calls_section_begin|><|tool_call_begin|>functions.lookup_order:0"
        '<|tool_call_argument_begin|>{"order_id": "A-1001"}<|tool_call_end|><|tool_call_begin|>set_alarm:1'
        '<|tool_call_argument_begin|>{"minutes": 15}<|tool_call_end|><|tool_calls_section_end|>',
        [("lookup_order", {"order_id": "A-1001"}), ("set_alarm", {"minutes": 15})],
    ),
    "harmony_analysis_and_call": (
        ["harmony"],
        "<|channel|>analysis<|message|>Need the order.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.lookup_order <|constrain|>json<|message|>{"order_id":"A-1001"}<|call|>',
        [("lookup_order", {"order_id": "A-1001"})],
    ),
    "harmony_recipient_in_role_no_constrain": (
        ["harmony"],
        "<|start|>assistant to=functions.lookup_order<|channel|>commentary json<|message|>"
        '{"order_id": "A-1"}<|call|><|start|>assistant<|channel|>final<|message|>Done.<|return|>',
        [("lookup_order", {"order_id": "A-1"})],
    ),
    "tool_call_marker_variants": (
        ["tool_call_marker"],
        'I\'ll look it up.\n\nTOOL_CALL\n{"tool": "lookup_order", "params": {"order_id": "A-1001"}}\n\n'
        'TOOL_CALL:\n```json\n{"tool_name": "search", "parameters": null}\n```\nLet me find that.',
        [("lookup_order", {"order_id": "A-1001"}), ("search", {})],
    ),
    "function_tag_back_to_back": (
        ["function_tag"],
        'Sure.<function=lookup_order>{"order_id": "A-1001"}</function><function=set_alarm>{"minutes": 15}</function>',
        [("lookup_order", {"order_id": "A-1001"}), ("set_alarm", {"minutes": 15})],
    ),
}


@pytest.mark.parametrize("name", list(FIXTURES))
def test_fixture_parses_identically_under_every_chunking(name: str) -> None:
    formats, text, expected = FIXTURES[name]
    result = check_stream(text, formats=formats)
    assert calls(result) == expected
    assert result.rejected == []
    for call in result.tool_calls:
        assert call.format in formats
        assert call.raw and call.raw in text


@pytest.mark.parametrize("name", list(FIXTURES))
def test_fixture_parses_the_same_in_auto_mode(name: str) -> None:
    formats, text, expected = FIXTURES[name]
    options = {"start_in_reasoning": True} if formats == ["minimax"] else {}
    result = check_stream(text, seeds=3, formats="auto", **options)
    assert calls(result) == expected


def test_visible_text_keeps_prose_and_drops_markup_with_its_separators() -> None:
    text = FIXTURES["hermes_prose_two_calls"][1]
    result = check_stream(text, formats=["hermes"])
    assert result.text == "Let me check both.\nDone."
    assert "<tool_call>" not in result.text


def test_xml_values_are_raw_text_without_entity_decoding() -> None:
    text = '<invoke name="f">\n<parameter name="html">&lt;b&gt; & "q"</parameter>\n</invoke>'
    result = check_stream(text, formats=["xml_invoke"])
    assert calls(result) == [("f", {"html": '&lt;b&gt; & "q"'})]


def test_qwen3_coder_values_drop_exactly_one_newline_per_side() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=v>\n\nx\n\n</parameter>\n</function>\n</tool_call>"
    assert calls(check_stream(text, formats=["qwen3_coder"])) == [("f", {"v": "\nx\n"})]


def test_text_values_are_typed_by_the_tool_schema() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "run_tests",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "verbose": {"type": "boolean"},
                        "n": {"type": "integer"},
                        "ratio": {"type": "number"},
                        "opts": {"type": "object"},
                        "zip": {"type": "string"},
                    },
                },
            },
        }
    ]
    text = (
        "<tool_call>\n<function=run_tests>\n<parameter=path>\ntests/api\n</parameter>\n<parameter=verbose>\n"
        "True\n</parameter>\n<parameter=n>\n140.0\n</parameter>\n<parameter=ratio>\n0.5\n</parameter>\n"
        "<parameter=opts>\n{'a': 1}\n</parameter>\n<parameter=zip>\n02134\n</parameter>\n</function>\n</tool_call>"
    )
    result = check_stream(text, formats=["qwen3_coder"], tools=tools)
    assert calls(result) == [
        ("run_tests", {"path": "tests/api", "verbose": True, "n": 140, "ratio": 0.5, "opts": {"a": 1}, "zip": "02134"})
    ]
    assert result.tool_calls[0].validation == "pass"
    untyped = check_stream(text, formats=["qwen3_coder"])
    assert untyped.tool_calls[0].arguments["verbose"] == "True"


def test_a_long_string_value_streams_as_many_deltas() -> None:
    from streamparse import StreamParser, ToolCallDelta

    value = "x" * 100_000
    text = f"<tool_call>\n<function=w>\n<parameter=content>\n{value}\n</parameter>\n</function>\n</tool_call>"
    parser = StreamParser(formats=["qwen3_coder"])
    deltas = []
    for i in range(0, len(text), 7):
        deltas += [e for e in parser.feed(text[i : i + 7]) if isinstance(e, ToolCallDelta)]
    parser.close()
    assert len(deltas) > 1000
    assert json.loads("".join(d.arguments for d in deltas)) == {"content": value}


def test_truncated_call_is_rejected_and_earlier_calls_stay_accepted() -> None:
    text = hermes_block("a", {"x": 1}) + '<tool_call>{"name": "b", "arguments": {"x": "unfin'
    result = check_stream(text, formats=["hermes"])
    assert calls(result) == [("a", {"x": 1})]
    assert reasons(result) == ["truncated"]
    assert result.text == ""


def test_malformed_json_is_rejected_without_leaking_markup() -> None:
    text = 'a <tool_call>{"name": "f", "arguments": {bad}}</tool_call> b'
    result = check_stream(text, formats=["hermes"])
    assert result.tool_calls == [] and reasons(result) == ["malformed"]
    assert result.text == "a b"


def test_unknown_tool_is_rejected_and_never_started() -> None:
    from streamparse import ToolCallStart, parse

    tools = [{"name": "known", "parameters": {"type": "object"}}]
    text = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'
    result = parse(text, formats=["hermes"], tools=tools)
    assert reasons(result) == ["unknown_tool"]
    assert not any(isinstance(e, ToolCallStart) for e in result.events)


def test_schema_violation_is_rejected_with_the_failing_path() -> None:
    tools = [
        {
            "name": "set_alarm",
            "parameters": {
                "type": "object",
                "properties": {"minutes": {"type": "integer"}},
                "required": ["minutes"],
            },
        }
    ]
    text = '<tool_call>{"name": "set_alarm", "arguments": {"minutes": "four"}}</tool_call>'
    result = check_stream(text, formats=["hermes"], tools=tools)
    assert reasons(result) == ["schema_violation"]
    assert "minutes" in result.rejected[0].detail


def test_code_is_never_scanned_for_markers() -> None:
    text = (
        'Example:\n```\n<tool_call>{"name": "a", "arguments": {}}</tool_call>\n```\n'
        "and inline `<tool_call>{}` too, and ~~~\n~~~\n"
    )
    result = check_stream(text, formats="auto")
    assert result.tool_calls == [] and result.text == text.rstrip("\n")  # the final newline ends the output


def test_calls_in_reasoning_stay_reasoning_unless_promoted() -> None:
    text = "<think>maybe " + hermes_block("a", {}) + "</think>" + hermes_block("b", {})
    ignored = check_stream(text, formats=["hermes"])
    assert calls(ignored) == [("b", {})]
    assert "<tool_call>" in ignored.reasoning
    promoted = check_stream(text, formats=["hermes"], calls_in_reasoning="promote")
    assert calls(promoted) == [("a", {}), ("b", {})]


def test_primed_reasoning_ends_at_the_first_think_close() -> None:
    text = "Thinking about it.\n</think>\n\nAnswer."
    result = check_stream(text, formats=["hermes"], start_in_reasoning=True)
    assert result.reasoning == "Thinking about it." and result.text == "Answer."


def test_unclosed_reasoning_at_end_is_reasoning() -> None:
    result = check_stream("<think>still going", formats=["hermes"])
    assert result.reasoning == "still going" and result.rejected == []


def test_reasoning_segments_are_joined_with_a_newline() -> None:
    text = "<|channel|>analysis<|message|>one<|end|><|start|>assistant<|channel|>analysis<|message|>two<|end|>"
    assert check_stream(text, formats=["harmony"]).reasoning == "one\ntwo"


def test_control_tokens_are_removed_and_eos_only_at_the_end() -> None:
    text = "Hi<|im_end|> there </s> you<|eot_id|></s>"
    result = check_stream(text, formats="auto")
    assert result.text == "Hi there </s> you"


def test_held_marker_prefix_becomes_visible_at_close() -> None:
    for tail in ("<tool_ca", "<|", "<｜tool▁", "TOOL_CAL", "`"):
        result = check_stream("text " + tail, formats="auto")
        assert result.text == "text " + tail


def test_harmony_builtin_recipient_is_rejected_unless_declared() -> None:
    text = '<|channel|>analysis to=browser.search<|message|>{"q": "x"}<|call|>'
    result = check_stream(text, formats=["harmony"])
    assert reasons(result) == ["unknown_tool"] and result.rejected[0].name == "browser.search"
    tools = [{"name": "browser.search", "parameters": {"type": "object"}}]
    assert calls(check_stream(text, formats=["harmony"], tools=tools)) == [("browser.search", {"q": "x"})]


def test_kimi_keeps_the_call_id() -> None:
    text = FIXTURES["kimi_k2"][1]
    result = check_stream(text, formats=["kimi_k2"])
    assert [c.id for c in result.tool_calls] == ["functions.lookup_order:0", "set_alarm:1"]


def test_unknown_format_name_is_a_clear_error() -> None:
    from streamparse import StreamParser

    with pytest.raises(ValueError, match="hermes"):
        StreamParser(formats=["hermse"])


def test_text_where_the_end_tag_should_be_is_part_of_the_rejected_call() -> None:
    text = 'a <tool_call>{"name": "f", "arguments": {}} junk</tool_call> b'
    result = check_stream(text, formats=["hermes"])
    assert reasons(result) == ["malformed"] and result.text == "a b"
    assert result.rejected[0].raw == '<tool_call>{"name": "f", "arguments": {}} junk</tool_call>'


def test_junk_between_the_calls_of_a_list_is_a_rejection_not_lost() -> None:
    text = '<tool_call>[{"name": "a", "arguments": {}} {"x"}]</tool_call> after'
    result = check_stream(text, formats=["hermes"])
    assert calls(result) == [("a", {})] and reasons(result) == ["malformed"]
    assert result.text == "after"
