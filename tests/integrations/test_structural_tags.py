"""Structural tags built from each format's declaration (issue 22): they compile with xgrammar, the text they
let the model write parses back to the same call, vLLM's Parser hands them on for "required", a named tool and
"auto" with strict tools, and where vLLM has its own tag for the family, the two grammars agree on the text."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import xgrammar as xgr
from declared_examples import EXAMPLES
from engine_tokenizer import marker_tokenizer
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionNamedToolChoiceParam
from vllm.parser import ParserManager
from vllm.tool_parsers.structural_tag_registry import get_model_structural_tag
from vllm_drive import chat_request
from xgrammar.testing import _is_grammar_accept_string

import streamparse
from streamparse import formats
from streamparse.formats import PythonName
from streamparse.integrations import vllm as adapter
from streamparse.integrations.structural import (
    Tool,
    any_format_tag,
    declaration_for,
    format_tag,
    has_tag,
    structural_tag,
)

PARAMS = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": PARAMS, "strict": True}}
PING = {"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}}
TOOL = Tool("get_weather", PARAMS)
CALL = ("get_weather", {"city": "Paris", "days": 3})
D = "｜DSML｜"
G = "｜GCML｜"

# Written by hand from each tag's begin / content / end, for CALL.
TEXTS: dict[str, str] = {
    "hermes": '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>',
    "qwen3_coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
    "seed_oss": "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</seed:tool_call>",
    "function_tag": '<function=get_weather>{"city": "Paris", "days": 3}</function>',
    "glm45": "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call>",
    "minimax": '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>',
    "xml_invoke": '<function_calls><invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>\n</invoke></function_calls>',
    "deepseek_dsml": f'<{D}function_calls>\n<{D}invoke name="get_weather">\n<{D}parameter name="city" string="true">Paris</{D}parameter>\n<{D}parameter name="days" string="false">3</{D}parameter>\n</{D}invoke>\n</{D}function_calls>',
    "deepseek_v3": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris", "days": 3}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v31": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris", "days": 3}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "kimi_k2": '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris", "days": 3}<|tool_call_end|><|tool_calls_section_end|>',
    "llama3_json": '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}',
    "nemotron": '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]</TOOLCALL>',
    "jamba": '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]</tool_calls>',
    "granite": '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]',
    "phi4_mini": 'functools[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]',
    "internlm": '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}<|action_end|>',
    "token_json": '<|tool_call_begin|>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}<|tool_call_end|>',
    "tag_json": '<tool name="get_weather">{"city": "Paris", "days": 3}</tool>',
    "mistral": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}',
    "apriel": '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]</tool_calls>',
    "hunyuan": '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]</tool_calls>',
    "longcat": '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</longcat_tool_call>',
    "apertus": '<|tools_prefix|>[{"get_weather": {"city": "Paris", "days": 3}}]<|tools_suffix|>',
    "gigachat3": 'function call<|role_sep|>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}',
    "solar_open": '<|tool_calls|><|tool_call:begin|><|tool_call:name|>get_weather<|tool_call:args|>{"city": "Paris", "days": 3}<|tool_call:end|>',
    "hy3": "<tool_calls:opensource><tool_call:opensource>get_weather<tool_sep:opensource><arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Paris</arg_value:opensource><arg_key:opensource>days</arg_key:opensource><arg_value:opensource>3</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
    "hy3_plain": "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call></tool_calls>",
    # HY v4 writes no <tool_sep>: the name ends at the first <arg_key>.
    "hy4": "<tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Paris</arg_value:opensource><arg_key:opensource>days</arg_key:opensource><arg_value:opensource>3</arg_value:opensource></tool_call:opensource></tool_calls:opensource>",
    "hy4_plain": "<tool_calls><tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></tool_call></tool_calls>",
    "minicpm5": '<function name="get_weather">\n<param name="city">Paris</param>\n<param name="days">3</param>\n</function>',
    # Values are verbatim (their whitespace is data), so the tag writes no newline between the tags.
    "step3": '<｜tool_calls_begin｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter><steptml:parameter name="days">3</steptml:parameter></steptml:invoke><｜tool_calls_end｜>',
    "solar_open2": "<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Paris<|tool_arg:end|><|tool_arg:start|>days<|tool_arg:value|>3<|tool_arg:end|><|tool_call:end|>",
    "kimi_k3": '<|open|>tools<|sep|><|open|>call tool="get_weather"<|sep|><|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|open|>argument key="days" type="integer"<|sep|>3<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
    "muse": '<atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris</atem:parameter>\n<atem:parameter name="days">3</atem:parameter>\n</atem:invoke>\n</atem:function_calls>',
    "gigachat35": f'<{G}tool_calls><{G}invoke name="get_weather"><{G}parameter name="city" string="true">Paris</{G}parameter><{G}parameter name="days" string="false">3</{G}parameter></{G}invoke></{G}tool_calls>',
    "ernie45": '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>',
    "granite_20b_fc": '<function_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}',
    "inkling": '<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Paris", "days": 3}}<|end_message|>',
    # Values are stripped, so the tag writes a newline after each tag as the template does.
    "dots": '<dots_function_call><invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n<parameter name="days">3</parameter>\n</invoke></dots_function_call>',
    "k2_horizon": "<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value><ifm|arg_key>days</ifm|arg_key><ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
    "k2_v3": "<ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value><ifm|arg_key>days</ifm|arg_key><ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
    # Values are verbatim (their whitespace is data), so the tag writes no newline between the tags.
    "iquest_q1": "<iquest_tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></iquest_tool_call>",
    "iquest_coder_v2": "<iquestcoder_tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value><arg_key>days</arg_key><arg_value>3</arg_value></iquestcoder_tool_call>",
    # Values are stripped, so the tag writes a newline after the name and after each value.
    "telechat4": "<tool_call>get_weather\n<param_key>city</param_key><param_value>Paris</param_value>\n<param_key>days</param_key><param_value>3</param_value>\n</tool_call>",
    "glm53_flash": '<tool_call>get_weather>{"city": "Paris", "days": 3}',
    "plamo3": '<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Paris", "days": 3}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>',
    # Values are JSON (a string quoted) and stripped: a newline after the name and after each value.
    "hyperclovax_seed_think": '<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>"Paris"</arg_value>\n<arg_key>days</arg_key><arg_value>3</arg_value>\n</tool_call>',
    "hyperclovax_seed_think_14b": '-> tool/function_call\n[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]',
    "qwen25_coder": '<tools>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tools>',
    "rwkv": '**Tool Call:**{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}',
}

# The xgrammar / vLLM tag of vLLM's own parser for the family.
VLLM_KEYS = {
    "hermes": "hermes",
    "qwen3_coder": "qwen_3_coder",
    "glm45": "glm_4_7",
    "kimi_k2": "kimi",
    "minimax": "minimax",
    "deepseek_v3": "deepseek_r1",
    "deepseek_v31": "deepseek_v3_1",
    "deepseek_dsml": "deepseek_v3_2",
    "longcat": "longcat",
}
# vLLM's "required" tags for these start with newlines the model writes before the section.
VLLM_LEAD = {"minimax": "\n", "deepseek_dsml": "\n\n"}


def accepts(tag: Any, text: str) -> bool:
    return bool(_is_grammar_accept_string(xgr.Grammar.from_structural_tag(json.dumps(tag)), text))


def full(tag: Any) -> Any:
    """A tag with xgrammar's defaults filled in, as vLLM serialises it."""
    return xgr.StructuralTag.model_validate(tag).model_dump()


