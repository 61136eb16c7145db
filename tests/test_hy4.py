"""Tencent HY v4 (vLLM's hy_v4 tool and reasoning parsers): the cases of vLLM's
tests/tool_parsers/test_hy_v4_tool_parser.py and tests/reasoning/test_hy_v4_reasoning_parser.py
(vllm-project/vllm 212dfd8, bdf086c; parsers read at 055e47c), through the ``hy4`` preset, whole and under every
chunking. What differs from Hy3: no ``<tool_sep>`` (the name ends at the first ``<arg_key>`` or at the
call's closer) and the prompt thinks unless ``reasoning_effort`` is ``"no_think"`` (Hy3: only when an
effort is given)."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import calls, check_stream

from streamparse import StreamParser, formats
from streamparse.presets import preset_for, start_in_reasoning_for

MODEL = "tencent/Hy4-preview"
TOOLS: dict[str, Any] = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
    "get_current_date": {"type": "object", "properties": {}},
}


def _markup(suffix: str) -> tuple[Any, Any, Any]:
    def arg(key: str, value: str) -> str:
        return f"<arg_key{suffix}>{key}</arg_key{suffix}><arg_value{suffix}>{value}</arg_value{suffix}>"

    def call(name: str, args: str = "") -> str:
        return f"<tool_call{suffix}>{name}{args}</tool_call{suffix}>"

    def block(body: str) -> str:
        return f"<tool_calls{suffix}>{body}</tool_calls{suffix}>"

    return arg, call, block


def _run(text: str, **options: Any) -> Any:
    """``check_stream`` with the formats ``for_model`` turns on (the preset's and those sharing its openers:
    hy3, hermes... are on too)."""
    formats = StreamParser.for_model(MODEL).formats
    settings: dict[str, Any] = {"formats": formats, "tools": TOOLS, "start_in_reasoning": False}
    settings.update(options)
    return check_stream(text, **settings)


@pytest.mark.parametrize("suffix", [":opensource", ""])
def test_hy4_calls_have_no_tool_sep_and_are_typed_by_the_schema(suffix: str) -> None:
    arg, call, block = _markup(suffix)
    text = "sure!" + block(call("get_weather", arg("city", "Beijing") + arg("days", "3")))
    result = _run(text)
    assert calls(result) == [("get_weather", {"city": "Beijing", "days": 3})]
    assert result.text == "sure!"


@pytest.mark.parametrize("suffix", [":opensource", ""])
def test_hy4_zero_argument_and_several_calls_keep_their_order(suffix: str) -> None:
    arg, call, block = _markup(suffix)
    result = _run(block(call("get_weather", arg("city", "A")) + call("get_current_date")))
    assert calls(result) == [("get_weather", {"city": "A"}), ("get_current_date", {})]
    assert result.text == ""


def test_hy4_values_are_verbatim_text() -> None:
    arg, call, block = _markup(":opensource")
    result = _run(block(call("get_weather", arg("city", " 北京 "))))
    assert calls(result) == [("get_weather", {"city": " 北京 "})]


def test_hy4_section_split_across_chunks_is_still_a_call() -> None:
    """vLLM's test_structural_tokens_split_across_deltas: layout inside the section is not content."""
    arg, call, block = _markup(":opensource")
    result = _run("hi" + block("\n  " + call("get_weather", arg("city", "Beijing"))))
    assert calls(result) == [("get_weather", {"city": "Beijing"})]
    assert result.text == "hi"


def test_hy4_cut_call_is_never_returned() -> None:
    arg, _, _ = _markup(":opensource")
    result = _run("<tool_calls:opensource><tool_call:opensource>get_weather" + arg("city", "X"))
    assert calls(result) == []
    assert [r.reason for r in result.rejected] == ["truncated"]
    assert result.text == ""


def test_hy4_an_empty_name_is_rejected() -> None:
    """vLLM's strict mode returns such output as content; here the block is a failed call, never text."""
    _, call, block = _markup(":opensource")
    result = _run(block(call("")))
    assert (calls(result), [r.reason for r in result.rejected], result.text) == ([], ["malformed"], "")


