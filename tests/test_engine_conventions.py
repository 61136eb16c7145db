"""Format behaviours the serving-engine adapters rely on (issue 22), pinned on the library itself."""

from __future__ import annotations

import json

import pytest

from streamparse import StreamParser, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallRejected

KIMI_CALL = '<|tool_call_begin|>functions.test:0 <|tool_call_argument_begin|>{"k": "v"} <|tool_call_end|>'


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_kimi_section_end_with_no_section_open_never_reaches_the_text(size: int) -> None:
    # The noise abandons the section, so its end (and a second one later) arrives with no section open.
    text = "Reasoning. <|tool_calls_section_begin|> noise " + KIMI_CALL + "<|tool_calls_section_end|> after"
    text += "<|tool_calls_section_end|>"
    parser = StreamParser(["kimi_k2"])
    events = [e for i in range(0, len(text), size) for e in parser.feed(text[i : i + size])] + parser.close("stop")
    visible = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "<|tool_calls_section_end|>" not in visible
    assert visible.endswith(" after")
    assert [e.call.name for e in events if isinstance(e, ToolCallEnd)] == ["test"]


@pytest.mark.parametrize("size", [1, 2, 1000])
def test_a_python_set_argument_is_a_list_in_the_order_written(size: int) -> None:
    text = '[get_weather(tags={"b", "a", "b"}, n={1, 2.5}, d={"k": {1}})]'
    parser = StreamParser(["pythonic"])
    events = [e for i in range(0, len(text), size) for e in parser.feed(text[i : i + size])] + parser.close("stop")
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.call.arguments for e in ends] == [{"tags": ["b", "a"], "n": [1, 2.5], "d": {"k": [1]}}]
    assert not [e for e in events if isinstance(e, ToolCallRejected)]


@pytest.mark.parametrize("size", [1, 3, 1000])
@pytest.mark.parametrize("closer", ["</tool_call>", "</seed:tool_call>"])
def test_a_qwen3_coder_call_whose_function_closer_is_missing_ends_at_the_block_closer(size: int, closer: str) -> None:
    opener = "<tool_call>" if closer == "</tool_call>" else "<seed:tool_call>"
    fmt = "qwen3_coder" if closer == "</tool_call>" else "seed_oss"
    text = f"{opener}\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n{closer} after"
    parser = StreamParser([fmt])
    events = [e for i in range(0, len(text), size) for e in parser.feed(text[i : i + size])] + parser.close("stop")
    # Values as each template writes them (exact output): Qwen3-Coder's one newline per side is markup,
    # Seed-OSS writes the value verbatim; the space after the block is a separator, not text.
    value = "Paris" if fmt == "qwen3_coder" else "\nParis\n"
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEnd)] == [{"city": value}]
    assert not [e for e in events if isinstance(e, ToolCallRejected)]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "after"


DSML = (
    '<｜DSML｜function_calls>\n<｜DSML｜invoke name="set_alarm">\n'
    '<｜DSML｜parameter name="minutes" string="true">15</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="label" string="true">15</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜function_calls>"
)
ALARM = {
    "type": "function",
    "function": {
        "name": "set_alarm",
        "parameters": {"type": "object", "properties": {"minutes": {"type": "integer"}, "label": {"type": "string"}}},
    },
}


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_a_dsml_string_true_value_is_typed_by_the_schema(size: int) -> None:
    parser = StreamParser(["deepseek_dsml"], tools=[ALARM])
    events = [e for i in range(0, len(DSML), size) for e in parser.feed(DSML[i : i + size])] + parser.close("stop")
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.call.arguments for e in ends] == [{"minutes": 15, "label": "15"}]
    # Without a schema, string="true" is the text it says it is.
    bare = StreamParser(["deepseek_dsml"])
    untyped = [e for e in bare.feed(DSML) + bare.close("stop") if isinstance(e, ToolCallEnd)]
    assert [e.call.arguments for e in untyped] == [{"minutes": "15", "label": "15"}]


