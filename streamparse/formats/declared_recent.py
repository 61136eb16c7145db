"""Families of the engines' newest parser registries, written as declarations (formats/declaration.py).

Each follows the family's reference parsers in vLLM and SGLang (no chat template of these models with tools
could be read; docs/FORMATS.md says so per family) and compiles like every declared format.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from ..core.engine import Engine, Handler
from ..core.lookahead import LOOKAHEAD, starts_or_prefix
from .base import FormatSpec, Wiring
from .compiler import compile_declaration, json_handler
from .declaration import Call, Declaration, HeaderName, JsonArgs, JsonName, Section, TaggedArgs, Values, Wrapper
from .openers import Decision
from .tagged import GLM_SYNTAX, glm_style_open

# K2 Horizon ("IFM"): <ifm|tool_calls> around <ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key><ifm|arg_value>V
# </ifm|arg_value></ifm|tool_call> (the default xml dialect); values sit inline, so their whitespace is data,
# typed by the schema. The json dialect writes {"name": ..., "arguments": ...} (or a list of them) in the same
# element: a second handler of the opener reads it. Reasoning (<ifm|think>, _fast, _faster) is built in.
K2_HORIZON: Final = Declaration(
    "k2_horizon",
    Call(
        "<ifm|tool_call>",
        "</ifm|tool_call>",
        HeaderName(""),
        TaggedArgs(
            "<ifm|arg_key>",
            "</ifm|arg_key>",
            "</ifm|arg_value>",
            value_open="<ifm|arg_value>",
            values=Values(whitespace="verbatim"),
        ),
    ),
    section=Section("<ifm|tool_calls>", "</ifm|tool_calls>"),
    control_tokens=("</ifm|tool_calls>",),  # after the json dialect's calls, read outside the section's table
    models="K2 Horizon (MBZUAI IFM)",
    auto=True,
)

# K2 V3 (SGLang's k2_v3 detector): K2 Horizon's calls, where an `<ifm|arg_type>T</ifm|arg_type>` may stand
# between a key and its value and types it (`string` keeps the text raw, any other type reads it as JSON).
# vLLM's k2_horizon xml dialect refuses that element (its tests), so it is a format of its own, named only.
_K2_ARGS: Final = K2_HORIZON.call.arguments
assert isinstance(_K2_ARGS, TaggedArgs)
K2_V3: Final = replace(
    K2_HORIZON,
    name="k2_v3",
    call=replace(
        K2_HORIZON.call, arguments=replace(_K2_ARGS, type_open="<ifm|arg_type>", type_close="</ifm|arg_type>")
    ),
    models="K2 V3 (MBZUAI IFM)",
    notes="K2 Horizon's opener with typed values: active where named (presets), not in auto",
    auto=False,
)

# dots: <dots_function_call> around XML invokes, <invoke name="NAME"><parameter name="K">V</parameter></invoke>;
# values are stripped and typed by the schema (SGLang's and vLLM's dots parsers), which also read a JSON call
# object in the block (a second handler of its opener). Its <invoke> is MiniMax's opener too: active where
# named (presets), not in auto.
DOTS: Final = Declaration(
    "dots",
    Call(
        "<invoke",
        "</invoke>",
        HeaderName(">", attribute="name"),
        TaggedArgs("<parameter", ">", "</parameter>", key_attribute="name", values=Values(whitespace="strip")),
    ),
    section=Section("<dots_function_call>", "</dots_function_call>"),
    control_tokens=("</dots_function_call>",),  # after a JSON block's call, and a stray one (vLLM drops it)
    models="dots (rednote hi lab)",
    notes="MiniMax's <invoke> inside its own block: active where named (presets), not in auto",
)

# Granite 20B function calling: each call is `<function_call> ` and a JSON call object, no closer (vLLM's
# granite-20b-fc parser and its tests). <function_call> also wraps other models' JSON: active where named.
GRANITE_20B_FC: Final = Declaration(
    "granite_20b_fc",
    Call("<function_call>", None, JsonName()),
    models="Granite 20B function calling (IBM)",
    notes="a <function_call> prefix without closer: active where named (presets), not in auto",
)

# ERNIE 4.5 (thinking): `<think>...</think>` then the answer in `<response>...</response>` (vLLM's ernie45
# reasoning parser), calls hermes-style in <tool_call>. The response tags are markup; `<tool_call>` is
# hermes's opener: active where named (the ERNIE preset names hermes first, which reads the calls).
ERNIE45: Final = Declaration(
    "ernie45",
    Call("<tool_call>", "</tool_call>", JsonName()),
    content=Wrapper("<response>", "</response>"),
    models="ERNIE 4.5 (Baidu)",
    notes="hermes's calls; the <response> tags around the answer are removed: active where named (presets)",
)

# Inkling: a model message per call, `<|message_model|>NAME<|content_invoke_tool_json|>{"name": NAME, "args":
# ARGS}<|end_message|>` (SGLang's Inkling detector, vLLM's inkling parser). The header repeating the name is
# markup: a handler of <|message_model|> (a control token otherwise) reads it; where inkling is named, so does
# one at the output start, for a prompt that ends with <|message_model|>. The header's name is not checked
# against the payload's (SGLang drops a mismatch). Reasoning and text blocks are built in (states/text.py).
_INK_OPEN: Final = "<|content_invoke_tool_json|>"
_INK_CLOSE: Final = "<|end_message|>"
_INK_MESSAGE: Final = "<|message_model|>"
INKLING: Final = Declaration(
    "inkling",
    Call(_INK_OPEN, _INK_CLOSE, _INK_CALL := JsonName(arguments_field="args", alt_arguments_fields=())),
    models="Inkling",
    example=f'{_INK_MESSAGE}get_time{_INK_OPEN}{{"name": "get_time", "args": {{"timezone": "UTC"}}}}{_INK_CLOSE}',
    auto=True,
)


def _iquest(name: str, tag: str, models: str) -> Declaration:
    """IQuest's GLM-4.7 body in the family's own element, ``<TAG>NAME<arg_key>K</arg_key><arg_value>V</arg_value>
    ...</TAG>``: the name is trimmed, values are kept verbatim (whitespace is data) and typed by the schema;
    only whitespace may sit between the pairs."""
    args = TaggedArgs(
        "<arg_key>", "</arg_key>", "</arg_value>", value_open="<arg_value>", values=Values(whitespace="verbatim")
    )
    return Declaration(name, Call(f"<{tag}>", f"</{tag}>", HeaderName(""), args), models=models, auto=True)


# IQuest Q1 (SGLang's iquest_q1 detector) and iQuest Coder V2 (vLLM's iquest_coder_v2 parser; V1 writes
# Qwen3-Coder's XML) differ only in the element's tag.
IQUEST_Q1: Final = _iquest("iquest_q1", "iquest_tool_call", "IQuest Q1 (IQuestLab)")
IQUEST_CODER_V2: Final = _iquest("iquest_coder_v2", "iquestcoder_tool_call", "iQuest Coder V2 (IQuestLab)")

# TeleChat4 / XingChen4: hermes's <tool_call> JSON, or `<tool_call>NAME<param_key>K</param_key><param_value>V
# </param_value>...</tool_call>` (SGLang's and vLLM's telechat4 and xingchen4 parsers, all alike): values are
# trimmed and typed by the schema. The JSON body is hermes's (its presets name hermes too); a name followed by
# the arguments' JSON object (`NAME{...}`) is read by a second handler of the opener (the same declaration with
# JSON arguments). <tool_call> is hermes's opener: active where named.
TELECHAT4: Final = Declaration(
    "telechat4",
    Call(
        "<tool_call>",
        "</tool_call>",
        HeaderName(""),
        TaggedArgs(
            "<param_key>",
            "</param_key>",
            "</param_value>",
            value_open="<param_value>",
            values=Values(whitespace="strip"),
        ),
    ),
    models="TeleChat4, XingChen4",
    notes="hermes's <tool_call> with a key/value body: active where named (presets), not in auto",
)

# GLM-5.3-Flash (SGLang's glm53_flash detector): `<tool_call>NAME>{...}` with no closer, the object ends the
# call and a `</tool_call>` after it is markup; or glm45's <arg_key>/<arg_value> call, which a handler of the
# same opener reads (glm45's own, under this format's name). <tool_call> is hermes's: active where named.
GLM53_FLASH: Final = Declaration(
    "glm53_flash",
    Call("<tool_call>", None, HeaderName(">"), JsonArgs()),
    control_tokens=("</tool_call>",),
    models="GLM-5.3-Flash (Zhipu AI)",
    notes="<tool_call>NAME>{json} without closer, or glm45's calls: active where named (presets), not in auto",
)

# PLaMo 3: `<|plamo:begin_tool_requests:plamo|>` around requests, each `<|plamo:begin_tool_request:plamo|>` +
# `<|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|>` + the arguments' JSON after
# `<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>` up to
# `<|plamo:end_tool_arguments:plamo|>` + `<|plamo:end_tool_request:plamo|>` (vLLM's plamo3 parser; SGLang's also
# reads the arguments without the constrain/msg markers). Reasoning is built in (states/text.py).
_PLAMO: Final = "<|plamo:{}:plamo|>".format
PLAMO3: Final = Declaration(
    "plamo3",
    Call(
        _PLAMO("begin_tool_request"),
        _PLAMO("end_tool_request"),
        HeaderName(_PLAMO("end_tool_name"), prefix=_PLAMO("begin_tool_name")),
        JsonArgs(_PLAMO("begin_tool_arguments") + "<|plamo:constrain|>json<|plamo:msg|>", _PLAMO("end_tool_arguments")),
    ),
    section=Section(_PLAMO("begin_tool_requests"), _PLAMO("end_tool_requests")),
    control_tokens=(_PLAMO("end_tool_requests"),),  # after a bare-marker request, read outside the section
    models="PLaMo 3 (Preferred Networks)",
    auto=True,
)

DECLARATIONS: tuple[Declaration, ...] = (
    K2_HORIZON,
    K2_V3,
    DOTS,
    GRANITE_20B_FC,
    ERNIE45,
    INKLING,
    IQUEST_Q1,
    IQUEST_CODER_V2,
    TELECHAT4,
    GLM53_FLASH,
    PLAMO3,
)

_INK_NAME: Final = re.compile(r"[A-Za-z0-9_.\-:/]{0,200}")


def _inkling_header(json_call: Handler) -> Handler:
    """``NAME<|content_invoke_tool_json|>`` at ``e``: the call (begun at ``s``) reads on from its opener."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        buf = eng.buf
        m = _INK_NAME.match(buf, e)
        assert m is not None  # the pattern matches the empty string
        ok = starts_or_prefix(buf, m.end(), _INK_OPEN)
        if ok is None:
            return False if final or m.end() - e >= LOOKAHEAD else None
        if not ok:
            return False
        return json_call(eng, s, m.end() + len(_INK_OPEN), final)

    return handler