def parsed(fmt: str, text: str) -> list[tuple[str, Any]]:
    parser = adapter.TOOL_PARSERS[f"streamparse_{fmt}"](marker_tokenizer())
    result = parser.extract_tool_calls(text, chat_request(tools=[WEATHER, PING]))
    return [(c.function.name, json.loads(c.function.arguments)) for c in result.tool_calls]


def test_every_format_with_a_declaration_or_writer_has_a_hand_written_call() -> None:
    assert {f for f in formats.names() if declaration_for(f) is not None} == set(TEXTS)
    assert {f for f in formats.names() if has_tag(f)} == set(TEXTS) | {"harmony"}


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_the_tag_s_text_is_accepted_by_its_grammar_and_parses_back_to_the_call(fmt: str) -> None:
    decl = declaration_for(fmt)
    assert decl is not None
    text = TEXTS[fmt]
    for choice in ("required", "forced"):
        assert accepts(structural_tag(decl, [TOOL], choice), text), choice
    assert accepts(structural_tag(decl, [TOOL, Tool("ping")], "required"), text)
    assert accepts(structural_tag(decl, [TOOL], "auto"), "Sure. " + text)
    assert parsed(fmt, text) == [CALL]


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_the_grammar_rejects_a_call_the_parser_would_reject(fmt: str) -> None:
    decl = declaration_for(fmt)
    assert decl is not None
    assert not accepts(structural_tag(decl, [TOOL], "required"), TEXTS[fmt].replace("get_weather", "get_wether"))
    assert not accepts(structural_tag(decl, [TOOL], "required"), "Sure.")