@pytest.mark.parametrize(
    ("text", "reasoning", "visible"),
    [
        ("<think>abc</think>def", "abc", "def"),  # the opener written by the model too
        ("abc</think>def", "abc", "def"),  # the opener in the prompt (the default)
        ("<think:opensource>abc</think:opensource>def", "abc", "def"),
        ("abc</think:opensource>def", "abc", "def"),
    ],
)
def test_hy4_reasoning_is_primed_by_default(text: str, reasoning: str, visible: str) -> None:
    assert start_in_reasoning_for(MODEL)
    result = _run(text, start_in_reasoning=True)
    assert (result.reasoning, result.text) == (reasoning, visible)


def test_reasoning_effort_decides_whether_hy3_and_hy4_think() -> None:
    assert not start_in_reasoning_for(MODEL, {"reasoning_effort": "no_think"})
    assert start_in_reasoning_for(MODEL, {"reasoning_effort": "low"})
    assert not start_in_reasoning_for("tencent/Hy3-preview")  # Hy3's parser defaults to no_think
    assert start_in_reasoning_for("tencent/Hy3-preview", {"reasoning_effort": "high"})
    assert not start_in_reasoning_for("tencent/Hy3-preview", {"reasoning_effort": "no_think"})


def test_the_preset_names_hy4_for_hunyuan_4_ids() -> None:
    for model in (MODEL, "hy4:latest"):
        preset = preset_for(model)
        assert (preset.family, preset.formats, preset.start_in_reasoning) == ("hy4", ("hy4", "hy4_plain"), True)


def test_a_checkpoint_with_its_own_suffix_registers_its_declaration() -> None:
    decl = formats.hy4_declaration(":6124c78e", "hy4_6124c78e")
    formats.register(decl)
    try:
        arg, call, block = _markup(":6124c78e")
        result = check_stream(
            "Plan.</think:6124c78e>" + block(call("get_weather", arg("city", "Paris"))),
            formats=["hy4_6124c78e"],
            start_in_reasoning=True,
        )
        assert calls(result) == [("get_weather", {"city": "Paris"})]
        assert result.reasoning == "Plan."
    finally:
        formats.unregister("hy4_6124c78e")


@pytest.mark.parametrize("formats", ["auto", ["hy3"]])
def test_hy3_reads_hy4_calls_behind_the_shared_opener(formats: Any) -> None:
    """Hy3 and HY v4 share ``<tool_call:opensource>``: where only hy3 is on (``formats="auto"``), HY v4's calls
    (no ``<tool_sep>``) are read as HY v4 calls, inside the section and out."""
    arg, call, block = _markup(":opensource")
    result = check_stream(
        "sure!" + block(call("get_weather", arg("city", "A")) + call("get_current_date")), formats=formats
    )
    assert calls(result) == [("get_weather", {"city": "A"}), ("get_current_date", {})]
    assert [c.format for c in result.tool_calls] == ["hy4", "hy4"]
    assert result.text == "sure!"


def test_the_hy4_preset_still_reads_hy3_calls() -> None:
    text = (
        "<tool_calls:opensource>\n<tool_call:opensource>get_weather<tool_sep:opensource>\n<arg_key:opensource>city"
        "</arg_key:opensource>\n<arg_value:opensource>Paris</arg_value:opensource>\n</tool_call:opensource>\n"
        "</tool_calls:opensource>"
    )
    result = _run(text)
    assert calls(result) == [("get_weather", {"city": "Paris"})]
    assert [c.format for c in result.tool_calls] == ["hy3"]


def test_a_block_neither_shape_reads_is_rejected_not_text() -> None:
    result = _run("<tool_call:opensource>not a name at all</tool_call:opensource>")
    assert (calls(result), [r.reason for r in result.rejected], result.text) == ([], ["malformed"], "")
