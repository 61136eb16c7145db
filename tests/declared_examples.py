"""One declaration per structure of the vocabulary (formats/declaration.py), each with an output that
uses it and the calls it holds: shared by tests/test_declaration.py and tests/test_declared_structures.py
(and printed into the vocabulary's documentation). The markers are invented on purpose: the structures,
not known formats, are under test."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from streamparse.formats import (
    Call,
    Declaration,
    HeaderName,
    IdSpec,
    JsonArgs,
    JsonName,
    PythonName,
    Reasoning,
    Section,
    TaggedArgs,
    Values,
    Wrapper,
)

TOOLS: dict[str, Any] = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
    "now": {"type": "object", "properties": {}},
}


@dataclass(frozen=True)
class Example:
    decl: Declaration
    output: str  # text before, the call(s), text after
    calls: list[tuple[str, dict[str, Any]]]
    text: str = "Sure. Done."  # the separators around the call are not text (exact output)
    reasoning: str = ""
    options: tuple[tuple[str, Any], ...] = ()


W = '{"city": "Paris", "days": 3}'
CALL = [("get_weather", {"city": "Paris", "days": 3})]

EXAMPLES: dict[str, Example] = {
    # A JSON object per call, with the template's own field names.
    "json_fields": Example(
        Declaration(
            "x_json_fields",
            Call("<<call>>", "<</call>>", JsonName(field="tool", arguments_field="args"), also_open=("<<fn>>",)),
        ),
        'Sure. <<call>>{"tool": "get_weather", "args": ' + W + "}<</call>> Done.",
        CALL,
    ),
    # OpenAI nesting, a JSON list of calls, no closer: the call ends with its JSON.
    "json_list_nested": Example(
        Declaration(
            "x_json_list",
            Call("[[calls]]", None, JsonName(nested="function", list=True, alt_arguments_fields=())),
        ),
        'Sure. [[calls]][{"type": "function", "function": {"name": "get_weather", "arguments": '
        + W
        + '}}, {"type": "function", "function": {"name": "now", "arguments": {}}}] Done.',
        [*CALL, ("now", {})],
    ),
    # {"NAME": {ARGS}} objects in a list, straight inside a section (Apertus's structure).
    "name_is_key": Example(
        Declaration(
            "x_keyed",
            Call("", None, JsonName(list=True, name_is_key=True)),
            section=Section("<|calls_prefix|>", "<|calls_suffix|>"),
        ),
        'Sure. <|calls_prefix|>[{"get_weather": ' + W + '}, {"now": {}}]<|calls_suffix|> Done.',
        [*CALL, ("now", {})],
    ),
    # The name between markers, then a JSON arguments object.
    "header_json": Example(
        Declaration("x_header_json", Call("<fn:call>", "<fn:end>", HeaderName("<fn:args>"), JsonArgs())),
        "Sure. <fn:call>get_weather<fn:args>" + W + "<fn:end> Done.",
        CALL,
    ),
    # An id before the name, in a section without a closer (Solar Open's structure).
    "id_before_name": Example(
        Declaration(
            "x_ids",
            Call(
                "<|c:begin|>", "<|c:end|>", HeaderName("<|c:args|>"), JsonArgs(), id=IdSpec("before_name", "<|c:name|>")
            ),
            section=Section("<|calls|>"),
        ),
        "Sure. <|calls|><|c:begin|>a1<|c:name|>get_weather<|c:args|>"
        + W
        + "<|c:end|><|c:begin|>a2<|c:name|>now<|c:args|>{}<|c:end|>",
        [*CALL, ("now", {})],
        text="Sure.",
    ),
    # A prefix and an index suffix around the name (Kimi K2's functions.NAME:0).
    "prefix_suffix": Example(
        Declaration(
            "x_prefixed",
            Call("<|fc|>", "<|/fc|>", HeaderName("<|fa|>", prefix="fn.", suffix_pattern=r":\d+"), JsonArgs()),
        ),
        "Sure. <|fc|>fn.get_weather:0<|fa|>" + W + "<|/fc|> Done.",
        CALL,
    ),
    # The name as an attribute, JSON arguments between their own markers.
    "attribute_json": Example(
        Declaration(
            "x_attr_json",
            Call("<use", "</use>", HeaderName(">", attribute="tool"), JsonArgs("<json>", "</json>")),
        ),
        'Sure. <use tool="get_weather" n="1"><json>' + W + "</json></use> Done.",
        CALL,
    ),
    # Key/value markers: <k>KEY</k><v>VALUE</v>, the name up to a newline (GLM's and Hy3's structure).
    "key_value_markers": Example(
        Declaration(
            "x_kv",
            Call(
                "<calling>",
                "</calling>",
                HeaderName("\n"),
                TaggedArgs("<k>", "</k>", "</v>", value_open="<v>", values=Values(whitespace="verbatim")),
            ),
            section=Section("<callings>", "</callings>"),
        ),
        "Sure. <callings>\n<calling>get_weather\n<k>city</k>\n<v>Paris</v>\n<k>days</k><v>3</v>\n</calling>\n"
        "</callings> Done.",
        CALL,
    ),
    # One element per argument, keys as attributes (MiniCPM5's and Anthropic's structure).
    "attribute_elements": Example(
        Declaration(
            "x_elements",
            Call(
                "<func",
                "</func>",
                HeaderName(">", attribute="name"),
                TaggedArgs("<arg", ">", "</arg>", key_attribute="name"),
            ),
        ),
        'Sure. <func name="get_weather">\n<arg name="city">Paris</arg>\n<arg name="days">3</arg>\n</func> Done.',
        CALL,
    ),
    # The value closes with </KEY>.
    "key_closers": Example(
        Declaration("x_keyclose", Call("<invoke:", "</invoke>", HeaderName(">"), TaggedArgs("<", ">", None))),
        "Sure. <invoke:get_weather><city>Paris</city><days>3</days></invoke> Done.",
        CALL,
    ),
    # DSML's string="true|false" typing.
    # The name runs straight into the arguments' opener (GLM-4.5's <tool_call>NAME<arg_key>), or to the
    # closer of a call without arguments; values written as Python's str() of them.
    "name_at_arguments": Example(
        Declaration(
            "x_glued",
            Call(
                "<act>",
                "</act>",
                HeaderName(""),
                TaggedArgs(
                    "<k>", "</k>", "</v>", value_open="<v>", values=Values(others="python", whitespace="verbatim")
                ),
            ),
        ),
        "Sure. <act>get_weather<k>city</k><v>Paris</v><k>days</k><v>3</v></act><act>now</act> Done.",
        [*CALL, ("now", {})],
    ),
    "string_attribute": Example(
        Declaration(
            "x_stringattr",
            Call(
                "<op",
                "</op>",
                HeaderName(">", attribute="name"),
                TaggedArgs("<p", ">", "</p>", key_attribute="name", string_attribute="string"),
            ),
        ),
        'Sure. <op name="get_weather"><p name="city" string="true">Paris</p><p name="days" string="false">3</p></op>'
        " Done.",
        CALL,
    ),
    # Special-token framing: typed, escaped attributes, a section, primed reasoning, a content wrapper,
    # control tokens (Kimi K3's structure).
    "token_framing": Example(
        Declaration(
            "x_framed",
            Call(
                "<|o|>call",
                "<|c|>call<|s|>",
                HeaderName("<|s|>", attribute="tool", escapes="xml"),
                TaggedArgs(
                    "<|o|>arg",
                    "<|s|>",
                    "<|c|>arg<|s|>",
                    key_attribute="key",
                    type_attribute="type",
                    attribute_escapes="xml",
                    values=Values(whitespace="verbatim"),
                ),
            ),
            section=Section("<|o|>calls<|s|>", "<|c|>calls<|s|>"),
            reasoning=(Reasoning("<|o|>think<|s|>", "<|c|>think<|s|>", primed=True),),
            content=Wrapper("<|o|>answer<|s|>", "<|c|>answer<|s|>"),
            control_tokens=("<|c|>turn<|s|>", "<|eot|>"),
        ),
        "Plan it.<|c|>think<|s|><|o|>answer<|s|>Sure. Done.<|c|>answer<|s|><|o|>calls<|s|>"
        '<|o|>call tool="get_weather" index="1"<|s|><|o|>arg key="city" type="string"<|s|>Paris<|c|>arg<|s|>'
        '<|o|>arg key="days" type="number"<|s|>3<|c|>arg<|s|><|c|>call<|s|><|c|>calls<|s|><|c|>turn<|s|><|eot|>',
        CALL,
        text="Sure. Done.",
        reasoning="Plan it.",
        options=(("start_in_reasoning", True),),
    ),
    # End-only reasoning (delimiter style) and a content wrapper with an opener only.
    "end_only_reasoning": Example(
        Declaration(
            "x_delim",
            Call("<<call>>", "<</call>>"),
            reasoning=(Reasoning(None, "[FINAL ANSWER]"),),
            content=Wrapper("Answer:", None),
        ),
        'Thinking first.[FINAL ANSWER]Answer:Sure. <<call>>{"name": "get_weather", "arguments": '
        + W
        + "}<</call>> Done.",
        CALL,
        reasoning="Thinking first.",
    ),
    # A section whose calls are separated by a marker beyond whitespace.
    "section_separator": Example(
        Declaration(
            "x_sep",
            Call("<c>", "</c>", HeaderName(":"), JsonArgs()),
            section=Section("<cs>", "</cs>", separators=("<and>",), also_open=("<calls>",)),
        ),
        "Sure. <cs><c>get_weather:" + W + "</c><and><c>now:{}</c></cs> Done.",
        [*CALL, ("now", {})],
    ),
    # A list of Python call expressions between two markers, strings as Python literals (escapes decoded).
    "python_calls": Example(
        Declaration("x_python", Call("<<py>>", "<</py>>", PythonName())),
        "Sure. <<py>>[get_weather(city='Paris\\'s', days=3), now()]<</py>> Done.",
        [("get_weather", {"city": "Paris's", "days": 3}), ("now", {})],
    ),
    # The same, the strings written between single quotes as they are: a backslash is a backslash.
    "python_calls_raw": Example(
        Declaration("x_python_raw", Call("<<py>>", "<</py>>", PythonName(strings="raw"))),
        "Sure. <<py>>[get_weather(city='Paris\\t', days=3)]<</py>> Done.",
        [("get_weather", {"city": "Paris\\t", "days": 3})],
    ),
}