@pytest.mark.parametrize("fmt", sorted(VLLM_KEYS))
def test_vllm_s_own_grammar_for_the_family_accepts_the_same_text(fmt: str) -> None:
    tag = get_model_structural_tag(VLLM_KEYS[fmt], chat_request(tools=[WEATHER]).tools, "required", False)
    assert tag is not None
    assert accepts(tag.model_dump(), VLLM_LEAD.get(fmt, "") + TEXTS[fmt])


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_vllm_s_parser_hands_on_the_declaration_s_tag_for_required_and_a_named_tool(fmt: str) -> None:
    cls = ParserManager.get_parser(tool_parser_name=f"streamparse_{fmt}", enable_auto_tools=True)
    decl = declaration_for(fmt)
    assert decl is not None
    out = cls(marker_tokenizer(), [WEATHER]).adjust_request(chat_request(tools=[WEATHER], tool_choice="required"))
    assert out.structured_outputs is not None and out.structured_outputs.structural_tag is not None
    assert json.loads(out.structured_outputs.structural_tag) == full(structural_tag(decl, [TOOL], "required"))
    named = chat_request(tools=[WEATHER, PING])
    named.tool_choice = ChatCompletionNamedToolChoiceParam(function={"name": "get_weather"})
    out = cls(marker_tokenizer(), [WEATHER, PING]).adjust_request(named)
    assert out.structured_outputs is not None and out.structured_outputs.structural_tag is not None
    assert json.loads(out.structured_outputs.structural_tag) == full(structural_tag(decl, [TOOL], "forced"))


def test_auto_gets_a_tag_only_with_strict_tools_as_with_vllm_s_parsers() -> None:
    cls = ParserManager.get_parser(tool_parser_name="streamparse_hermes", enable_auto_tools=True)
    loose = {"type": "function", "function": {"name": "get_weather", "parameters": PARAMS}}
    out = cls(marker_tokenizer(), [loose]).adjust_request(chat_request(tools=[loose], tool_choice="auto"))
    assert out.structured_outputs is None or out.structured_outputs.structural_tag is None
    out = cls(marker_tokenizer(), [WEATHER]).adjust_request(chat_request(tools=[WEATHER], tool_choice="auto"))
    assert out.structured_outputs is not None
    hermes = declaration_for("hermes")
    assert hermes is not None
    assert json.loads(out.structured_outputs.structural_tag) == full(structural_tag(hermes, [TOOL], "auto"))


def test_a_format_without_a_declaration_gets_vllm_s_json_schema_constraint_not_an_error() -> None:
    for fmt in ("pythonic",):
        cls = ParserManager.get_parser(tool_parser_name=f"streamparse_{fmt}", enable_auto_tools=True)
        out = cls(marker_tokenizer(), [WEATHER]).adjust_request(chat_request(tools=[WEATHER], tool_choice="required"))
        assert out.structured_outputs is not None and out.structured_outputs.structural_tag is None
        assert out.structured_outputs.json is not None


def test_a_user_s_declared_format_gets_its_tag_and_a_vllm_parser() -> None:
    decl = formats.load(
        {
            "name": "x_tagged_calls",
            "call": {
                "open": "<<call ",
                "close": "<</call>>",
                "name": {"kind": "header", "end": ">>"},
                "arguments": {"kind": "tagged", "open": "<<arg ", "key_end": ">>", "close": "<</arg>>"},
            },
        }
    )
    formats.register(decl)
    try:
        adapter.register()
        text = "<<call get_weather>>\n<<arg city>>\nParis\n<</arg>>\n<<arg days>>\n3\n<</arg>>\n<</call>>"
        assert declaration_for("x_tagged_calls") == decl
        assert accepts(structural_tag(decl, [TOOL], "required"), text)
        calls = streamparse.parse(text, [decl.name], tools=[WEATHER]).tool_calls
        assert [(c.name, c.arguments) for c in calls] == [CALL]
        assert parsed("x_tagged_calls", text) == [CALL]
    finally:
        formats.unregister("x_tagged_calls")


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_sglang_constrains_required_and_named_calls_with_the_declaration_s_tag(fmt: str) -> None:
    from sglang.srt.entrypoints.openai.protocol import Tool as SglTool
    from sglang.srt.entrypoints.openai.protocol import ToolChoice
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    from streamparse.integrations import sglang

    sglang.register()
    decl = declaration_for(fmt)
    assert decl is not None
    tools = [SglTool.model_validate(WEATHER), SglTool.model_validate(PING)]
    parser = FunctionCallParser(tools, f"streamparse_{fmt}")
    assert parser.owns_tool_format()  # SGLang then reads required/named output with this detector
    kind, tag = parser.get_structure_constraint("required")
    assert kind == "structural_tag"
    assert tag.model_dump() == full(
        structural_tag(decl, [TOOL, Tool("ping", PING["function"]["parameters"], False)], "required")
    )
    kind, tag = parser.get_structure_constraint(ToolChoice(function={"name": "get_weather"}), parallel_tool_calls=False)
    assert kind == "structural_tag" and accepts(tag.model_dump(), TEXTS[fmt])
    assert not accepts(tag.model_dump(), TEXTS[fmt] + TEXTS[fmt])
    assert [(c.name, json.loads(c.parameters)) for c in parser.parse_non_stream(TEXTS[fmt])[1]] == [CALL]


