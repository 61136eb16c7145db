"""SGLang's item shapes and typed values through the streamparse detector (issue 22)."""

from __future__ import annotations

import json

import pytest
from sglang.srt.entrypoints.openai.protocol import Tool

from streamparse.integrations.sglang import DETECTORS, detector_for

TOOLS = [
    Tool.model_validate(
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                },
            },
        }
    )
]
QWEN_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"


def test_a_call_streams_a_name_only_item_first_then_nameless_fragments() -> None:
    detector = DETECTORS["streamparse_qwen3_coder"]()
    items = [
        c for chunk in (QWEN_CALL[:40], QWEN_CALL[40:]) for c in detector.parse_streaming_increment(chunk, TOOLS).calls
    ]
    items += detector.finish(TOOLS).calls
    assert (items[0].name, items[0].parameters) == ("get_weather", "")
    assert all(c.name is None and c.tool_index == 0 for c in items[1:])
    assert json.loads("".join(c.parameters for c in items)) == {"city": "Paris", "days": 3}


def test_the_request_s_parameter_schemas_type_the_values() -> None:
    result = DETECTORS["streamparse_qwen3_coder"]().detect_and_parse(QWEN_CALL, TOOLS)
    assert [(c.name, json.loads(c.parameters)) for c in result.calls] == [("get_weather", {"city": "Paris", "days": 3})]


def _tools(name: str, properties: dict[str, object]) -> list[Tool]:
    spec = {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}
    return [Tool.model_validate(spec)]


def _stream(fmt: str, chunks: list[str], tools: list[Tool]) -> tuple[str, list[tuple[int, str | None, str]]]:
    detector = DETECTORS[f"streamparse_{fmt}"]()
    results = [detector.parse_streaming_increment(c, tools) for c in chunks] + [detector.finish(tools)]
    return "".join(r.normal_text for r in results), [
        (c.tool_index, c.name, c.parameters) for r in results for c in r.calls
    ]


def test_a_rejected_call_s_markup_is_handed_back_as_text_one_shot() -> None:
    # SGLang's API has no rejection: its detectors hand the markup back as text, never as a call.
    text = "<tool_call>not valid json</tool_call>"
    result = DETECTORS["streamparse_hermes"]().detect_and_parse(text, TOOLS)
    assert (result.normal_text, result.calls) == (text, [])


def test_a_rejected_call_s_markup_streams_as_text_when_nothing_of_it_was_sent() -> None:
    text, items = _stream("hermes", ["Hi <tool_call>not valid", " json</tool_call> bye"], TOOLS)
    assert (text, items) == ("Hi <tool_call>not valid json</tool_call> bye", [])


def test_after_its_name_was_sent_a_rejected_call_s_markup_stays_out_of_the_text() -> None:
    text, items = _stream("hermes", ['<tool_call>{"name": "get_weather", "arguments": ', "{oops}}</tool_call>"], TOOLS)
    assert items[0][1] == "get_weather"
    assert "<tool_call>" not in text


def test_mistral_drops_a_rejected_call_s_markup_as_sglang_s_mistral_detector_does() -> None:
    result = DETECTORS["streamparse_mistral"]().detect_and_parse("[TOOL_CALLS] [not valid json]", TOOLS)
    assert (result.normal_text, result.calls) == ("", [])


DS_CALL = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'


def test_deepseek_v3_sends_a_call_as_a_name_item_then_its_whole_arguments_once_complete() -> None:
    # SGLang's DeepSeek V3 and Mistral detectors send nothing of a call before it is complete.
    chunks = [DS_CALL[i : i + 7] for i in range(0, len(DS_CALL), 7)]
    _, items = _stream("deepseek_v3", chunks, TOOLS)
    assert items == [(0, "get_weather", ""), (0, None, '{"city": "Paris"}')]


def test_mistral_compact_calls_are_sent_whole_once_complete() -> None:
    _, items = _stream("mistral", ["[TOOL_CALLS]get_weather[ARGS]", '{"city": ', '"Paris"}'], TOOLS)
    assert items == [(0, "get_weather", ""), (0, None, '{"city": "Paris"}')]


def test_structure_info_is_the_text_around_the_arguments_as_the_declaration_writes_it() -> None:
    hermes = DETECTORS["streamparse_hermes"]().structure_info()("get_weather")
    assert (hermes.begin, hermes.end, hermes.trigger) == (
        '<tool_call>{"name": "get_weather", "arguments": ',
        "}</tool_call>",
        "<tool_call>",
    )
    ds = DETECTORS["streamparse_deepseek_v3"]().structure_info()("get_weather")
    assert ds.begin + '{"city": "Paris"}' + ds.end == DS_CALL
    assert ds.trigger == "<｜tool▁calls▁begin｜>"


def test_a_format_without_a_fixed_pair_has_no_structure_info() -> None:
    with pytest.raises(NotImplementedError):
        DETECTORS["streamparse_pythonic"]().structure_info()


def test_a_detector_of_several_formats_has_no_tag_and_parses_required_natively() -> None:
    # A tag built from one spelling (HY3's bare tokens) would forbid the other (its suffixed tokens).
    detector = detector_for(("hy3_plain", "hy3"))()
    assert not detector.supports_structural_tag()
    assert detector.parses_required_natively()
    assert detector.get_structural_tag(TOOLS, "required") is None
    single = DETECTORS["streamparse_hy3_plain"]()
    assert single.supports_structural_tag() and not single.parses_required_natively()


def test_gigachat_drops_a_call_whose_arguments_are_not_an_object() -> None:
    text = 'function call<|role_sep|>\n{"name": "get_weather", "arguments": "Paris"}'
    assert DETECTORS["streamparse_gigachat3"]().detect_and_parse(text, TOOLS).calls == []


def test_minicpm5_rejects_a_parameter_the_tool_does_not_declare() -> None:
    tools = _tools("get_weather", {"city": {"type": "string"}})
    text = '<function name="get_weather"><param name="City">Paris</param></function>\n'
    result = DETECTORS["streamparse_minicpm5"]().detect_and_parse(text, tools)
    assert result.calls == [] and 'name="City"' in result.normal_text
    ok = DETECTORS["streamparse_minicpm5"]().detect_and_parse(text.replace("City", "city"), tools)
    assert [(c.name, json.loads(c.parameters)) for c in ok.calls] == [("get_weather", {"city": "Paris"})]
