"""The marked JSON-bodied formats (formats/marked.py), as real model output looks, under every chunking,
configured alone and in auto mode."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons, run

from streamparse import StreamParser, parse
from streamparse.events import ToolCallDelta, ToolCallEnd, ToolCallRejected, merge_events
from streamparse.formats import functionary, marked, sections

BIG = 'def f(x):\n    return x < 3 and x > 1  # "quoted" \\ backslash {braces} [TOOL_CALLS] >>>all\n' * 40
NESTED = {
    "q": 'a "quoted" \\ back\\slash </tool> <|END_ACTION|> [END_TOOL_REQUEST]',
    "n": {"deep": [1, {"x": "}]{["}]},
    "cjk": "東京 ✓ 🚀",
    "nl": "a\nb",
}
LOOKUP = ("lookup_order", {"order_id": "A-1001"})
WRITE = ("write_file", {"path": "src/a.py", "content": BIG})
NEST = ("annotate", NESTED)


def obj(name: str, args: dict[str, Any], args_key: str = "arguments", name_key: str = "name", **extra: Any) -> str:
    return json.dumps({name_key: name, args_key: args, **extra}, ensure_ascii=False)


def dumps(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False)


# format -> (text, expected calls, expected visible text)
FIXTURES: dict[str, tuple[str, str, list[tuple[str, dict[str, Any]]], str]] = {
    "llama3_two_calls_semicolon": (
        "llama3_json",
        "Let me look.\n<|python_tag|>"
        + obj(*LOOKUP, args_key="parameters")
        + "; "
        + obj(*WRITE, args_key="parameters", type="function")
        + "<|eom_id|>",
        [LOOKUP, WRITE],
        "Let me look.",
    ),
    "llama3_nested_eot": (
        "llama3_json",
        "<|python_tag|>" + obj(*NEST) + "<|eot_id|>",
        [NEST],
        "",
    ),
    "llama3_builtin_tool_is_text": (
        "llama3_json",
        '<|python_tag|>brave_search.call(query="tides")<|eom_id|>',
        [],
        '<|python_tag|>brave_search.call(query="tides")',
    ),
    "mistral_v11_prose_two_calls": (
        "mistral",
        "Sure.[TOOL_CALLS]lookup_order[ARGS]"
        + dumps(LOOKUP[1])
        + "[TOOL_CALLS]write_file[ARGS]"
        + dumps(WRITE[1])
        + "</s>",
        [LOOKUP, WRITE],
        "Sure.",
    ),
    "mistral_pre_v11_list_with_id": (
        "mistral",
        "[TOOL_CALLS] [" + obj(*LOOKUP, id="a1B2c3D4e") + ", " + obj(*NEST) + "]",
        [LOOKUP, NEST],
        "",
    ),
    "mistral_pre_v11_no_space": (
        "mistral",
        "[TOOL_CALLS][" + obj(*LOOKUP) + "]</s>",
        [LOOKUP],
        "",
    ),
    "mistral_stripped_args_token_and_text_after": (
        "mistral",
        "[TOOL_CALLS]annotate" + dumps(NESTED) + " Done.",
        [NEST],
        "Done.",
    ),
    "mistral_magistral_reasoning": (
        "mistral",
        "[THINK]Need the order.[/THINK]Checking.[TOOL_CALLS]lookup_order[ARGS]" + dumps(LOOKUP[1]),
        [LOOKUP],
        "Checking.",
    ),
    "mistral_token_before_prose_is_text": (
        "mistral",
        "Use [TOOL_CALLS] Sorry, no tools here. [TOOL_CALLS]!",
        [],
        "Use [TOOL_CALLS] Sorry, no tools here. [TOOL_CALLS]!",
    ),
    "granite_token_list": (
        "granite",
        "<|tool_call|>[" + obj(*LOOKUP) + ",\n " + obj(*WRITE) + "]",
        [LOOKUP, WRITE],
        "",
    ),
    "granite_plain_tag_no_close": (
        "granite",
        "On it.\n<tool_call>[" + obj(*NEST) + "]",
        [NEST],
        "On it.",
    ),
    "granite_plain_tag_with_close": (
        "granite",
        "<tool_call>[" + obj(*LOOKUP) + "]</tool_call>\nThen more.",
        [LOOKUP],
        "Then more.",
    ),
    "phi4_mini_list": (
        "phi4_mini",
        "functools[" + obj(*LOOKUP) + ", " + obj(*WRITE) + "]",
        [LOOKUP, WRITE],
        "",
    ),
    "phi4_mini_near_misses_are_text": (
        "phi4_mini",
        "Use functools.partial or functools[0], myfunctools[" + obj(*LOOKUP) + "] and functools[].",
        [],
        "Use functools.partial or functools[0], myfunctools[" + obj(*LOOKUP) + "] and functools[].",
    ),
    "internlm_plugin": (
        "internlm",
        "I'll annotate it.<|action_start|><|plugin|>\n"
        + obj(*NEST, args_key="parameters")
        + "<|action_end|><|im_end|>",
        [NEST],
        "I'll annotate it.",
    ),
    "internlm_interpreter_is_visible_code": (
        "internlm",
        "Run:<|action_start|><|interpreter|>\n```python\nprint({'a': 1})\n```<|action_end|>\n",
        [],
        "Run:\n```python\nprint({'a': 1})\n```",
    ),
    "command_r_action_fence": (
        "command_r",
        "Plan: look it up, then write.\nAction: ```json\n[\n    "
        + obj(*LOOKUP, args_key="parameters", name_key="tool_name")
        + ",\n    "
        + obj(*WRITE, args_key="parameters", name_key="tool_name")
        + "\n]\n```",
        [LOOKUP, WRITE],
        "Plan: look it up, then write.",
    ),
    "command_r_action_without_fence_is_text": (
        "command_r",
        "Action: none needed. Reaction: ```json```",
        [],
        "Action: none needed. Reaction: ```json```",
    ),
    "command_r7b_start_action": (
        "command_r",
        "<|START_THINKING|>Look it up.<|END_THINKING|><|START_ACTION|>["
        + obj(*NEST, args_key="parameters", name_key="tool_name", tool_call_id="0")
        + "]<|END_ACTION|>",
        [NEST],
        "",
    ),
    "command_r_response_tokens_stripped": (
        "command_r",
        "<|START_RESPONSE|>It is shipped.<|END_RESPONSE|>",
        [],
        "It is shipped.",
    ),
    "jamba_list": (
        "jamba",
        "Sure.\n<tool_calls>[" + obj(*LOOKUP) + ", " + obj(*NEST) + "]</tool_calls>\nok",
        [LOOKUP, NEST],
        "Sure.\nok",
    ),
    "minimax_m1_lines": (
        "minimax_m1",
        "<tool_calls>\n" + obj(*LOOKUP) + "\n" + obj(*WRITE) + "\n</tool_calls>\nDone.",
        [LOOKUP, WRITE],
        "Done.",
    ),
    "function_calls_json_list": (
        "function_calls_json",
        "Calling.\n<function_calls>[" + obj(*LOOKUP) + ", " + obj(*NEST) + "]</function_calls>",
        [LOOKUP, NEST],
        "Calling.",
    ),
    "function_calls_json_object": (
        "function_calls_json",
        "<function_calls>\n" + obj(*WRITE) + "\n</function_calls> after",
        [WRITE],
        "after",
    ),
    "token_json_section": (
        "token_json",
        "x <|tool_calls_section_begin|><|tool_call_begin|>" + obj(*LOOKUP) + "<|tool_call_end|>"
        "<|tool_call_begin|>" + obj(*NEST) + "<|tool_call_end|><|tool_calls_section_end|> y",
        [LOOKUP, NEST],
        "x y",
    ),
    "token_json_bare_calls": (
        "token_json",
        "<|tool_call_begin|>" + obj(*WRITE) + "<|tool_call_end|>",
        [WRITE],
        "",
    ),
    "tag_json": (
        "tag_json",
        'First <tool name="lookup_order">'
        + dumps(LOOKUP[1])
        + "</tool> then <tool name='annotate'>\n"
        + dumps(NESTED)
        + "\n</tool>.",
        [LOOKUP, NEST],
        "First then .",
    ),
    "tag_json_near_misses_are_text": (
        "tag_json",
        'A <tool name="x"/> and <toolbox> and <tool name="y">plain</tool> and <tool kind="z">{}</tool>',
        [],
        'A <tool name="x"/> and <toolbox> and <tool name="y">plain</tool> and <tool kind="z">{}</tool>',
    ),
    "tool_request_both_forms": (
        "tool_request",
        "[TOOL_REQUEST]\nlookup_order "
        + dumps(LOOKUP[1])
        + "\n[TOOL_REQUEST_END]\nand\n[TOOL_REQUEST]"
        + obj(*NEST)
        + "[END_TOOL_REQUEST]",
        [LOOKUP, NEST],
        "and",
    ),
    "functionary_all_and_calls": (
        "functionary_v3",
        ">>>all\nChecking both.>>>lookup_order\n"
        + dumps(LOOKUP[1])
        + ">>>write_file\n"
        + dumps(WRITE[1])
        + "<|eot_id|>",
        [LOOKUP, WRITE],
        "Checking both.",
    ),
    "functionary_repl_prompt_is_text": (
        "functionary_v3",
        ">>>all\nIn the REPL:\n>>> print(1)\n1\nand a>>>b shift.",
        [],
        "In the REPL:\n>>> print(1)\n1\nand a>>>b shift.",
    ),
}


@pytest.mark.parametrize("key", sorted(FIXTURES))
def test_fixture_configured_alone(key: str) -> None:
    fmt, text, expected, visible = FIXTURES[key]
    result = check_stream(text, formats=[fmt])
    assert calls(result) == expected
    assert result.text == visible
    assert result.rejected == []
    assert all(c.format == fmt for c in result.tool_calls)


@pytest.mark.parametrize("key", sorted(FIXTURES))
def test_fixture_in_auto_mode(key: str) -> None:
    fmt, text, expected, visible = FIXTURES[key]
    result = check_stream(text, seeds=4, formats="auto")
    assert calls(result) == expected
    assert result.text == visible
    assert all(c.format == fmt for c in result.tool_calls)


@pytest.mark.parametrize("spec", marked.SPECS + sections.SPECS + functionary.SPECS, ids=lambda s: s.name)
def test_every_spec_example_parses_to_a_call(spec: Any) -> None:
    result = parse(spec.example, formats=[spec.name])
    assert result.tool_calls and not result.rejected
    assert check_stream(spec.example, seeds=2, formats="auto").tool_calls == result.tool_calls


def test_mistral_call_id_is_kept() -> None:
    text = "[TOOL_CALLS]lookup_order[CALL_ID]a1B2c3D4e[ARGS]" + dumps(LOOKUP[1])
    result = check_stream(text, formats=["mistral"])
    assert calls(result) == [LOOKUP]
    assert result.tool_calls[0].id == "a1B2c3D4e"


def test_kimi_and_token_json_calls_share_one_section() -> None:
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.lookup_order:0<|tool_call_argument_begin|>"
        + dumps(LOOKUP[1])
        + "<|tool_call_end|><|tool_call_begin|>"
        + obj(*NEST)
        + "<|tool_call_end|><|tool_calls_section_end|>"
    )
    for formats in (["kimi_k2", "token_json"], "auto"):
        result = check_stream(text, seeds=4, formats=formats)
        assert calls(result) == [LOOKUP, NEST]
        assert [c.format for c in result.tool_calls] == ["kimi_k2", "token_json"]
        assert result.text == ""


def test_shared_openers_dispatch_on_their_continuation_in_auto_mode() -> None:
    text = (
        "<tool_calls>["
        + obj(*LOOKUP)
        + "]</tool_calls>"
        + '<tool_call>{"name": "a", "arguments": {}}</tool_call>'
        + "<tool_calls>\n"
        + obj(*NEST)
        + "\n</tool_calls>"
        + "<tool_call>["
        + obj("b", {})
        + "]"
        + '\n<function_calls>\n<invoke name="c">\n<parameter name="k">v</parameter>\n</invoke>\n</function_calls>'
        + "<function_calls>["
        + obj("d", {})
        + "]</function_calls>"
        + '<tool name="e">{}</tool>'
    )
    result = check_stream(text, seeds=4, formats="auto")
    assert [(c.name, c.format) for c in result.tool_calls] == [
        ("lookup_order", "jamba"),
        ("a", "hermes"),
        ("annotate", "minimax_m1"),
        ("b", "granite"),
        ("c", "xml_invoke"),
        ("d", "function_calls_json"),
        ("e", "tag_json"),
    ]
    assert result.text == ""


def test_hermes_keeps_tool_call_lists_when_granite_is_not_active() -> None:
    result = check_stream("<tool_call>[" + obj(*LOOKUP) + "]</tool_call>", formats=["hermes"])
    assert calls(result) == [LOOKUP] and result.tool_calls[0].format == "hermes"


# -- truncation and malformed bodies ------------------------------------------------------------------------

# format -> (a complete first call, the second call cut off mid-arguments)
TRUNCATED: dict[str, tuple[str, str]] = {
    "llama3_json": ("<|python_tag|>" + obj(*LOOKUP), '; {"name": "b", "parameters": {"x": "unfin'),
    "mistral": ("[TOOL_CALLS]lookup_order[ARGS]" + dumps(LOOKUP[1]), '[TOOL_CALLS]b[ARGS]{"x": "unfin'),
    "granite": ("<|tool_call|>[" + obj(*LOOKUP), ', {"name": "b", "arguments": {"x": "unfin'),
    "phi4_mini": ("functools[" + obj(*LOOKUP), ', {"name": "b", "arguments": {"x": "unfin'),
    "internlm": (
        "<|action_start|><|plugin|>\n" + obj(*LOOKUP) + "<|action_end|>",
        '<|action_start|><|plugin|>\n{"name": "b", "parameters": {"x": "unfin',
    ),
    "command_r": ("<|START_ACTION|>[" + obj(*LOOKUP), ', {"tool_name": "b", "parameters": {"x": "unfin'),
    "jamba": ("<tool_calls>[" + obj(*LOOKUP), ', {"name": "b", "arguments": {"x": "unfin'),
    "minimax_m1": ("<tool_calls>\n" + obj(*LOOKUP), '\n{"name": "b", "arguments": {"x": "unfin'),
    "function_calls_json": ("<function_calls>[" + obj(*LOOKUP), ', {"name": "b", "arguments": {"x": "unfin'),
    "token_json": (
        "<|tool_call_begin|>" + obj(*LOOKUP) + "<|tool_call_end|>",
        '<|tool_call_begin|>{"name": "b", "arguments": {"x": "unfin',
    ),
    "tag_json": ('<tool name="lookup_order">' + dumps(LOOKUP[1]) + "</tool>", '<tool name="b">{"x": "unfin'),
    "tool_request": (
        "[TOOL_REQUEST]\nlookup_order " + dumps(LOOKUP[1]) + "\n[TOOL_REQUEST_END]",
        '[TOOL_REQUEST]{"name": "b", "arguments": {"x": "unfin',
    ),
    "functionary_v3": (">>>lookup_order\n" + dumps(LOOKUP[1]), '>>>b\n{"x": "unfin'),
}


@pytest.mark.parametrize("fmt", sorted(TRUNCATED))
@pytest.mark.parametrize("mode", ["alone", "auto"])
def test_truncated_call_is_rejected_and_earlier_call_stays_accepted(fmt: str, mode: str) -> None:
    first, cut = TRUNCATED[fmt]
    result = check_stream("Ok. " + first + cut, seeds=4, formats=[fmt] if mode == "alone" else "auto")
    assert calls(result) == [LOOKUP]
    assert reasons(result) == ["truncated"]
    assert result.rejected[0].name == "b"
    assert result.text == "Ok."


# Special-token openers cut off right after the token: a truncated call, never visible text.
@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("mistral", "[TOOL_CALLS]"),
        ("mistral", "[TOOL_CALLS]lookup_or"),
        ("mistral", "[TOOL_CALLS]lookup_order[CALL_ID]a1B2"),
        ("mistral", "[TOOL_CALLS]lookup_order[AR"),
        ("llama3_json", "<|python_tag|>"),
        ("granite", "<|tool_call|>\n"),
        ("internlm", "<|action_start|><|plu"),
        ("command_r", "<|START_ACTION|>"),
        ("token_json", "<|tool_call_begin|>"),
        ("tool_request", "[TOOL_REQUEST]\nlookup_order"),
        ("phi4_mini", "functools["),
    ],
)
def test_opener_cut_off_by_the_end_of_the_stream_is_truncated(fmt: str, text: str) -> None:
    result = check_stream("Hi " + text, formats=[fmt])
    assert result.tool_calls == [] and reasons(result) == ["truncated"]
    assert result.text == "Hi"


MALFORMED: dict[str, str] = {
    "llama3_json": '<|python_tag|>{"name": "f", "parameters": {bad}}<|eom_id|>',
    "mistral": '[TOOL_CALLS]f[ARGS]{"a": 1,, "b": [}',
    "granite": '<|tool_call|>[{"name": "f", "arguments": {"a": nope}}]',
    "phi4_mini": 'functools[{"name": "f", "arguments": {"a" 1}}]',
    "internlm": '<|action_start|><|plugin|>\n{"name": "f", "parameters": {a: 1}}<|action_end|>',
    "command_r": 'Action: ```json\n[{"tool_name": "f", "parameters": {"a": tru}} {"x"}]\n```',
    "jamba": '<tool_calls>[{"name": "f", "arguments": {"a": ]}]</tool_calls>',
    "minimax_m1": '<tool_calls>\n{"name": "f", "arguments": {"a": 1}\n</tool_calls>',
    "function_calls_json": '<function_calls>{"name": "f", "arguments": {"a": 1}} junk</function_calls>',
    "token_json": '<|tool_call_begin|>{"name": "f", "arguments": {"a": 1]}<|tool_call_end|>',
    "tag_json": '<tool name="f">{"a": 1, "b": two}</tool>',
    "tool_request": '[TOOL_REQUEST]{"name": "f", "arguments": {"a": @}}[END_TOOL_REQUEST]',
    "functionary_v3": '>>>f\n{"a": 1, b}',
}


@pytest.mark.parametrize("fmt", sorted(MALFORMED))
def test_malformed_body_is_rejected_without_leaking_markup(fmt: str) -> None:
    text = "Before. " + MALFORMED[fmt]
    result = check_stream(text, formats=[fmt])
    assert result.tool_calls == []
    assert reasons(result) == ["malformed"]
    assert result.text == "Before."
    assert "".join(r.raw for r in result.rejected) in text


def test_functionary_body_that_is_not_json_is_malformed_up_to_the_next_recipient() -> None:
    text = ">>>lookup_order\nplease look it up>>>all\nSorry."
    result = check_stream(text, formats=["functionary_v3"])
    assert reasons(result) == ["malformed"] and result.text == "Sorry."


def test_mistral_malformed_call_does_not_swallow_the_next_call() -> None:
    text = '[TOOL_CALLS]f[ARGS]{"a": nope}[TOOL_CALLS]lookup_order[ARGS]' + dumps(LOOKUP[1])
    result = check_stream(text, formats=["mistral"])
    assert reasons(result) == ["malformed"] and calls(result) == [LOOKUP]


# -- functionary python -----------------------------------------------------------------------------------

CODE = "import os\nprint('>>> not a header', {\"a\": 1})\n"


def test_functionary_python_is_rejected_unless_declared() -> None:
    text = ">>>all\nRunning code.>>>python\n" + CODE + "<|eot_id|>"
    result = check_stream(text, formats=["functionary_v3"])
    assert result.tool_calls == [] and reasons(result) == ["unknown_tool"]
    assert result.rejected[0].name == "python"
    assert result.text == "Running code."


def test_functionary_declared_python_streams_its_code() -> None:
    tools = [{"name": "python", "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}]
    text = ">>>python\n" + CODE + ">>>all\nDone."
    result = check_stream(text, formats=["functionary_v3"], tools=tools)
    assert calls(result) == [("python", {"code": CODE})]
    assert result.text == "Done."


# -- streaming ----------------------------------------------------------------------------------------------

STREAMED: dict[str, tuple[str, str]] = {
    "llama3_json": ("<|python_tag|>", "<|eom_id|>"),
    "mistral": ("[TOOL_CALLS][", "]"),
    "granite": ("<|tool_call|>[", "]"),
    "phi4_mini": ("functools[", "]"),
    "internlm": ("<|action_start|><|plugin|>\n", "<|action_end|>"),
    "command_r": ("<|START_ACTION|>[", "]<|END_ACTION|>"),
    "jamba": ("<tool_calls>[", "]</tool_calls>"),
    "minimax_m1": ("<tool_calls>\n", "\n</tool_calls>"),
    "function_calls_json": ("<function_calls>[", "]</function_calls>"),
    "token_json": ("<|tool_call_begin|>", "<|tool_call_end|>"),
    "tool_request": ("[TOOL_REQUEST]", "[END_TOOL_REQUEST]"),
}


def _feeds_with_deltas(fmt: str, text: str, size: int = 64) -> tuple[int, dict[str, Any]]:
    parser = StreamParser(formats=[fmt])
    with_delta = 0
    ended: list[ToolCallEnd] = []
    parts: list[str] = []
    for i in range(0, len(text), size):
        events = parser.feed(text[i : i + size])
        deltas = [e.arguments for e in events if isinstance(e, ToolCallDelta)]
        if deltas and not ended:
            with_delta += 1
        parts += deltas
        ended += [e for e in events if isinstance(e, ToolCallEnd)]
    parser.close()
    assert len(ended) == 1 and "".join(parts) == ended[0].call.arguments_json
    return with_delta, ended[0].call.arguments


@pytest.mark.parametrize("fmt", sorted(STREAMED))
def test_large_string_arguments_stream_before_the_call_ends(fmt: str) -> None:
    head, tail = STREAMED[fmt]
    name_key = "tool_name" if fmt == "command_r" else "name"
    text = head + obj(*WRITE, name_key=name_key) + tail
    with_delta, args = _feeds_with_deltas(fmt, text)
    assert args == WRITE[1]
    assert with_delta > len(BIG) // 64 // 2


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("mistral", "[TOOL_CALLS]write_file[ARGS]" + dumps(WRITE[1])),
        ("tag_json", '<tool name="write_file">' + dumps(WRITE[1]) + "</tool>"),
        ("functionary_v3", ">>>write_file\n" + dumps(WRITE[1])),
    ],
)
def test_named_forms_stream_their_arguments(fmt: str, text: str) -> None:
    with_delta, args = _feeds_with_deltas(fmt, text)
    assert args == WRITE[1]
    assert with_delta > len(BIG) // 64 // 2


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("mistral", "[TOOL_CALLS]lookup_order[ARGS]" + dumps(LOOKUP[1])),
        ("phi4_mini", "functools[" + obj(*LOOKUP) + "]"),
        ("functionary_v3", ">>>lookup_order\n" + dumps(LOOKUP[1])),
        ("granite", "<|tool_call|>[" + obj(*LOOKUP) + "]"),
    ],
)
def test_calls_without_end_marker_end_when_their_json_closes(fmt: str, text: str) -> None:
    parser = StreamParser(formats=[fmt])
    events = parser.feed(text)
    assert [e.call.name for e in events if isinstance(e, ToolCallEnd)] == ["lookup_order"]


# -- random chunkings ---------------------------------------------------------------------------------------

HYPO_KEYS = [
    "llama3_two_calls_semicolon",
    "mistral_v11_prose_two_calls",
    "mistral_pre_v11_list_with_id",
    "command_r_action_fence",
    "minimax_m1_lines",
    "token_json_section",
    "tag_json",
    "tool_request_both_forms",
    "functionary_all_and_calls",
    "functionary_repl_prompt_is_text",
]


@settings(max_examples=40, deadline=None)
@given(key=st.sampled_from(HYPO_KEYS), cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=25))
def test_random_chunkings_give_the_same_events(key: str, cuts: list[int]) -> None:
    fmt, text, _expected, _visible = FIXTURES[key]
    text = text[:1500] if key == "functionary_repl_prompt_is_text" else text
    points = sorted({c % (len(text) + 1) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    for formats in ([fmt], "auto"):
        assert merge_events(run(chunks, formats=formats)) == merge_events(run([text], formats=formats))


@settings(max_examples=30, deadline=None)
@given(key=st.sampled_from(sorted(TRUNCATED)), cut=st.integers(min_value=1, max_value=10_000))
def test_any_prefix_never_raises_and_never_leaks_a_complete_call_twice(key: str, cut: int) -> None:
    first, rest = TRUNCATED[key]
    text = (first + rest)[: cut % (len(first + rest)) + 1]
    result = check_stream(text, seeds=2, formats=[key])
    assert len(result.tool_calls) + len(result.rejected) <= 2
    assert all(isinstance(r, ToolCallRejected) for r in result.rejected)


def test_functionary_primed_start_when_named_explicitly() -> None:
    text = "all\nChecking.>>>lookup_order\n" + dumps(LOOKUP[1])
    result = check_stream(text, formats=["functionary_v3"])
    assert calls(result) == [LOOKUP] and result.text == "Checking."
    result = check_stream("lookup_order\n" + dumps(LOOKUP[1]), formats=["functionary_v3"])
    assert calls(result) == [LOOKUP] and result.text == ""


@pytest.mark.parametrize("text", ["Sure\nthing.", "python\nprint(1)", "all"])
def test_functionary_primed_start_leaves_prose_alone(text: str) -> None:
    result = check_stream(text, formats=["functionary_v3"])
    assert result.tool_calls == [] and result.rejected == [] and result.text == text


def test_functionary_primed_start_is_off_in_auto_mode() -> None:
    text = "all\nChecking."
    assert check_stream(text, formats="auto").text == text


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("tag_json", "a <tool or > b"),
        ("tag_json", "<tool is long "),
        ("mistral", "[TOOL_CALLS]foo[b] x"),
        ("command_r", "Action: do it"),
        ("functionary_v3", "x >>> y"),
        ("phi4_mini", "use functools.reduce"),
    ],
)
def test_near_misses_are_released_as_soon_as_they_cannot_match(fmt: str, text: str) -> None:
    parser = StreamParser(formats=[fmt])
    events = parser.feed(text)
    # Trailing whitespace waits for the next character (a separator before a marker is not content).
    assert "".join(getattr(e, "text", "") for e in events) == text.rstrip()
    assert parser.close() == []


def test_raw_of_a_call_opened_at_the_very_start_is_not_duplicated_by_char_feeding() -> None:
    text = ">>>f\n<|tool_call_begin|> not json"
    result = check_stream(text, formats=["functionary_v3"])
    assert reasons(result) == ["malformed"]
    assert result.rejected[0].raw == text


TOOLS = [
    {
        "name": "lookup_order",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
    }
]


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        (
            "mistral",
            "[TOOL_CALLS][" + obj(*LOOKUP) + ", " + obj("rm_rf", {}) + ', {"name": "lookup_order", '
            '"arguments": {"order_id": 7}}]',
        ),
        (
            "tool_request",
            "[TOOL_REQUEST]\nlookup_order " + dumps(LOOKUP[1]) + "\n[TOOL_REQUEST_END]"
            '[TOOL_REQUEST]rm_rf {}[TOOL_REQUEST_END][TOOL_REQUEST]lookup_order {"order_id": 7}[END_TOOL_REQUEST]',
        ),
        ("functionary_v3", ">>>lookup_order\n" + dumps(LOOKUP[1]) + '>>>rm_rf\n{}>>>lookup_order\n{"order_id": 7}'),
    ],
)
def test_tools_allowlist_and_schema_apply(fmt: str, text: str) -> None:
    result = check_stream(text, formats=[fmt], tools=TOOLS)
    assert calls(result) == [LOOKUP]
    assert result.tool_calls[0].validation == "pass"
    assert reasons(result) == ["unknown_tool", "schema_violation"]


@pytest.mark.parametrize(
    ("fmt", "head"),
    [
        ("mistral", '[TOOL_CALLS]write_file[ARGS]{"path": "a'),
        ("granite", '<|tool_call|>[{"name": "write_file", "arguments": {"path": "a'),
        ("tag_json", '<tool name="write_file">{"path": "a'),
        ("functionary_v3", '>>>write_file\n{"path": "a'),
        ("command_r", '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "write_file", "parameters": {"path": "a'),
    ],
)
def test_call_starts_as_soon_as_its_name_is_known(fmt: str, head: str) -> None:
    from streamparse import ToolCallStart

    parser = StreamParser(formats=[fmt])
    events = parser.feed(head)
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["write_file"]
    assert "".join(e.arguments for e in events if isinstance(e, ToolCallDelta)).startswith('{"path": "a')