def test_sglang_s_multi_format_detector_keeps_the_json_schema_constraint() -> None:
    from sglang.srt.entrypoints.openai.protocol import Tool as SglTool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    from streamparse.integrations import sglang

    sglang.register()
    parser = FunctionCallParser([SglTool.model_validate(WEATHER)], "streamparse")
    assert not parser.owns_tool_format()
    assert parser.get_structure_constraint("required")[0] == "json_schema"


ALL_REQUIRED = {**PARAMS, "required": ["city", "days"]}
ID_SAMPLES = ("", "0", ":0", "call_1")


def render(node: dict[str, Any], args: dict[str, Any], out: str = "") -> str:
    """The text a tag lets the model write for one call of one tool whose arguments are all required: each
    value goes where the grammar asks for it (the argument named last before it, or the whole object)."""
    kind = node["type"]
    if kind == "const_string":
        return out + node["value"]
    if kind in ("sequence", "tag"):
        out += node.get("begin", "")
        for child in node.get("elements", [node.get("content")]):
            out = render(child, args, out)
        return out + node.get("end", "")
    if kind in ("tags_with_separator", "triggered_tags"):
        return render(node["tags"][0], args, out + ("Sure. " if kind == "triggered_tags" else ""))
    if kind == "regex":
        return out + next(s for s in ID_SAMPLES if re.fullmatch(node["pattern"], s))
    schema = node.get("json_schema")
    if kind == "json_schema" and (schema is True or "properties" in schema):
        return out + json.dumps(args)
    key = max(args, key=out.rfind)  # the argument whose name was written last
    return out + (args[key] if kind == "any_text" else json.dumps(args[key]))


# Python call expressions have no tag (their arguments are Python literals, not JSON): tested below.
TAGGED = sorted(k for k, ex in EXAMPLES.items() if not isinstance(ex.decl.call.name, PythonName))


@pytest.mark.parametrize("example", TAGGED)
def test_a_tag_built_from_any_declared_structure_writes_what_the_parser_reads(example: str) -> None:
    decl = EXAMPLES[example].decl
    tool = Tool("get_weather", ALL_REQUIRED)
    tag = structural_tag(decl, [tool], "required")
    assert tag is not None
    text = render(tag["format"], dict(CALL[1]))
    assert accepts(tag, text), text
    assert accepts(
        structural_tag(decl, [tool], "auto"), render(structural_tag(decl, [tool], "auto")["format"], CALL[1])
    )
    formats.register(decl)
    try:
        result = streamparse.parse(
            text,
            [decl.name],
            tools=[{"type": "function", "function": {"name": "get_weather", "parameters": ALL_REQUIRED}}],
        )
        assert [(c.name, c.arguments) for c in result.tool_calls] == [CALL], text
    finally:
        formats.unregister(decl.name)


@pytest.mark.parametrize("fmt", sorted(TEXTS))
def test_the_rendered_call_of_every_format_parses_back(fmt: str) -> None:
    decl = declaration_for(fmt)
    assert decl is not None
    tag = structural_tag(decl, [Tool("get_weather", ALL_REQUIRED)], "required")
    assert tag is not None
    text = render(tag["format"], dict(CALL[1]))
    assert accepts(tag, text)
    assert parsed(fmt, text) == [CALL], text


# -- harmony: a writer of the whole message stream (its channels are not in the declaration vocabulary) ------

HARMONY_ARGS = '{"city": "Paris", "days": 3}'
HARMONY_CALLS = [
    f"<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{HARMONY_ARGS}<|call|>",
    f" to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{HARMONY_ARGS}<|call|>",
    f" to=functions.get_weather<|channel|>commentary json<|message|>{HARMONY_ARGS}<|call|>",
]
THOUGHT = "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant"