def _with_json_dialect(spec: FormatSpec, opener: str, closer: str, shape: str) -> FormatSpec:
    """``spec``, also reading a JSON call object or list of them after ``opener`` (up to ``closer``)."""
    base, json_call = spec.wire, json_handler(spec.name, JsonName(), (closer,), several=True)

    def wire(w: Wiring) -> None:
        base(w)
        w.on(opener, json_call)

    return replace(spec, wire=wire, delimiters=spec.delimiters + " · " + shape)


def _with_inkling_header(spec: FormatSpec) -> FormatSpec:
    base = spec.wire
    header = _inkling_header(json_handler(spec.name, _INK_CALL, (_INK_CLOSE,), several=False))

    def wire(w: Wiring) -> None:
        base(w)
        w.on(_INK_MESSAGE, header)
        if w.explicit:  # named only: under "auto" a first word would wait to see whether the opener follows
            w.start.append(lambda eng, s, e, final: header(eng, s, s, final))

    return replace(spec, wire=wire)


def _with_glm45_calls(spec: FormatSpec) -> FormatSpec:
    """``spec``, also reading glm45's ``<tool_call>NAME<arg_key>...`` calls (its handler declines a ``>`` after
    the name, which this spec's reads) and GLM's interleaved ``<think>`` blocks where named."""
    base, tagged = spec.wire, glm_style_open(spec.name, GLM_SYNTAX)

    def wire(w: Wiring) -> None:
        w.on("<tool_call>", tagged)
        base(w)
        if w.explicit:
            w.add_reasoning("<think>", "</think>", start_only=False)

    return replace(spec, wire=wire, delimiters=spec.delimiters + " · <tool_call>NAME<arg_key>K</arg_key>...")


