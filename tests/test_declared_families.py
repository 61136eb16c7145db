"""The families written as declarations (formats/declared_families.py), through their model presets: cases
from the engines' own tests and parsers (the source is named on each), parsed whole and under every
chunking (tests/invariants.py), and failing closed."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import calls, check_stream, reasons

from streamparse import StreamParser, formats, parse
from streamparse.presets import start_in_reasoning_for

TOOLS: dict[str, Any] = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "date": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
    "get_current_date": {"type": "object", "properties": {}},
    "now": {"type": "object", "properties": {}},
    "python": {"type": "object", "properties": {"code": {"type": "string"}, "opts": {"type": "object"}}},
    "read": {"type": "object", "properties": {"path": {"type": "string"}}},
}
K3_PARIS = (
    '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" '
    'type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>'
)

# (model id, output, options, calls, text, reasoning)
CASES: dict[str, tuple[str, str, dict[str, Any], list[tuple[str, dict[str, Any]]], str, str]] = {
    # vLLM tests/tool_parsers/test_kimi_k3_tool_parser.py: thinking off, the turn closes with the message.
    "k3_message_close": (
        "moonshotai/Kimi-K3",
        "Hello<|close|>message<|sep|>",
        {"start_in_reasoning": False},
        [],
        "Hello",
        "",
    ),
    # vLLM kimi_k3_tool_parser.py's docstring: typed arguments in the tools channel.
    "k3_typed": (
        "moonshotai/Kimi-K3",
        '<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|><|open|>argument '
        'key="code" type="string"<|sep|>print(1)<|close|>argument<|sep|><|open|>argument key="opts" '
        'type="object"<|sep|>{"a":1}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
        {"start_in_reasoning": False},
        [("python", {"code": "print(1)", "opts": {"a": 1}})],
        "",
        "",
    ),
    # Kimi-K3.jinja with thinking on: the prompt opened the think channel.
    "k3_thinking": (
        "moonshotai/Kimi-K3",
        "The user wants Paris.<|close|>think<|sep|><|open|>response<|sep|>Checking.<|close|>response<|sep|>"
        + K3_PARIS
        + "<|close|>message<|sep|>",
        {},
        [("get_weather", {"city": "Paris"})],
        "Checking.",
        "The user wants Paris.",
    ),
    # vLLM tests/tool_parsers/test_hy_v3_tool_parser.py (tencent/Hy3-preview, no token suffix).
    "hy3_plain_two": (
        "tencent/Hy3-preview",
        "<tool_calls>\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
        "<arg_key>date</arg_key>\n<arg_value>2026-03-30</arg_value>\n</tool_call>\n<tool_call>get_weather<tool_sep>\n"
        "<arg_key>city</arg_key>\n<arg_value>Hangzhou</arg_value>\n<arg_key>date</arg_key>\n"
        "<arg_value>2026-03-30</arg_value>\n</tool_call>\n</tool_calls>",
        {},
        [
            ("get_weather", {"city": "Beijing", "date": "2026-03-30"}),
            ("get_weather", {"city": "Hangzhou", "date": "2026-03-30"}),
        ],
        "",
        "",
    ),
    "hy3_plain_no_args": (
        "tencent/Hy3-preview",
        "Checking.<tool_calls>\n<tool_call>get_current_date<tool_sep>\n</tool_call>\n</tool_calls>",
        {},
        [("get_current_date", {})],
        "Checking.",
        "",
    ),
    # The ":opensource" token suffix (Hy3 tokenizers that bake it into every tool token).
    "hy3_suffixed": (
        "tencent/Hy3-preview",
        "I should read it.</think:opensource><tool_calls:opensource>\n<tool_call:opensource>read"
        "<tool_sep:opensource>\n<arg_key:opensource>path</arg_key:opensource>\n"
        "<arg_value:opensource>src/main.py</arg_value:opensource>\n</tool_call:opensource>\n</tool_calls:opensource>",
        {},
        [("read", {"path": "src/main.py"})],
        "",
        "I should read it.",
    ),
    # SGLang's Step-3 detector tests: per-call framing tokens inside the section.
    "step3": (
        "stepfun-ai/step3",
        '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">'
        '<steptml:parameter name="city">Beijing</steptml:parameter></steptml:invoke><｜tool_call_end｜>'
        '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="now"></steptml:invoke><｜tool_call_end｜>'
        "<｜tool_calls_end｜>",
        {},
        [("get_weather", {"city": "Beijing"}), ("now", {})],
        "",
        "",
    ),
    # SGLang's Apertus detector tests: text around the section is kept.
    "apertus": (
        "swiss-ai/Apertus-8B-Instruct-2509",
        'before<|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"now": {}}]<|tools_suffix|>after',
        {},
        [("get_weather", {"city": "Paris"}), ("now", {})],
        "beforeafter",
        "",
    ),
    # vLLM's Solar Open reasoning tests: reasoning, then the call section with an id.
    "solar_open_reasoning": (
        "upstage/Solar-Open-100B",
        "<|think|>I should call a tool.<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>a1b2c3d4e5"
        '<|tool_call:name|>get_weather<|tool_call:args|>{"city": "Seoul"}<|tool_call:end|>',
        {},
        [("get_weather", {"city": "Seoul"})],
        "",
        "I should call a tool.",
    ),
    # The Solar Open engine test without an id, flushed text before it and <|calls|> after.
    "solar_open_no_id": (
        "upstage/Solar-Open-100B",
        "Checking the weather.<|flush|><|tool_calls|><|tool_call:begin|><|tool_call:name|>get_weather"
        '<|tool_call:args|>{"city": "Seoul"}<|tool_call:end|><|calls|>',
        {},
        [("get_weather", {"city": "Seoul"})],
        "Checking the weather.",
        "",
    ),
    # vLLM's LongCat parser: hermes-style objects in longcat tags.
    "longcat": (
        "meituan-longcat/LongCat-Flash-Chat",
        'Sure.\n<longcat_tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</longcat_tool_call>',
        {},
        [("get_weather", {"city": "Paris"})],
        "Sure.",
        "",
    ),
    # vLLM's MiniCPM5 XML parser: values trimmed, typed by the schema.
    "minicpm5": (
        "openbmb/MiniCPM5-8B",
        '<function name="get_weather">\n<param name="city"> Paris </param>\n<param name="days">3</param>\n</function>',
        {},
        [("get_weather", {"city": "Paris", "days": 3})],
        "",
        "",
    ),
    # vLLM's GigaChat 3 parser: both openers, </s> at the very end.
    "gigachat3": (
        "ai-sage/GigaChat3-10B-A1.8B",
        'Let me check.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "get_weather", "arguments": '
        '{"city": "Moscow"}}</s>',
        {},
        [("get_weather", {"city": "Moscow"})],
        "Let me check.",
        "",
    ),
    "gigachat31": (
        "ai-sage/GigaChat3.1-10B-A1.8B",
        '<|function_call|>{"name": "get_weather", "arguments": {"city": "Moscow"}}',
        {},
        [("get_weather", {"city": "Moscow"})],
        "",
        "",
    ),
    # vLLM's GigaChat 3.5 parser: GCML with string="true|false".
    "gigachat35": (
        "ai-sage/GigaChat3.5-432B-A28B",
        'Ok.\n\n<｜GCML｜tool_calls>\n<｜GCML｜invoke name="get_weather">\n<｜GCML｜parameter name="city" string="true">'
        ' Kazan</｜GCML｜parameter>\n<｜GCML｜parameter name="days" string="false">3</｜GCML｜parameter>\n'
        "</｜GCML｜invoke>\n</｜GCML｜tool_calls>",
        {},
        [("get_weather", {"city": " Kazan", "days": 3})],
        "Ok.",
        "",
    ),
}


def _parse(model: str, text: str, options: dict[str, Any]) -> Any:
    """``check_stream`` with what ``StreamParser.for_model`` picks for ``model`` (formats, priming)."""
    parser = StreamParser.for_model(model, tools=TOOLS, **options)
    kwargs = {"formats": parser.formats, "tools": TOOLS, "start_in_reasoning": start_in_reasoning_for(model), **options}
    return check_stream(text, **kwargs)


@pytest.mark.parametrize("key", list(CASES))
def test_a_declared_family_parses_its_engines_cases_under_every_chunking(key: str) -> None:
    model, text, options, want, visible, thought = CASES[key]
    result = _parse(model, text, options)
    assert calls(result) == want
    assert result.text == visible
    assert result.reasoning == thought
    assert not result.rejected


def test_solar_open_keeps_the_call_id_it_wrote() -> None:
    _, text, options, _, _, _ = CASES["solar_open_reasoning"]
    result = parse(text, formats=["solar_open"], tools=TOOLS)
    assert [c.id for c in result.tool_calls] == ["a1b2c3d4e5"]


def test_k3_attributes_are_unescaped_and_bodies_kept_verbatim() -> None:
    text = (
        '<|open|>tools<|sep|><|open|>call tool="python" index="1"<|sep|><|open|>argument key="a &quot;b&quot; &amp; c" '
        'type="string"<|sep|>\n  x &amp; y\n<|close|>argument<|sep|><|open|>argument key="n" type="null"<|sep|>null'
        '<|close|>argument<|sep|><|open|>argument key="ok" type="boolean"<|sep|>true<|close|>argument<|sep|>'
        '<|open|>argument key="xs" type="array"<|sep|>[1, "2"]<|close|>argument<|sep|><|close|>call<|sep|>'
        "<|close|>tools<|sep|>"
    )
    result = check_stream(text, formats=["kimi_k3"])
    assert calls(result) == [("python", {'a "b" & c': "\n  x &amp; y\n", "n": None, "ok": True, "xs": [1, "2"]})]


def test_k3_without_thinking_starts_in_the_response_channel() -> None:
    text = "Sure.<|close|>response<|sep|>" + K3_PARIS + "<|close|>message<|sep|>"
    assert not start_in_reasoning_for("moonshotai/Kimi-K3", {"thinking": False})
    assert start_in_reasoning_for("moonshotai/Kimi-K3", {"thinking": True})
    # told nothing, the output starts as text (an orphan <|close|>think<|sep|> moves it to reasoning)
    assert not start_in_reasoning_for("moonshotai/Kimi-K3")
    parser = StreamParser.for_model("moonshotai/Kimi-K3", chat_template_kwargs={"thinking": False}, tools=TOOLS)
    result = check_stream(text, formats=parser.formats, tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": "Paris"})]
    assert result.text == "Sure." and result.reasoning == ""


def test_k3_primed_reasoning_never_holds_the_answer_when_the_think_channel_is_missing() -> None:
    # A server that split the reasoning off sends the response channel directly: it ends the reasoning.
    text = "<|open|>response<|sep|>Hi.<|close|>response<|sep|>" + K3_PARIS
    result = check_stream(text, formats=["kimi_k3"], tools=TOOLS, start_in_reasoning=True)
    assert result.text == "Hi." and calls(result) == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize(
    ("fmt", "text", "reason"),
    [
        ("kimi_k3", K3_PARIS.replace("get_weather", "rm_rf"), "unknown_tool"),
        ("kimi_k3", K3_PARIS.replace('key="city"', 'key="town"'), "schema_violation"),
        ("kimi_k3", K3_PARIS[:-40], "truncated"),
        ("kimi_k3", K3_PARIS[: K3_PARIS.index("argument<|sep|><|close|>call")], "truncated"),
        ("step3", CASES["step3"][1][:130], "truncated"),
        ("apertus", '<|tools_prefix|>[{"get_weather": {"city": "Paris"}, "now": {}}]<|tools_suffix|>', "malformed"),
        # Not JSON where string="false" says JSON: read as text, which the schema's integer refuses.
        ("gigachat35", CASES["gigachat35"][1].replace('string="false">3', 'string="false">[3'), "schema_violation"),
        (
            "solar_open",
            '<|tool_calls|><|tool_call:begin|>a<|tool_call:name|>now<|tool_call:args|>{"x": }<|tool_call:end|>',
            "malformed",
        ),
    ],
)
def test_a_declared_family_fails_closed(fmt: str, text: str, reason: str) -> None:
    result = check_stream(text, formats=[fmt], tools=TOOLS)
    assert reasons(result)[:1] == [reason], reasons(result)
    assert "<|" not in result.text and "get_weather" not in result.text


def test_every_declared_family_is_a_catalog_format_with_its_declaration() -> None:
    from streamparse.formats.declared_families import DECLARATIONS

    for decl in DECLARATIONS:
        assert formats.declaration_of(decl.name) == decl
        assert formats.load(formats.dump(decl)) == decl
        spec = formats.get(decl.name)
        assert spec.opt_in == (not decl.auto)
        assert calls(parse(spec.example, formats=[decl.name])), decl.name


def test_k3_arguments_may_be_one_json_element() -> None:
    # Kimi-K3.jinja writes <|open|>json type="object"<|sep|>...<|close|>json<|sep|> for string arguments.
    text = (
        '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>json type="object"<|sep|>'
        '{"city": "Paris", "days": 2}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>'
    )
    result = check_stream(text, formats=["kimi_k3"], tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": "Paris", "days": 2})]
    assert result.text == "" and not result.rejected


def test_minicpm5_reads_python_reprs_by_the_schema_and_thinks_when_asked() -> None:
    # MiniCPM5's template writes values with Jinja's `~`: Python reprs for non-strings.
    tools = {"f": {"type": "object", "properties": {"b": {"type": "boolean"}, "o": {"type": "object"}}}}
    text = '<function name="f"><param name="b">True</param><param name="o">{\'a\': None}</param></function>'
    assert calls(check_stream(text, formats=["minicpm5"], tools=tools)) == [("f", {"b": True, "o": {"a": None}})]
    assert start_in_reasoning_for("openbmb/MiniCPM5-8B", {"enable_thinking": True})
    assert not start_in_reasoning_for("openbmb/MiniCPM5-8B")