@pytest.mark.parametrize("call", HARMONY_CALLS)
def test_harmony_s_tag_accepts_each_header_spelling_after_reasoning_and_it_parses_back(call: str) -> None:
    for choice in ("required", "forced", "auto"):
        tag = format_tag("harmony", [TOOL], choice)
        assert tag is not None and accepts(tag, call) and accepts(tag, THOUGHT + call), choice
        assert not accepts(tag, call.replace("get_weather", "get_wether")), choice
    assert not accepts(format_tag("harmony", [TOOL], "required"), "<|channel|>final<|message|>Hi.<|end|>")
    assert accepts(format_tag("harmony", [TOOL], "auto"), "<|channel|>final<|message|>Hi.<|end|>")
    one = format_tag("harmony", [TOOL], "required", parallel=False)
    assert not accepts(one, call + "<|start|>assistant" + HARMONY_CALLS[0])
    assert accepts(format_tag("harmony", [TOOL], "required"), call + "<|start|>assistant" + HARMONY_CALLS[0])
    assert parsed("harmony", THOUGHT + call) == [CALL]


def test_vllm_s_parser_hands_on_harmony_s_tag() -> None:
    cls = ParserManager.get_parser(tool_parser_name="streamparse_harmony", enable_auto_tools=True)
    out = cls(marker_tokenizer(), [WEATHER]).adjust_request(chat_request(tools=[WEATHER], tool_choice="required"))
    assert out.structured_outputs is not None and out.structured_outputs.structural_tag is not None
    assert json.loads(out.structured_outputs.structural_tag) == full(format_tag("harmony", [TOOL], "required"))


# -- the multi-format parser (`--tool-parser streamparse`) ---------------------------------------------------


def _streamparse_tag(model: str, choice: str = "required") -> Any:
    cls = ParserManager.get_parser(tool_parser_name="streamparse", enable_auto_tools=True)
    out = cls(marker_tokenizer(), [WEATHER]).adjust_request(
        chat_request(model=model, tools=[WEATHER], tool_choice=choice)
    )
    assert out.structured_outputs is not None and out.structured_outputs.structural_tag is not None
    return json.loads(out.structured_outputs.structural_tag)


def test_the_multi_format_parser_uses_the_served_model_s_format_when_its_preset_knows_it() -> None:
    assert _streamparse_tag("Qwen/Qwen3-8B") == full(format_tag("hermes", [TOOL], "required"))
    assert _streamparse_tag("moonshotai/Kimi-K2-Instruct") == full(format_tag("kimi_k2", [TOOL], "required"))


AUTO_SET = [f for f in streamparse.StreamParser().formats if f in TEXTS]


def test_an_unknown_model_gets_one_tag_for_the_calls_of_every_format_it_parses() -> None:
    tag = _streamparse_tag("some-org/unknown-model")
    assert tag == full(any_format_tag(streamparse.StreamParser().formats, [TOOL], "required"))
    for fmt in AUTO_SET:
        assert accepts(tag, TEXTS[fmt]), fmt
        assert not accepts(tag, TEXTS[fmt].replace("get_weather", "get_wether")), fmt
    assert not accepts(tag, "Sure.")


def test_the_any_format_auto_tag_lets_text_run_until_a_format_s_trigger() -> None:
    tag = any_format_tag(streamparse.StreamParser().formats, [TOOL], "auto")
    assert tag is not None
    assert accepts(tag, "No call needed.")
    triggered = [f for f in AUTO_SET if f != "solar_open"]  # open-ended section: left out (docstring)
    for fmt in triggered:
        assert accepts(tag, "Sure. " + TEXTS[fmt]), fmt


@pytest.mark.parametrize("fmt", AUTO_SET)
def test_what_the_any_format_tag_accepts_the_multi_format_parser_reads_back(fmt: str) -> None:
    parser = adapter.TOOL_PARSERS["streamparse"](marker_tokenizer())
    result = parser.extract_tool_calls(TEXTS[fmt], chat_request(model="some-org/unknown-model", tools=[WEATHER, PING]))
    assert [(c.function.name, json.loads(c.function.arguments)) for c in result.tool_calls] == [CALL]


@pytest.mark.parametrize("example", sorted(set(EXAMPLES) - set(TAGGED)))
def test_a_python_call_list_gets_no_tag_so_the_engine_falls_back_to_its_own_constraint(example: str) -> None:
    decl = EXAMPLES[example].decl
    assert isinstance(decl.call.name, PythonName)
    with pytest.raises(ValueError, match="Python call expressions have no structural tag"):
        structural_tag(decl, [Tool("get_weather", ALL_REQUIRED)], "required")
    formats.register(decl)
    try:
        assert not has_tag(decl.name)
        assert format_tag(decl.name, [Tool("get_weather", ALL_REQUIRED)], "required") is None
    finally:
        formats.unregister(decl.name)
