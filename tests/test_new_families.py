"""The families issue 17 adds (DeepSeek V4 / V4.1 DSML, MiniMax-M3, muse, the reasoning delimiters of the
engines' reasoning parsers, and presets for families formats="auto" already read), each under every
chunking (tests/invariants.py). Cases marked "vLLM" restate the engine's own tests; "bug report" ones are
model outputs quoted in public issues."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons

from streamparse import StreamParser, formats
from streamparse.presets import preset_for, start_in_reasoning_for

NS = "]<]minimax[>["


def tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": props}}}


# -- DeepSeek V4 / V4.1 DSML ---------------------------------------------------------------------------------

V4_CALL = (
    "Let me check. <｜DSML｜tool_calls>\n"
    '<｜DSML｜invoke name="get_weather">\n'
    '<｜DSML｜parameter name="location" string="true">Beijing</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="unit" string="true">celsius</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜tool_calls>"
)  # vLLM tests/tool_parsers/test_deepseekv4_tool_parser.py, build_tool_call


def test_deepseek_v4_tool_calls_section() -> None:
    for fmts in ("auto", ["deepseek_dsml"]):
        result = check_stream(V4_CALL, formats=fmts)
        assert calls(result) == [("get_weather", {"location": "Beijing", "unit": "celsius"})]
        assert result.text == "Let me check."


# DeepSeek V4.1's encoder writes a space after the DSML token in every tag, and `\n\n` before the section.
V41_CALLS = (
    "On it.\n\n<｜DSML｜ calls>\n"
    '<｜DSML｜ invoke name="add">\n'
    '<｜DSML｜ parameter name="a" string="false">2</｜DSML｜ parameter>\n'
    '<｜DSML｜ parameter name="b" string="false">3.5</｜DSML｜ parameter>\n'
    '<｜DSML｜ parameter name="note" string="true">a < b & "c"</｜DSML｜ parameter>\n'
    "</｜DSML｜ invoke>\n"
    '<｜DSML｜ invoke name="get_location">\n\n</｜DSML｜ invoke>\n'
    "</｜DSML｜ calls>"
)


def test_deepseek_v41_spaced_tags_typed_by_the_string_attribute() -> None:
    result = check_stream(V41_CALLS, formats=["deepseek_dsml"])
    assert calls(result) == [("add", {"a": 2, "b": 3.5, "note": 'a < b & "c"'}), ("get_location", {})]
    assert result.text.strip() == "On it."


@pytest.mark.parametrize("section", ["tool_calls", " tool_calls", "calls", " calls", "function_calls"])
def test_deepseek_dsml_section_spellings_with_and_without_the_space(section: str) -> None:
    text = f'<｜DSML｜{section}>\n<｜DSML｜invoke name="f">\n</｜DSML｜invoke>\n</｜DSML｜{section}>'
    result = check_stream(text, formats=["deepseek_dsml"])
    assert calls(result) == [("f", {})] and result.text == ""


def test_deepseek_dsml_self_closing_invoke_is_a_call_without_arguments() -> None:
    text = '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_location"/>\n<｜DSML｜ invoke name="now" />\n</｜DSML｜tool_calls>'
    result = check_stream(text)
    assert calls(result) == [("get_location", {}), ("now", {})] and result.text == ""


def test_deepseek_dsml_string_values_are_unescaped_text() -> None:
    text = (
        '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="w">\n<｜DSML｜parameter name="s" string="true">'
        'x &amp; <b>{"k": 1}</b>\n  indented</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>'
    )
    result = check_stream(text)
    assert calls(result) == [("w", {"s": 'x &amp; <b>{"k": 1}</b>\n  indented'})]


def test_deepseek_v41_value_ends_at_the_next_parameter_when_its_closer_is_missing() -> None:
    text = V41_CALLS.replace("2</｜DSML｜ parameter>", "2")
    assert calls(check_stream(text))[0] == ("add", {"a": 2, "b": 3.5, "note": 'a < b & "c"'})


def test_deepseek_v4_cut_inside_the_section_is_truncated_and_shows_no_markup() -> None:
    result = check_stream(V4_CALL[: V4_CALL.index("celsius")])
    assert calls(result) == [] and reasons(result) == ["truncated"] and result.text == "Let me check."


@pytest.mark.parametrize(
    ("model_id", "family", "primed"),
    [
        ("deepseek-ai/DeepSeek-V4", "deepseek-v4", False),
        ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-v4-flash", False),
        ("deepseek-ai/DeepSeek-V4.1", "deepseek-v4.1", False),
        ("deepseek-v4.1-thinking", "deepseek-v4.1", True),
    ],
)
def test_deepseek_v4_presets(model_id: str, family: str, primed: bool) -> None:
    parser = StreamParser.for_model(model_id)
    assert parser.preset.family == family and "deepseek_dsml" in parser.formats
    text = ("Plan.</think>" if primed else "") + V41_CALLS
    result = check_stream(text, formats=list(parser.formats), start_in_reasoning=primed)
    assert [n for n, _ in calls(result)] == ["add", "get_location"]
    assert result.reasoning == ("Plan." if primed else "")
    assert start_in_reasoning_for(model_id, {"thinking": True})


# -- MiniMax-M3 ----------------------------------------------------------------------------------------------

ORDER_TOOLS = [
    tool(
        "create_order",
        {
            "user_id": {"type": "integer"},
            "urgent": {"type": "boolean"},
            "note": {"type": "string"},
            "shipping": {"type": "object", "properties": {"city": {"type": "string"}, "zip": {"type": "integer"}}},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}},
            },
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
            "duplicate_demo": {"type": "object"},
        },
    )
]
ORDER_CALL = (
    f'{NS}<tool_call>\n{NS}<invoke name="create_order">{NS}<user_id>42{NS}</user_id>{NS}<urgent>true{NS}</urgent>'
    f"{NS}<note>Please leave at front desk.{NS}</note>{NS}<shipping>{NS}<city>Singapore{NS}</city>"
    f"{NS}<zip>018956{NS}</zip>{NS}</shipping>{NS}<items>{NS}<item>{NS}<sku>book-001{NS}</sku>{NS}<qty>2{NS}</qty>"
    f"{NS}</item>{NS}<item>{NS}<sku>pen-007{NS}</sku>{NS}<qty>5{NS}</qty>{NS}</item>{NS}</items>{NS}<metadata>"
    f"{NS}<source>mobile{NS}</source>{NS}<campaign>may-launch{NS}</campaign>{NS}</metadata>{NS}<duplicate_demo>"
    f"{NS}<tag>a{NS}</tag>{NS}<tag>b{NS}</tag>{NS}</duplicate_demo>{NS}</invoke>\n{NS}</tool_call>"
)  # vLLM tests/tool_parsers/test_minimax_m3_tool_parser.py, build_order_call


def test_minimax_m3_nested_objects_item_arrays_and_repeated_keys_typed_by_the_schema() -> None:
    result = check_stream("I will create it.\n" + ORDER_CALL, tools=ORDER_TOOLS)
    assert calls(result) == [
        (
            "create_order",
            {
                "user_id": 42,
                "urgent": True,
                "note": "Please leave at front desk.",
                "shipping": {"city": "Singapore", "zip": 18956},
                "items": [{"sku": "book-001", "qty": 2}, {"sku": "pen-007", "qty": 5}],
                "metadata": {"source": "mobile", "campaign": "may-launch"},
                "duplicate_demo": {"tag": ["a", "b"]},
            },
        )
    ]
    assert result.text == "I will create it."


def test_minimax_m3_without_a_schema_leaves_leaves_as_text() -> None:
    result = check_stream(ORDER_CALL)
    args = calls(result)[0][1]
    assert args["user_id"] == "42" and args["shipping"] == {"city": "Singapore", "zip": "018956"}


# Bug report: a MiniMax M3 reply leaked as raw text by an agent whose parser knew only JSON; five calls, one
# with an empty value, one without arguments.
LEAKED = (
    f"{NS}<tool_call>\n"
    f'{NS}<invoke name="list_supplier_invoices">{NS}<status>paid{NS}</status>{NS}</invoke>\n'
    f'{NS}<invoke name="list_expense_reports">{NS}<status>approved{NS}</status>{NS}</invoke>\n'
    f'{NS}<invoke name="list_users">{NS}<search>{NS}</search>{NS}</invoke>\n'
    f'{NS}<invoke name="list_warehouses">{NS}</invoke>\n'
    f'{NS}<invoke name="list_events">{NS}<limit>10{NS}</limit>{NS}</invoke>\n'
    f"{NS}</tool_call>"
)


def test_minimax_m3_multiple_invokes_from_a_bug_report() -> None:
    result = check_stream(LEAKED, formats=["minimax_m3"])
    assert calls(result) == [
        ("list_supplier_invoices", {"status": "paid"}),
        ("list_expense_reports", {"status": "approved"}),
        ("list_users", {"search": ""}),
        ("list_warehouses", {}),
        ("list_events", {"limit": "10"}),
    ]
    assert result.text == ""


def test_minimax_m3_invoke_without_the_section_and_the_cut_call() -> None:
    text = f'Running.{NS}<invoke name="bash">{NS}<command>ls -la{NS}</command>{NS}</invoke>'
    result = check_stream(text)
    assert calls(result) == [("bash", {"command": "ls -la"})] and result.text == "Running."
    cut = check_stream(f'Running.{NS}<tool_call>\n{NS}<invoke name="bash">{NS}<command>ls')
    assert calls(cut) == [] and reasons(cut) == ["truncated"] and cut.text == "Running."


def test_minimax_m3_unbalanced_elements_are_malformed() -> None:
    text = f'{NS}<tool_call>{NS}<invoke name="f">{NS}<a>1{NS}</b>{NS}</invoke>{NS}</tool_call>'
    result = check_stream(text)
    assert calls(result) == [] and reasons(result) == ["malformed"] and result.text == ""


def test_minimax_m3_reasoning_primed_and_unprimed_and_preset() -> None:
    call = f'{NS}<tool_call>\n{NS}<invoke name="f">{NS}</invoke>\n{NS}</tool_call>'
    for text, primed in ((f"<mm:think>Plan.</mm:think>\n{call}", False), (f"Plan.</mm:think>\n{call}", True)):
        result = check_stream(text, formats=["minimax_m3"], start_in_reasoning=primed)
        assert result.reasoning == "Plan." and calls(result) == [("f", {})]
    orphan = check_stream(f"Plan.</mm:think>\n{call}")  # the prompt opened it, nobody said so
    assert orphan.reasoning == "Plan." and calls(orphan) == [("f", {})]
    parser = StreamParser.for_model("MiniMaxAI/MiniMax-M3")
    assert "minimax_m3" in parser.formats
    assert start_in_reasoning_for("MiniMaxAI/MiniMax-M3", {"thinking_mode": "enabled"})
    assert not start_in_reasoning_for("MiniMaxAI/MiniMax-M3", {"thinking_mode": "disabled"})


# -- muse (MuseGlimmer) ----------------------------------------------------------------------------------------

MUSE_CALL = (
    " to=self<|message|>Need the weather.<|eom|><|start|>assistant to=get_weather.get_weather<|message|>"
    '<atem:function_calls>\n<atem:invoke name="get_weather.get_weather">\n'
    '<atem:parameter name="city">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>'
)


def test_muse_reasoning_message_then_tool_message_and_no_header_leaks() -> None:
    for fmts in ("auto", ["muse"]):
        result = check_stream(MUSE_CALL, formats=fmts)
        assert calls(result) == [("get_weather.get_weather", {"city": "Paris"})]
        assert result.reasoning == "Need the weather."
        assert result.text.strip() == ""


def test_muse_doubled_name_of_a_bare_declared_tool_is_the_tool() -> None:
    result = check_stream(MUSE_CALL, tools=[tool("get_weather", {"city": {"type": "string"}})])
    assert calls(result) == [("get_weather", {"city": "Paris"})] and reasons(result) == []


def test_muse_answer_message_is_text_and_calls_quoted_in_reasoning_are_not_calls() -> None:
    text = (
        ' to=self<|message|>They wrote <atem:function_calls><atem:invoke name="x"></atem:invoke>'
        "</atem:function_calls> earlier.<|eom|><|start|>assistant to=user<|message|>It is sunny.<|eot|>"
    )
    result = check_stream(text)
    assert calls(result) == [] and result.text.strip() == "It is sunny."
    assert result.reasoning.startswith("They wrote <atem:function_calls>")
    for marker in ("to=", "<|message|>", "<|start|>", "<|eom|>", "<|eot|>"):
        assert marker not in result.text


def test_muse_reasoning_without_its_end_token_ends_at_the_next_header() -> None:
    text = " to=self<|message|>Think.<|start|>assistant to=user<|message|>Done."
    result = check_stream(text)
    assert result.reasoning == "Think." and result.text.strip() == "Done."


def test_harmony_is_unchanged_beside_muse() -> None:
    text = (
        "<|channel|>analysis<|message|>Need the order.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.lookup_order <|constrain|>json<|message|>{"order_id": "A-1"}<|call|>'
    )
    result = check_stream(text)
    assert calls(result) == [("lookup_order", {"order_id": "A-1"})] and result.reasoning == "Need the order."


# -- reasoning delimiters of the engines' reasoning parsers ----------------------------------------------------


@pytest.mark.parametrize(
    ("opener", "closer"),
    [
        ("<mm:think>", "</mm:think>"),
        ("◁think▷", "◁/think▷"),
        ("<think:opensource>", "</think:opensource>"),
        ("[unused16]", "[unused17]"),
        ("<|plamo:begin_think:plamo|>", "<|plamo:end_think:plamo|>"),
        ("<ifm|think>", "</ifm|think>"),
        ("<ifm|think_faster>", "</ifm|think_faster>"),
    ],
)
def test_token_reasoning_wrappers_written_primed_and_orphaned(opener: str, closer: str) -> None:
    written = check_stream(f"{opener}Plan.{closer}Hello")
    assert (written.reasoning, written.text) == ("Plan.", "Hello")
    primed = check_stream(f"Plan.{closer}Hello", start_in_reasoning=True)
    assert (primed.reasoning, primed.text) == ("Plan.", "Hello")
    orphan = check_stream(f"Plan.{closer}Hello")
    assert (orphan.reasoning, orphan.text) == ("Plan.", "Hello")


def test_cohere_reasoning_opened_by_the_prompt_ends_at_the_orphan_end_thinking() -> None:
    text = (
        'Look it up.<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "lookup", '
        '"parameters": {"q": "x"}}]<|END_ACTION|>'
    )
    for primed in (True, False):
        result = check_stream(text, formats=["command_r"], start_in_reasoning=primed)
        assert result.reasoning == "Look it up." and calls(result) == [("lookup", {"q": "x"})]
        assert result.text == ""


def test_hunyuan_think_and_answer_tags() -> None:
    text = (
        "<think>\nThe user wants Paris.\n</think>\n<answer>\nChecking.\n"
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>\n</answer>'
    )  # vLLM hunyuan_a13b parsers: <think>\n...\n</think>\n<answer>\n...\n</answer>
    result = check_stream(text, formats=["hunyuan"])
    assert calls(result) == [("get_weather", {"city": "Paris"})]
    assert result.reasoning.strip() == "The user wants Paris."
    assert "answer>" not in result.text and result.text.strip() == "Checking."
    parser = StreamParser.for_model("tencent/Hunyuan-A13B-Instruct")
    via_preset = check_stream(text, formats=list(parser.formats))
    assert [c.format for c in via_preset.tool_calls] == ["hunyuan"] and "answer>" not in via_preset.text


APRIEL = (
    "The user wants Paris weather.\n[BEGIN FINAL RESPONSE]\nLet me check.\n"
    '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>'
)


def test_apriel_primed_reasoning_ends_at_begin_final_response() -> None:
    for primed in (True, False):  # Apriel 1.6's prompt writes the opener; without the preset, an orphan closer
        result = check_stream(APRIEL, formats=["apriel"], start_in_reasoning=primed)
        assert result.reasoning.strip() == "The user wants Paris weather."
        assert result.text.strip() == "Let me check." and calls(result) == [("get_weather", {"city": "Paris"})]
    written = check_stream("Here are my reasoning steps:\n" + APRIEL + "\n[END FINAL RESPONSE]", formats=["apriel"])
    assert written.reasoning.strip() == "The user wants Paris weather." and "FINAL" not in written.text
    parser = StreamParser.for_model("ServiceNow-AI/Apriel-1.6-15b-Thinker")
    assert "apriel" in parser.formats and parser.preset.start_in_reasoning


def test_granite_thinking_markers() -> None:
    text = "Here is my thought process:\nCompute it.\nHere is my response:\nIt is 4."
    result = check_stream(text, formats=["granite_thinking"])
    assert result.reasoning.strip() == "Compute it." and result.text.strip() == "It is 4."
    quick = check_stream(text.replace("Here is", "Here's"), formats=["granite_thinking"])
    assert quick.reasoning.strip() == "Compute it."


@pytest.mark.parametrize(
    "text",
    [
        "I wrote Here are my reasoning steps: a, then [BEGIN FINAL RESPONSE] b.",
        "Here is my response: the answer, not reasoning.",
        "So: Here is my thought process: x. Here is my response: y.",
        "Use <answer> tags and </answer> in the reply.",
    ],
)
def test_plain_text_delimiters_do_not_fire_in_prose(text: str) -> None:
    result = check_stream(text)  # formats="auto": the opt-in families are off
    assert result.text == text and result.reasoning == ""
    closers = {"apriel": "[BEGIN FINAL RESPONSE]", "granite_thinking": "my response:"}
    for name, closer in closers.items():
        if closer in text:
            continue  # where the family is named, its template writes that closer after reasoning only
        named = check_stream(text, formats=[name])  # named, the openers still count only at the start
        assert named.reasoning == "" and named.text == text


def test_glm_interleaved_think_blocks_after_text_where_glm_is_named() -> None:
    text = (
        "<think>a</think>Let me look.<think>b</think><tool_call>get_weather\n<arg_key>city</arg_key>\n"
        "<arg_value>Paris</arg_value>\n</tool_call>"
    )
    result = check_stream(text, formats=["glm45"])
    assert result.reasoning == "a\nb" and result.text == "Let me look."
    assert calls(result) == [("get_weather", {"city": "Paris"})]
    glm = StreamParser.for_model("zai-org/GLM-4.6")
    assert check_stream(text, formats=list(glm.formats)).reasoning == "a\nb"


def test_reka_reasoning_tag_counts_only_at_the_start() -> None:
    assert check_stream("<reasoning>Plan.</reasoning>Hi").reasoning == "Plan."
    prose = "Wrap it in <reasoning>x</reasoning> tags."
    assert check_stream(prose).text == prose


# -- presets for families formats="auto" already read ------------------------------------------------------------


@pytest.mark.parametrize(
    ("model_id", "text", "expected"),
    [
        (
            "stepfun-ai/Step-3.5-Flash",
            "Plan.\n</think>\n<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>",
            [("f", {"x": "1"})],
        ),
        (
            "XiaomiMiMo/MiMo-V2-Flash",
            "Plan.</think><tool_call>\n<function=f>\n<parameter=x>1</parameter>\n</function>\n</tool_call>",
            [("f", {"x": "1"})],
        ),
        (
            "poolside/Laguna-XS.2",
            "<tool_call>f\n<arg_key>x</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
            [("f", {"x": "1"})],
        ),
        (
            "speakleash/Bielik-11B-v2.6-Instruct",
            '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
            [("f", {})],
        ),
        ("RekaAI/reka-flash-3.1", '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', [("f", {})]),
        (
            "cohere-north",
            '<|START_THINKING|>x<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", '
            '"parameters": {}}]<|END_ACTION|>',
            [("f", {})],
        ),
    ],
)
def test_presets_of_families_auto_already_read(model_id: str, text: str, expected: list[Any]) -> None:
    parser = StreamParser.for_model(model_id)
    assert preset_for(model_id).matched
    result = check_stream(text, formats=list(parser.formats), start_in_reasoning=parser.preset.start_in_reasoning)
    assert calls(result) == expected and result.text.strip() == ""


def test_every_new_format_parses_its_own_example() -> None:
    for name in ("minimax_m3", "muse", "apriel", "granite_thinking", "hunyuan"):
        result = check_stream(formats.CATALOG[name].example, formats=[name])
        assert calls(result) == [(calls(result)[0][0], calls(result)[0][1])] and reasons(result) == []


def test_inkling_typed_content_blocks() -> None:
    text = (
        "<|message_model|><|content_thinking|>Plan.<|end_message|><|message_model|><|content_text|>Hi."
        "<|end_message|><|content_model_end_sampling|>"
    )  # SGLang's InklingDetector: reasoning and text blocks, control tokens never text
    result = check_stream(text)
    assert (result.reasoning, result.text) == ("Plan.", "Hi.")


def test_minimax_m3_leak_without_the_section_from_a_bug_report() -> None:
    # A MiniMax reply an agent printed as text: stray namespace tokens, a list dash, invokes with no section
    # opener, a doubled token, and the section's closer at the end.
    text = "\n".join(
        [
            NS,
            f'- {NS}<invoke name="bash">{NS}<command>grep -n "google_trends" app.py | head -10{NS}</command>'
            f"{NS}</invoke>",
            f'{NS}{NS}<invoke name="read">{NS}<file_path>/tmp/style.css{NS}</file_path>{NS}<offset>1400.0'
            f"{NS}</offset>{NS}<limit>100.0{NS}</limit>{NS}</invoke>",
            f"{NS}</tool_call>",
        ]
    )
    tools = [tool("bash", {"command": {"type": "string"}}), tool("read", {"offset": {"type": "integer"}})]
    result = check_stream(text, formats=["minimax_m3"], tools=tools)
    assert calls(result)[1] == ("read", {"file_path": "/tmp/style.css", "offset": 1400, "limit": "100.0"})
    assert calls(result)[0][1] == {"command": 'grep -n "google_trends" app.py | head -10'}
    assert NS not in result.text and "tool_call" not in result.text and result.text.strip() == "-"


# -- properties ------------------------------------------------------------------------------------------------

_VALUE = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<\r"), max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(value=_VALUE.filter(lambda v: not v.startswith("\n") and not v.endswith("\n")), spaced=st.booleans())
def test_dsml_string_values_round_trip_in_either_spacing(value: str, spaced: bool) -> None:
    # (A newline at either end of a value is still dropped, the text-value rule's one-newline reading.)
    p = "｜DSML｜ " if spaced else "｜DSML｜"
    text = (
        f'<{p}{"calls" if spaced else "tool_calls"}>\n<{p}invoke name="w">\n<{p}parameter name="s" string="true">'
        f"{value}</{p}parameter>\n</{p}invoke>\n</{p}{'calls' if spaced else 'tool_calls'}>"
    )
    result = check_stream(text, seeds=2)
    assert calls(result) == [("w", {"s": value})] and result.text == ""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(value=_VALUE)
def test_minimax_m3_leaf_text_round_trips(value: str) -> None:
    text = f'{NS}<tool_call>\n{NS}<invoke name="w">{NS}<s>{value}{NS}</s>{NS}</invoke>\n{NS}</tool_call>'
    result = check_stream(text, seeds=2)
    assert calls(result) == [("w", {"s": value})] and result.text == ""
