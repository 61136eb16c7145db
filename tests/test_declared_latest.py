"""The families of formats/declared_latest.py (HyperCLOVAX-SEED-Think 32B and 14B, Qwen2.5-Coder's <tools>,
RWKV) through their presets, with the formats sharing their openers on as ``for_model`` keeps them, under every
chunking: JSON-written values, the other bodies of ``<tool_call>`` still reaching their formats, the 14B's own
message around its list, values holding markers, cut calls. vLLM's own cases for their parsers are in
tests/data/real/vllm.json (test_real_world.py)."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import calls, check_stream, reasons

from streamparse import formats, parse
from streamparse.formats.declared_latest import DECLARATIONS
from streamparse.presets import preset_for

M32 = "naver-hyperclovax/HyperCLOVAX-SEED-Think-32B"
M14 = "naver-hyperclovax/HyperCLOVAX-SEED-Think-14B"
Q25 = "Qwen/Qwen2.5-Coder-32B-Instruct"
RWKV = "BlinkDL/rwkv7-g1"
_PRESET_IDS = (M32, M14, Q25, RWKV)


def hcx(name: str, **args: str) -> str:
    pairs = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" for k, v in args.items())
    return f"<tool_call>{name}\n{pairs}</tool_call>"


def test_every_latest_family_is_a_catalog_format_with_its_declaration_and_a_preset() -> None:
    named = {f for rule_formats in (preset_for(m).formats for m in _PRESET_IDS) for f in rule_formats}
    for decl in DECLARATIONS:
        assert formats.declaration_of(decl.name) == decl
        assert decl.name in named


CASES: dict[str, tuple[str, str, list[tuple[str, dict[str, Any]]], str, list[str]]] = {
    # (model id, output, calls, visible text, rejection reasons)
    "json_string_value_with_escaped_quotes": (
        M32,
        hcx("note", text='"say \\"hi\\" </arg_value>"'),
        [("note", {"text": 'say "hi" </arg_value>'})],
        "",
        [],
    ),
    "json_values_of_every_type": (
        M32,
        hcx("search", query='"chairs"', limit="3", exact="true", tags='["a", "b"]'),
        [("search", {"query": "chairs", "limit": 3, "exact": True, "tags": ["a", "b"]})],
        "",
        [],
    ),
    "a_value_that_is_not_json_is_its_text": (
        M32,
        hcx("get_weather", city="Seoul, Korea"),
        [("get_weather", {"city": "Seoul, Korea"})],
        "",
        [],
    ),
    "hermes_json_in_tool_call_still_reaches_hermes": (
        M32,
        'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Seoul"}}\n</tool_call>',
        [("get_weather", {"city": "Seoul"})],
        "Sure.",
        [],
    ),
    "qwen3_coder_xml_in_tool_call_still_reaches_qwen3_coder": (
        M32,
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nSeoul\n</parameter>\n</function>\n</tool_call>",
        [("get_weather", {"city": "Seoul"})],
        "",
        [],
    ),
    "cut_in_a_value": (
        M32,
        'Checking.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>"Seo',
        [],
        "Checking.",
        ["truncated"],
    ),
    "14b_text_then_the_tool_message": (
        M14,
        "Let me look.<|im_end|>\n<|im_start|>assistant -> tool/function_call\n"
        '[{"name": "get_weather", "arguments": {"city": "Seoul"}}]<|im_end|>',
        [("get_weather", {"city": "Seoul"})],
        "Let me look.",
        [],
    ),
    "14b_cut_list": (
        M14,
        ' -> tool/function_call\n[{"name": "get_weather", "arguments": {"city": "Seoul"}}, {"name": "get_ti',
        [("get_weather", {"city": "Seoul"})],
        "",
        ["truncated"],
    ),
    "qwen25_coder_block_after_prose_and_a_hermes_call": (
        Q25,
        'Checking both.\n<tools>\n{"name": "get_weather", "arguments": {"city": "Seoul"}}\n</tools>\n'
        '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>',
        [("get_weather", {"city": "Seoul"}), ("get_time", {})],
        "Checking both.",
        [],
    ),
    "qwen25_coder_value_holding_the_closer": (
        Q25,
        '<tools>{"name": "note", "arguments": {"text": "</tools> and <tools>"}}</tools>',
        [("note", {"text": "</tools> and <tools>"})],
        "",
        [],
    ),
    "qwen25_coder_cut_list": (
        Q25,
        '<tools>[{"name": "get_weather", "arguments": {"city": "Seoul"}}, {"name": "get_ti',
        [("get_weather", {"city": "Seoul"})],
        "",
        ["truncated"],
    ),
    "rwkv_label_then_a_fence_holding_backticks": (
        RWKV,
        'Checking.\n**Tool Call:**\n```json\n{"name": "note", "arguments": {"text": "```json\\n{}\\n```"}}\n```',
        [("note", {"text": "```json\n{}\n```"})],
        "Checking.",
        [],
    ),
    "rwkv_cut_fence": (
        RWKV,
        '**Tool Call:**\n```json\n{"name": "get_weather", "arguments": {"city": "Par',
        [],
        "",
        ["truncated"],
    ),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_a_latest_family_parses_through_its_preset_under_every_chunking(key: str) -> None:
    model, text, want, visible, rejected = CASES[key]
    preset = preset_for(model)
    result = check_stream(text, formats=list(formats.siblings(preset.formats)), start_in_reasoning=False)
    assert calls(result) == want
    assert result.text == visible
    assert reasons(result) == rejected


def test_json_written_values_are_read_only_where_the_family_is_named() -> None:
    text = hcx("get_weather", city='"Seoul"')
    assert calls(parse(text, model=M32)) == [("get_weather", {"city": "Seoul"})]
    # GLM-4.5 writes its values raw: the quotes are the value there.
    assert calls(parse(text, model="zai-org/GLM-4.5")) == [("get_weather", {"city": '"Seoul"'})]
