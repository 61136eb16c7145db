"""Families and variants real outputs show (issue 10 items 3-5), each under every chunking."""

from __future__ import annotations

import pytest
from invariants import calls, check_stream, reasons

from streamparse import StreamParser
from streamparse.presets import start_in_reasoning_for

ARGS = '{"city": "Paris"}'


def test_harmony_call_at_the_very_start_of_the_output() -> None:
    for header in ("commentary json", "commentary <|constrain|>json"):
        text = f" to=functions.get_weather<|channel|>{header}<|message|>{ARGS}<|call|>"
        for formats in ("auto", ["harmony"]):
            result = check_stream(text, formats=formats)
            assert calls(result) == [("get_weather", {"city": "Paris"})]
            assert result.text.strip() == ""


def test_harmony_recipient_after_prose_is_text() -> None:
    result = check_stream("Write to=functions.x in the header.", formats=["harmony"])
    assert calls(result) == [] and result.text == "Write to=functions.x in the header."


def test_nemotron_toolcall_list_and_object() -> None:
    text = (
        f'Let me check.<TOOLCALL>[{{"name": "a", "arguments": {ARGS}}}, {{"name": "b", "arguments": {{}}}}]</TOOLCALL>'
    )
    result = check_stream(text)
    assert calls(result) == [("a", {"city": "Paris"}), ("b", {})]
    assert result.text == "Let me check."
    assert calls(check_stream(f'<TOOLCALL>{{"name": "a", "arguments": {ARGS}}}</TOOLCALL>')) == [
        ("a", {"city": "Paris"})
    ]


def test_nemotron_nano_preset_ends_primed_reasoning_at_the_call() -> None:
    parser = StreamParser.for_model("nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    text = f'Thinking.\n</think>\n\n<TOOLCALL>[{{"name": "a", "arguments": {ARGS}}}]</TOOLCALL>'
    result = check_stream(text, formats=list(parser.formats), start_in_reasoning=True)
    assert calls(result) == [("a", {"city": "Paris"})] and result.reasoning.strip() == "Thinking."


def test_phi4_mini_own_tokens_beside_functools() -> None:
    text = f'<|tool_call|>{{"name": "a", "arguments": {ARGS}}}<|/tool_call|><|tool_call|>{{"name": "b", "arguments": {{}}}}<|/tool_call|>'
    for formats in (["phi4_mini"], "auto"):
        result = check_stream(text, formats=formats)
        assert calls(result) == [("a", {"city": "Paris"}), ("b", {})]
        assert result.text == ""


def test_lfm2_tokens_with_a_json_list_inside() -> None:
    text = f'<|tool_call_start|>[{{"name": "a", "arguments": {ARGS}, "id": "call_0"}}]<|tool_call_end|>Done.'
    result = check_stream(text, formats=["pythonic"])
    assert calls(result) == [("a", {"city": "Paris"})] and result.text == "Done."


def test_deepseek_r1_short_section_opener() -> None:
    text = "<｜tool▁calls｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>a\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    assert calls(check_stream(text, formats=["deepseek_v3"])) == [("a", {})]


def test_gemma4_tool_response_token_is_never_text() -> None:
    text = '<|tool_call>call:a{city:<|"|>Paris<|"|>}<tool_call|><|tool_response>'
    result = check_stream(text, formats=["gemma4"])
    assert calls(result) == [("a", {"city": "Paris"})] and result.text == ""


def test_several_call_objects_in_one_hermes_block() -> None:
    text = f'<tool_call>{{"name": "a", "arguments": {ARGS}}}, {{"name": "b", "arguments": {{}}}}</tool_call>'
    assert calls(check_stream(text, formats=["hermes"])) == [("a", {"city": "Paris"}), ("b", {})]
    listed = f'<tool_call>[{{"name": "a", "arguments": {ARGS}}}, {{"name": "b", "arguments": {{}}}}]</tool_call>'
    assert calls(check_stream(listed, formats=["hermes"])) == [("a", {"city": "Paris"}), ("b", {})]


@pytest.mark.parametrize("call_id", ["functions.get_weather:0", "get_weather:3"])
def test_kimi_ids_name_index(call_id: str) -> None:
    text = f"<|tool_calls_section_begin|><|tool_call_begin|>{call_id}<|tool_call_argument_begin|>{ARGS}<|tool_call_end|><|tool_calls_section_end|>"
    assert calls(check_stream(text, formats=["kimi_k2"])) == [("get_weather", {"city": "Paris"})]


def test_kimi_id_without_index_is_malformed_not_a_call() -> None:
    text = f"<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather.0<|tool_call_argument_begin|>{ARGS}<|tool_call_end|><|tool_calls_section_end|>"
    result = check_stream(text, formats=["kimi_k2"])
    assert calls(result) == [] and reasons(result) == ["malformed"] and result.text == ""


def test_firefunction_has_its_own_preset_ahead_of_llama() -> None:
    parser = StreamParser.for_model("fireworks-ai/llama-3-firefunction-v2")
    result = check_stream(f' functools[{{"name": "a", "arguments": {ARGS}}}]', formats=list(parser.formats))
    assert calls(result) == [("a", {"city": "Paris"})]


def test_presets_keep_sibling_formats_that_share_an_opener() -> None:
    parser = StreamParser.for_model("Qwen/Qwen3-8B")
    assert {"hermes", "qwen3_coder"} <= set(parser.formats)
    text = "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>"
    result = check_stream(text, formats=list(parser.formats))
    assert calls(result) == [("f", {"x": "1"})] and result.text == ""


@pytest.mark.parametrize(
    ("model", "kwargs", "expected"),
    [
        ("Qwen/Qwen3.5-4B", None, True),
        ("Qwen/Qwen3.5-4B", {"enable_thinking": False}, False),
        ("deepseek-ai/DeepSeek-V3.1", None, False),
        ("deepseek-ai/DeepSeek-V3.1", {"thinking": True}, True),
        ("Qwen/Qwen3-8B", {"enable_thinking": True}, False),  # hybrid Qwen3 writes <think> itself
        ("zai-org/GLM-4.7", {"enable_thinking": False}, False),
    ],
)
def test_the_request_decides_whether_the_output_starts_in_reasoning(
    model: str, kwargs: dict[str, bool] | None, expected: bool
) -> None:
    assert start_in_reasoning_for(model, kwargs) is expected
    parser = StreamParser.for_model(model, chat_template_kwargs=kwargs)
    assert parser._config.start_in_reasoning is expected


def test_a_closed_tool_call_block_nobody_can_read_is_rejected_not_shown() -> None:
    result = check_stream("<tool_call>not json</tool_call> after", formats=["hermes"])
    assert calls(result) == [] and reasons(result) == ["malformed"] and result.text == "after"
    xml = "<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>"
    assert reasons(check_stream(xml, formats=["hermes"])) == ["malformed"]  # known markup, format off


def test_a_tool_call_tag_mentioned_in_prose_stays_text() -> None:
    text = "I use <tool_call> tags for calls."
    result = check_stream(text, formats=["hermes"])
    assert result.text == text and result.rejected == []
