"""The families of the engines' newest parser registries (formats/declared_recent.py): K2 Horizon, dots,
K2 V3, Granite 20B function calling, ERNIE 4.5's response tags, Inkling, IQuest Q1, TeleChat4, GLM-5.3-Flash's JSON form and PLaMo 3, through their presets, under every chunking; values holding the markers that
cannot end them where they stand; cut calls; and a K2 Horizon value property-tested. The engines' own cases
are in tests/data/real/{vllm,sglang}.json (test_real_world.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons

from streamparse import StreamParser, formats
from streamparse.events import ParseResult
from streamparse.formats.declared_recent import DECLARATIONS
from streamparse.presets import preset_for, start_in_reasoning_for

K2 = "<ifm|tool_call>{name}{args}</ifm|tool_call>"
K2_ARG = "<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{v}</ifm|arg_value>"
DOTS_CALL = '<invoke name="{name}">\n<parameter name="{k}">{v}</parameter>\n</invoke>'


def k2(name: str, **args: str) -> str:
    return K2.format(name=name, args="".join(K2_ARG.format(k=k, v=v) for k, v in args.items()))


def dots(name: str, k: str, v: str) -> str:
    return DOTS_CALL.format(name=name, k=k, v=v)


def test_every_recent_family_is_a_catalog_format_with_its_declaration_and_a_preset() -> None:
    named = {f for rule_formats in (preset_for(m).formats for m in _PRESET_IDS) for f in rule_formats}
    for decl in DECLARATIONS:
        assert formats.declaration_of(decl.name) == decl
        assert decl.name in named


_PRESET_IDS = (
    "MBZUAI-IFM/K2-Horizon",
    "MBZUAI-IFM/K2-V3",
    "rednote-hilab/dots.llm1.inst",
    "ibm-granite/granite-20b-functioncalling",
    "baidu/ERNIE-4.5-21B-A3B-Thinking",
    "inkling-ai/Inkling-1",
    "IQuestLab/IQuest-Q1-Instruct",
    "IQuestLab/IQuest-Coder-V2-40B-Instruct",
    "TeleChat4-29B",
    "zai-org/GLM-5.3-Flash",
    "pfnet/plamo-3-nict-31b-base",
)


CASES = {
    # (model id, output, calls, visible text, reasoning, rejection reasons)
    "k2_group_with_reasoning_and_two_calls": (
        "MBZUAI-IFM/K2-Horizon",
        "<ifm|think_fast>Look both up.</ifm|think_fast>\nChecking.\n<ifm|tool_calls>\n"
        + k2("get_weather", city="Paris")
        + "\n"
        + k2("get_time", timezone="UTC")
        + "\n</ifm|tool_calls>",
        [("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "UTC"})],
        "Checking.",
        "Look both up.",
        [],
    ),
    "k2_value_holding_its_closer_and_the_call_opener": (
        "MBZUAI-IFM/K2-Horizon",
        k2("note", text="a</ifm|arg_value>b<ifm|tool_call>c"),
        [("note", {"text": "a</ifm|arg_value>b<ifm|tool_call>c"})],
        "",
        "",
        [],
    ),
    "k2_json_dialect_in_the_group": (
        "MBZUAI-IFM/K2-Horizon",
        '<ifm|tool_calls><ifm|tool_call>{"name": "get_time", "arguments": {"timezone": "UTC"}}</ifm|tool_call>'
        "</ifm|tool_calls>",
        [("get_time", {"timezone": "UTC"})],
        "",
        "",
        [],
    ),
    "k2_cut_in_a_value": (
        "MBZUAI-IFM/K2-Horizon",
        "Sure.<ifm|tool_calls><ifm|tool_call>note<ifm|arg_key>text</ifm|arg_key><ifm|arg_value>hal",
        [],
        "Sure.",
        "",
        ["truncated"],
    ),
    "k2_cut_in_a_parameter_header": (
        "MBZUAI-IFM/K2-Horizon",
        "<ifm|tool_calls>" + k2("get_time", timezone="UTC") + "<ifm|tool_call>note<ifm|arg_key>te",
        [("get_time", {"timezone": "UTC"})],
        "",
        "",
        ["truncated"],
    ),
    "dots_two_invokes_after_text": (
        "rednote-hilab/dots.llm1.inst",
        "I'll search.\n<dots_function_call>\n"
        + dots("search", "query", "chairs")
        + "\n"
        + dots("search", "query", "tables")
        + "\n</dots_function_call>",
        [("search", {"query": "chairs"}), ("search", {"query": "tables"})],
        "I'll search.",
        "",
        [],
    ),
    "dots_value_holding_its_closer": (
        "rednote-hilab/dots.llm1.inst",
        "<dots_function_call>\n" + dots("note", "text", "x</parameter>y") + "\n</dots_function_call>",
        [("note", {"text": "x</parameter>y"})],
        "",
        "",
        [],
    ),
    "dots_cut_block": (
        "rednote-hilab/dots.llm1.inst",
        '<dots_function_call>\n<invoke name="search">\n<parameter name="query">cha',
        [],
        "",
        "",
        ["truncated"],
    ),
    "granite_20b_fc_opener_inside_a_string_is_value_text": (
        "ibm-granite/granite-20b-functioncalling",
        '<function_call> {"name": "note", "arguments": {"text": "see <function_call> {"}}',
        [("note", {"text": "see <function_call> {"})],
        "",
        "",
        [],
    ),
    "granite_20b_fc_first_complete_second_cut": (
        "ibm-granite/granite-20b-functioncalling",
        '<function_call> {"name": "get_time", "arguments": {"timezone": "UTC"}}\n'
        '<function_call> {"name": "get_weather", "arguments": {"city": "Par',
        [("get_time", {"timezone": "UTC"})],
        "",
        "",
        ["truncated"],
    ),
    # Inkling: one model message per call; the header repeating the name is markup, a cut payload truncated.
    "inkling_reasoning_text_and_a_call": (
        "inkling-ai/Inkling-1",
        "<|message_model|><|content_thinking|>Plan.<|end_message|><|message_model|><|content_text|>Checking."
        '<|end_message|><|message_model|>get_time<|content_invoke_tool_json|>{"name": "get_time", "args": '
        '{"timezone": "UTC"}}<|end_message|><|content_model_end_sampling|>',
        [("get_time", {"timezone": "UTC"})],
        "Checking.",
        "Plan.",
        [],
    ),
    "inkling_output_starting_with_the_header": (
        "inkling-ai/Inkling-1",
        'get_time<|content_invoke_tool_json|>{"name": "get_time", "args": {}}<|end_message|>',
        [("get_time", {})],
        "",
        "",
        [],
    ),
    "inkling_cut_payload": (
        "inkling-ai/Inkling-1",
        '<|message_model|>get_time<|content_invoke_tool_json|>{"name": "get_time", "args": {"timezone": "U',
        [],
        "",
        "",
        ["truncated"],
    ),
    # IQuest Q1: the prompt opens <think>; a newline after the name is markup, under every chunking (the
    # name is undecided while blanks and the start of <arg_key> follow it).
    "iquest_q1_primed_reasoning_then_a_call_with_a_newline_after_the_name": (
        "IQuestLab/IQuest-Q1-Instruct",
        "Run it.</think>On it.<iquest_tool_call>run\n<arg_key>code</arg_key><arg_value> x = 1\n</arg_value>"
        "\n<arg_key>count</arg_key> <arg_value>2</arg_value></iquest_tool_call>",
        [("run", {"code": " x = 1\n", "count": "2"})],  # no tools given: a raw value stays text
        "On it.",
        "Run it.",
        [],
    ),
    "iquest_q1_cut_after_the_name_and_newline": (
        "IQuestLab/IQuest-Q1-Instruct",
        "</think>Sure.<iquest_tool_call>run\n<arg_k",
        [],
        "Sure.",
        "",
        ["truncated"],
    ),
    # TeleChat4 / XingChen4: the key/value body and hermes's JSON behind the same <tool_call>; values trimmed.
    # K2 V3 (SGLang's k2_v3): an <ifm|arg_type> element types the value it precedes; untyped values keep the schema.
    "k2_v3_typed_and_untyped_values": (
        "MBZUAI-IFM/K2-V3",
        "<ifm|think>Look.</ifm|think>\n<ifm|tool_calls>\n<ifm|tool_call>run\n<ifm|arg_key>n</ifm|arg_key>\n"
        "<ifm|arg_type>integer</ifm|arg_type>\n<ifm|arg_value>42</ifm|arg_value>\n<ifm|arg_key>s</ifm|arg_key>"
        "<ifm|arg_type>string</ifm|arg_type><ifm|arg_value>[1]</ifm|arg_value><ifm|arg_key>t</ifm|arg_key>"
        "<ifm|arg_value> x </ifm|arg_value></ifm|tool_call>\n</ifm|tool_calls>",
        [("run", {"n": 42, "s": "[1]", "t": " x "})],
        "",
        "Look.",
        [],
    ),
    "telechat4_key_value_call_then_a_json_call": (
        "TeleChat4-29B",
        "Sum it.</think>Sure.<tool_call>add<param_key>a</param_key>\n<param_value> 1 </param_value></tool_call>"
        '<tool_call>{"name": "add", "arguments": {"a": 2}}</tool_call>',
        [("add", {"a": "1"}), ("add", {"a": 2})],
        "Sure.",
        "Sum it.",
        [],
    ),
    # SGLang's third shape: the name, then the arguments' JSON object (spaces or a newline between them).
    "telechat4_name_then_json_arguments": (
        "TeleChat4-29B",
        '</think><tool_call>add{"a": 1, "b": [2]}</tool_call>\n<tool_call>add\n{"a": 3}\n</tool_call>',
        [("add", {"a": 1, "b": [2]}), ("add", {"a": 3})],
        "",
        "",
        [],
    ),
    "telechat4_name_then_json_with_text_after_the_object_is_malformed": (
        "XingChen4-29B-A4B",
        '</think><tool_call>add{"a": 1} and more</tool_call>',
        [],
        "",
        "",
        ["malformed"],
    ),
    "telechat4_name_then_json_cut_is_truncated": (
        "TeleChat4-29B",
        '</think><tool_call>add {"a": 1',
        [],
        "",
        "",
        ["truncated"],
    ),
    "telechat4_cut_in_a_value": (
        "XingChen4-29B-A4B",
        "</think><tool_call>add<param_key>a</param_key><param_value>1",
        [],
        "",
        "",
        ["truncated"],
    ),
    # GLM-5.3-Flash (SGLang's glm53_flash): primed reasoning; `<tool_call>NAME>{json}` without closer (the
    # object ends it, a `</tool_call>` after it is markup) beside glm45's <arg_key>/<arg_value> calls.
    "glm53_flash_json_calls_after_reasoning": (
        "zai-org/GLM-5.3-Flash",
        'Both.</think>On it.<tool_call>get_time>{"tz": "UTC"}</tool_call>\n<tool_call>get_time>{"tz": "JST"}',
        [("get_time", {"tz": "UTC"}), ("get_time", {"tz": "JST"})],
        "On it.",
        "Both.",
        [],
    ),
    "glm53_flash_tagged_call_then_json_call": (
        "zai-org/GLM-5.3-Flash",
        "</think><tool_call>get_time\n<arg_key>tz</arg_key><arg_value>UTC</arg_value></tool_call>"
        '<tool_call>get_time>{"tz": "JST"}',
        [("get_time", {"tz": "UTC"}), ("get_time", {"tz": "JST"})],
        "",
        "",
        [],
    ),
    "glm53_flash_json_call_cut_by_the_end_is_rejected": (
        "zai-org/GLM-5.3-Flash",
        '</think><tool_call>get_time>{"tz": "UT',
        [],
        "",
        "",
        ["truncated"],
    ),
    # PLaMo 3: requests in a section, the name between its markers, JSON after the constrain/msg markers.
    "plamo3_primed_reasoning_then_two_requests": (
        "pfnet/plamo-3-nict-31b-base",
        "Look up both.<|plamo:end_think:plamo|>On it."
        + "<|plamo:begin_tool_requests:plamo|>"
        + "".join(
            "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>get_time<|plamo:end_tool_name:plamo|>"
            f'<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{{"tz": "{tz}"}}'
            "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"
            for tz in ("UTC", "JST")
        )
        + "<|plamo:end_tool_requests:plamo|><|plamo:tag|>",
        [("get_time", {"tz": "UTC"}), ("get_time", {"tz": "JST"})],
        "On it.",
        "Look up both.",
        [],
    ),
    # SGLang's detector also reads the JSON right after the arguments' marker.
    "plamo3_arguments_without_the_constrain_markers_are_read_too": (
        "pfnet/plamo-3-nict-31b-base",
        "<|plamo:end_think:plamo|><|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
        "<|plamo:begin_tool_name:plamo|>get_time<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|>"
        '{"tz": "UTC"}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>'
        "<|plamo:end_tool_requests:plamo|>",
        [("get_time", {"tz": "UTC"})],
        "",
        "",
        [],
    ),
    # ERNIE 4.5 Thinking (vLLM's ernie45 reasoning parser): the output starts inside reasoning, the answer
    # follows </think> in <response> tags, which are markup.
    "ernie_answer_in_response_tags": (
        "baidu/ERNIE-4.5-21B-A3B-Thinking",
        "Let me think.\n</think>\n\n<response>\nHello there.\n</response>\n",
        [],
        "Hello there.",
        "Let me think.",
        [],
    ),
    "ernie_call_after_reasoning": (
        "baidu/ERNIE-4.5-21B-A3B-Thinking",
        'Call it.\n</think>\n\n<tool_call>\n{"name": "get_time", "arguments": {"timezone": "UTC"}}\n</tool_call>\n',
        [("get_time", {"timezone": "UTC"})],
        "",
        "Call it.",
        [],
    ),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_a_recent_family_parses_through_its_preset_under_every_chunking(key: str) -> None:
    model, text, want, visible, thought, rejected = CASES[key]
    preset = preset_for(model)
    result = check_stream(text, formats=list(preset.formats), start_in_reasoning=preset.start_in_reasoning)
    assert calls(result) == want
    assert (result.text, result.reasoning) == (visible, thought)
    assert reasons(result) == rejected


def test_for_model_selects_the_recent_families() -> None:
    parser = StreamParser.for_model("MBZUAI-IFM/K2-Horizon")
    events = parser.feed(k2("get_time", timezone="UTC")) + parser.close()
    assert [e.call.name for e in events if hasattr(e, "call") and e.call is not None] == ["get_time"]


_PIECES = st.sampled_from(["</ifm|arg_value>", "<ifm|tool_call>", "<ifm|", "|", ">", "<", "\n", " ", '"'])
_TEXT = st.lists(st.one_of(st.text(max_size=6), _PIECES), max_size=8).map("".join)
# What ends a value where it stands: its closer before the template's next element, and (lenient: a value
# whose closer was left out) the next parameter or the call's closer.
_ENDS = ("</ifm|arg_value>", "<ifm|arg_key>", "</ifm|tool_call>")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(_TEXT)
def test_a_k2_horizon_value_comes_back_verbatim(value: str) -> None:
    if (
        any(end in value for end in _ENDS[1:])
        or any(
            value.find(_ENDS[0] + nxt) >= 0
            for nxt in ("<ifm|arg_key>", "</ifm|tool_call>", "<ifm|tool_call>", " ", "\n")
        )
        or value.endswith(_ENDS[0])
    ):
        return
    result = check_stream(k2("note", text=value), seeds=3, formats=["k2_horizon"])
    assert calls(result) == [("note", {"text": value})]


@pytest.mark.parametrize(
    ("text", "kwargs"),
    [
        ("<longcat_think>Look it up.</longcat_think>Answer.", {}),
        ("Look it up.</longcat_think>Answer.", {}),  # primed, not told: the orphan closer moves the text
        ("Look it up.</longcat_think>Answer.", {"chat_template_kwargs": {"enable_thinking": True}}),
    ],
)
def test_longcat_reasons_in_its_own_think_tags(text: str, kwargs: dict[str, object]) -> None:
    parser = StreamParser.for_model("meituan-longcat/LongCat-Flash-Thinking", **kwargs)
    result = ParseResult.from_events(parser.feed(text) + parser.close())
    assert (result.reasoning, result.text) == ("Look it up.", "Answer.")


def test_longcat_thinking_on_starts_inside_reasoning() -> None:
    kwargs = {"enable_thinking": True}
    assert start_in_reasoning_for("meituan-longcat/LongCat-Flash-Thinking", kwargs)
    assert not start_in_reasoning_for("meituan-longcat/LongCat-Flash-Thinking", {"enable_thinking": False})