def _run(formats: list[str], text: str, size: int) -> list[object]:
    parser = StreamParser(formats)
    return [e for i in range(0, len(text), size) for e in parser.feed(text[i : i + size])] + parser.close("stop")


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_gemma4_call_without_the_call_keyword_is_a_call(size: int) -> None:
    # Gemma 4 output from vLLM issue 53431 (its tests' TestBareAndMalformedOpeners): `<|tool_call>:NAME{`.
    text = 'Hello: world<|tool_call>:get_weather{location:<|"|>Tokyo<|"|>,unit:<|"|>celsius<|"|>}<tool_call|>'
    text += "<|tool_call>:set_status{}<tool_call|>"
    events = _run(["gemma4"], text, size)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.call.name, e.call.arguments) for e in ends] == [
        ("get_weather", {"location": "Tokyo", "unit": "celsius"}),
        ("set_status", {}),
    ]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello: world"


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_a_dsml_json_value_that_does_not_fit_its_schema_is_read_as_text(size: int) -> None:
    # vLLM's DeepSeek V3.2 tests (conversion fallbacks): string="false" values are JSON, fitted to the schema.
    def param(name: str, value: str) -> str:
        return f'<｜DSML｜parameter name="{name}" string="false">{value}</｜DSML｜parameter>\n'

    text = '<｜DSML｜function_calls>\n<｜DSML｜invoke name="coerce">\n'
    text += param("union", "hello") + param("nullable", "null") + param("text", "null") + param("whole", "3.0")
    text += param("ratio", "3.5") + "</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    types = {"union": ["null", "string"], "nullable": ["null", "string"], "text": "string", "whole": "number"}
    types["ratio"] = "number"
    schema = {"type": "object", "properties": {k: {"type": t} for k, t in types.items()}}
    tool = {"type": "function", "function": {"name": "coerce", "parameters": schema}}
    parser = StreamParser(["deepseek_dsml"], tools=[tool])
    events = [e for i in range(0, len(text), size) for e in parser.feed(text[i : i + size])] + parser.close("stop")
    ends = [e.call.arguments for e in events if isinstance(e, ToolCallEnd)]
    assert ends == [{"union": "hello", "nullable": None, "text": "null", "whole": 3, "ratio": 3.5}]
    assert isinstance(ends[0]["whole"], int)


@pytest.mark.parametrize("size", [1, 7, 1000])
@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ('"arguments" string="false">{"location":"Beijing"}', {"location": "Beijing"}),
        ('"input" string="true">{"location":"Beijing"}', {"location": "Beijing"}),
        # Not a wrapper: keys the tool does not declare, or a second parameter beside it.
        ('"input" string="false">{"city":"Beijing"}', {"input": {"city": "Beijing"}}),
        (
            '"arguments" string="false">{"location":"B"}</｜DSML｜parameter>\n<｜DSML｜parameter name="unit" string="true">c',
            {"arguments": {"location": "B"}, "unit": "c"},
        ),
    ],
    ids=["arguments", "input", "foreign-keys", "two-params"],
)
def test_a_lone_wrapper_parameter_of_the_tools_own_arguments_is_unwrapped(
    params: str, expected: dict[str, object], size: int
) -> None:
    # vLLM's DeepSeek V3.2 tests (test_arguments_wrapper_repaired, test_input_wrapper_repaired).
    text = '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name='
    text += params + "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    props = {"location": {"type": "string"}, "unit": {"type": "string"}}
    tool = {
        "type": "function",
        "function": {"name": "get_weather", "parameters": {"type": "object", "properties": props}},
    }
    events = [e for e in _run_tools(["deepseek_dsml"], text, size, [tool])]
    ends = [e.call for e in events if isinstance(e, ToolCallEnd)]
    assert [c.arguments for c in ends] == [expected]
    streamed = "".join(e.arguments for e in events if isinstance(e, ToolCallDelta))
    assert json.loads(streamed) == expected


def _run_tools(formats: list[str], text: str, size: int, tools: list[dict[str, object]]) -> list[object]:
    parser = StreamParser(formats, tools=tools)
    return [e for i in range(0, len(text), size) for e in parser.feed(text[i : i + size])] + parser.close("stop")