def _with_telechat4_json_arguments(spec: FormatSpec) -> FormatSpec:
    """``spec``, also reading ``<tool_call>NAME{...}</tool_call>`` (SGLang's telechat4 detector reads a name
    and the arguments' JSON object): the declaration with JSON arguments, wired second."""
    named_json = compile_declaration(replace(TELECHAT4, call=replace(TELECHAT4.call, arguments=JsonArgs())))
    base = spec.wire

    def wire(w: Wiring) -> None:
        base(w)
        named_json.wire(w)

    return replace(spec, wire=wire, delimiters=spec.delimiters + " · <tool_call>NAME{ARGS}</tool_call>")


def _with_bare_plamo_arguments(spec: FormatSpec) -> FormatSpec:
    """``spec``, also reading a request whose JSON follows ``<|plamo:begin_tool_arguments:plamo|>`` directly
    (SGLang's plamo3 detector reads both): the same declaration with the shorter marker, wired second."""
    args = JsonArgs(_PLAMO("begin_tool_arguments"), _PLAMO("end_tool_arguments"))
    bare = compile_declaration(replace(PLAMO3, call=replace(PLAMO3.call, arguments=args)))
    base = spec.wire

    def wire(w: Wiring) -> None:
        base(w)
        bare.wire(w)

    return replace(spec, wire=wire)


SPECS: list[FormatSpec] = [
    _with_json_dialect(
        compile_declaration(K2_HORIZON),
        "<ifm|tool_call>",
        "</ifm|tool_call>",
        '<ifm|tool_call>{"name": NAME, "arguments": ARGS}</ifm|tool_call>',
    ),
    _with_json_dialect(
        compile_declaration(K2_V3),
        "<ifm|tool_call>",
        "</ifm|tool_call>",
        '<ifm|tool_call>{"name": NAME, "arguments": ARGS}</ifm|tool_call>',
    ),
    _with_json_dialect(
        compile_declaration(DOTS),
        "<dots_function_call>",
        "</dots_function_call>",
        '<dots_function_call>{"name": NAME, "arguments": ARGS}</dots_function_call>',
    ),
    compile_declaration(GRANITE_20B_FC),
    compile_declaration(ERNIE45),
    _with_inkling_header(compile_declaration(INKLING)),
    compile_declaration(IQUEST_Q1),
    compile_declaration(IQUEST_CODER_V2),
    _with_telechat4_json_arguments(compile_declaration(TELECHAT4)),
    _with_glm45_calls(compile_declaration(GLM53_FLASH)),
    _with_bare_plamo_arguments(compile_declaration(PLAMO3)),
]
