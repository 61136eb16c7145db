"""Families written as declarations (formats/declaration.py), compiled like any declared format.

Each declaration follows the family's chat template (how it writes a call, its arguments and its
reasoning) and the family's reference parsers in vLLM and SGLang; docs/FORMATS.md has one entry per
family. The compiler gives them what every built-in format has: earliest release, chunking invariance,
schema validation, fail closed, snapshots.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from .base import FormatSpec, Wiring
from .compiler import compile_declaration
from .declaration import (
    Call,
    Declaration,
    HeaderName,
    IdSpec,
    JsonArgs,
    JsonName,
    Reasoning,
    Section,
    TaggedArgs,
    Values,
    Wrapper,
)
from .tagged import glm_style_open, glm_syntax

_O: Final = "<|open|>"
_C: Final = "<|close|>"
_S: Final = "<|sep|>"

# Kimi K3 "XTML": channels and elements framed by <|open|>NAME attrs<|sep|> ... <|close|>NAME<|sep|>.
# Attribute values are XML-escaped (& and "), argument bodies are raw; type="string" is text, any other
# type JSON; arguments the client sent as a JSON string are one json element instead. The prompt opens
# the think channel when thinking is on, the response channel when it is off.
KIMI_K3: Final = Declaration(
    "kimi_k3",
    Call(
        f"{_O}call",
        f"{_C}call{_S}",
        HeaderName(_S, attribute="tool", escapes="xml"),
        TaggedArgs(
            f"{_O}argument",
            _S,
            f"{_C}argument{_S}",
            key_attribute="key",
            type_attribute="type",
            attribute_escapes="xml",
            values=Values(whitespace="verbatim"),
            json_block=JsonArgs(f'{_O}json type="object"{_S}', f"{_C}json{_S}"),
        ),
    ),
    section=Section(f"{_O}tools{_S}", f"{_C}tools{_S}"),
    reasoning=(Reasoning(f"{_O}think{_S}", f"{_C}think{_S}", primed=True),),
    content=Wrapper(f"{_O}response{_S}", f"{_C}response{_S}"),
    control_tokens=(f"{_C}message{_S}", "<|end_of_msg|>"),
    models="Kimi K3",
    example=f'Checking.{_C}response{_S}{_O}tools{_S}{_O}call tool="get_weather" index="1"{_S}'
    f'{_O}argument key="city" type="string"{_S}Paris{_C}argument{_S}{_C}call{_S}{_C}tools{_S}',
    notes="XTML channels; typed and escaped attributes; primed think channel",
    auto=True,
)

# GigaChat 3 / 3.1: one call as a "function call" role message holding a JSON object; 3.1 also writes
# <|function_call|> before the object. <|message_sep|> ends every role message; the templates (3, 3.1, 3.5)
# write it with a blank line after it, which is layout, not content.
GIGACHAT3: Final = Declaration(
    "gigachat3",
    Call("function call<|role_sep|>", None, JsonName(alt_arguments_fields=()), also_open=("<|function_call|>",)),
    control_tokens=("<|message_sep|>\n\n", "<|message_sep|>"),
    models="GigaChat 3, GigaChat 3.1",
    notes="a role header opens the call: active where named (presets), not in auto",
)

# GigaChat 3.5 "GCML": DSML-like elements with string="true|false" typing, values written verbatim.
_G: Final = "<｜GCML｜"
GIGACHAT35: Final = Declaration(
    "gigachat35",
    Call(
        f"{_G}invoke",
        "</｜GCML｜invoke>",
        HeaderName(">", attribute="name"),
        TaggedArgs(
            f"{_G}parameter",
            ">",
            "</｜GCML｜parameter>",
            key_attribute="name",
            string_attribute="string",
            values=Values(whitespace="verbatim"),
        ),
    ),
    section=Section(f"{_G}tool_calls>", "</｜GCML｜tool_calls>"),
    control_tokens=("<|message_sep|>\n\n", "<|message_sep|>"),
    models="GigaChat 3.5",
    auto=True,
)

# Apertus: a JSON list of {"NAME": ARGS} objects between special tokens; reasoning in the inner channel.
APERTUS: Final = Declaration(
    "apertus",
    Call("", None, JsonName(list=True, name_is_key=True)),
    section=Section("<|tools_prefix|>", "<|tools_suffix|>"),
    reasoning=(Reasoning("<|inner_prefix|>", "<|inner_suffix|>", start_only=False),),
    control_tokens=("<|assistant_end|>",),
    models="Apertus 8B / 70B (swiss-ai)",
    auto=True,
)


def _hy_call(end: str, name: HeaderName) -> Call:
    """Tencent's key/value call: ``<tool_call`` + suffix + ``>`` NAME ... ``<arg_key…>K</arg_key…>``
    ``<arg_value…>V</arg_value…>`` ... ``</tool_call…>``, values verbatim; ``end`` is the suffix and ``>``."""
    args = TaggedArgs(
        "<arg_key" + end,
        "</arg_key" + end,
        "</arg_value" + end,
        value_open="<arg_value" + end,
        values=Values(whitespace="verbatim"),
    )
    return Call("<tool_call" + end, "</tool_call" + end, name, args)


# Tencent Hy3: key/value markers with the ":opensource" token suffix.
_HY: Final = ":opensource>"
HY3: Final = Declaration(
    "hy3",
    _hy_call(_HY, HeaderName("<tool_sep" + _HY)),
    section=Section("<tool_calls" + _HY, "</tool_calls" + _HY),
    reasoning=(Reasoning("<think" + _HY, "</think" + _HY, primed=True),),
    control_tokens=("<｜hy_eos:opensource｜>",),
    models="Tencent Hy3 (Hunyuan 3)",
    auto=True,
)

# Hy3 whose tokenizer has no token suffix (vLLM's tests of tencent/Hy3-preview): the same markup without
# ":opensource". Its <tool_call> and <tool_calls> are other families' openers, so it is active where named.
HY3_PLAIN: Final = Declaration(
    "hy3_plain",
    _hy_call(">", HeaderName("<tool_sep>")),
    section=Section("<tool_calls>", "</tool_calls>"),
    models="Tencent Hy3 (tokenizer without the token suffix)",
    notes="shares <tool_call>/<tool_calls> with other families: active where named (presets), not in auto",
)


def hy4_declaration(suffix: str = ":opensource", name: str = "hy4") -> Declaration:
    """Tencent HY v4 (vLLM's hy_v4 parsers): Hy3's markup without ``<tool_sep>`` (the name ends at the first
    ``<arg_key>`` or at the call's closer), every structural token carrying the checkpoint's own suffix
    (``":opensource"``, ``""``, or a hash such as ``":6124c78e"``, read by vLLM from the tokenizer's vocabulary).
    The prompt opens ``<think>`` unless ``reasoning_effort`` is ``"no_think"``. A checkpoint with another
    suffix registers ``hy4_declaration(its_suffix, name)``."""
    end = suffix + ">"
    return Declaration(
        name,
        _hy_call(end, HeaderName("")),
        section=Section("<tool_calls" + end, "</tool_calls" + end),
        reasoning=(Reasoning("<think" + end, "</think" + end, primed=True),),
        models=f"Tencent HY v4 (Hy4; token suffix {suffix!r})" if suffix else "Tencent HY v4 (Hy4; no token suffix)",
        notes="on where named (the HY v4 preset); hy3 reads its calls behind their shared opener",
    )


HY4: Final = hy4_declaration()
HY4_PLAIN: Final = hy4_declaration("", "hy4_plain")

# Solar Open: <|tool_calls|> then per call an id, the name and JSON arguments between tokens.
SOLAR_OPEN: Final = Declaration(
    "solar_open",
    Call(
        "<|tool_call:begin|>",
        "<|tool_call:end|>",
        HeaderName("<|tool_call:args|>"),
        JsonArgs(),
        id=IdSpec("before_name", "<|tool_call:name|>"),
    ),
    section=Section("<|tool_calls|>"),
    reasoning=(Reasoning("<|think|>", "<|end|>"),),
    content=Wrapper("<|content|>", None),
    control_tokens=("<|begin|>assistant", "<|flush|>", "<|calls|>"),
    models="Solar Open (Upstage)",
    auto=True,
)

# Solar Open 2: one call per <|tool_call:start|>NAME\n block, one <|tool_arg:start|>K<|tool_arg:value|>V<|tool_arg:end|>
# per argument (values verbatim, typed by the schema), reasoning in <|think:start|>...<|think:end|>, the turn
# ended by <|im:end|> (vLLM's solar_open2 parser and its tests; no chat template of the model could be read).
# The template opens the think block for reasoning effort medium / high and pre-closes it otherwise: told
# nothing, the output starts as text and the orphan <|think:end|> moves what came before it to reasoning.
SOLAR_OPEN2: Final = Declaration(
    "solar_open2",
    Call(
        "<|tool_call:start|>",
        "<|tool_call:end|>",
        HeaderName("\n"),
        TaggedArgs(
            "<|tool_arg:start|>", "<|tool_arg:value|>", "<|tool_arg:end|>", values=Values(whitespace="verbatim")
        ),
    ),
    reasoning=(Reasoning("<|think:start|>", "<|think:end|>", primed=True),),
    control_tokens=("<|im:end|>",),
    models="Solar Open 2 (Upstage)",
    auto=True,
)

# LongCat-Flash: hermes-style JSON objects in their own tags. Its models also write the body GLM-4.5's way
# (`NAME<longcat_arg_key>K</longcat_arg_key><longcat_arg_value>V</longcat_arg_value>`, public bug reports): a
# second handler of the same opener (tagged.glm_style_open) reads that form, declining a JSON body.
LONGCAT: Final = Declaration(
    "longcat",
    Call("<longcat_tool_call>", "</longcat_tool_call>", JsonName()),
    # vLLM's longcat reasoning parser: the thinking-mode prompt ends with <longcat_think>.
    reasoning=(Reasoning("<longcat_think>", "</longcat_think>", primed=True),),
    models="LongCat-Flash (Meituan)",
    auto=True,
)

# MiniCPM5: <function name="NAME"><param name="K">V</param></function>; the template writes each value with
# Jinja's `~` (Python's str: True, {'a': 1}), read back by the schema; values are trimmed (vLLM strips them,
# CDATA's inner text included); a CDATA section's text is the value, markup inside it is text.
MINICPM5: Final = Declaration(
    "minicpm5",
    Call(
        "<function",
        "</function>",
        HeaderName(">", attribute="name"),
        TaggedArgs(
            "<param", ">", "</param>", key_attribute="name", values=Values(others="raw", whitespace="strip", cdata=True)
        ),
    ),
    models="MiniCPM5 (OpenBMB)",
    notes="a plain <function> element: active where named (presets), not in auto",
)

# Step-3: steptml invokes, each framed by DeepSeek-like tokens (fullwidth bars, no ▁) inside a section:
# <｜tool_call_begin｜>, optionally `function<｜tool_sep｜>NAME` (noise: the invoke names the tool), the invoke,
# <｜tool_call_end｜>, and <｜tool_sep｜> between calls (vLLM's tests write all of these). Values sit inline
# between the tags, so their whitespace is data (vLLM keeps it); non-string values are typed by the schema.
_STEP3_FRAMING: Final = ("<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>")
STEP3: Final = Declaration(
    "step3",
    Call(
        "<steptml:invoke",
        "</steptml:invoke>",
        HeaderName(">", attribute="name"),
        TaggedArgs(
            "<steptml:parameter",
            ">",
            "</steptml:parameter>",
            key_attribute="name",
            values=Values(whitespace="verbatim"),
        ),
    ),
    section=Section("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", separators=_STEP3_FRAMING, noise=True),
    control_tokens=_STEP3_FRAMING,  # a call read outside its section (models drop the wrapper) keeps no framing
    models="Step-3 (StepFun)",
    auto=True,
)

DECLARATIONS: tuple[Declaration, ...] = (
    KIMI_K3,
    GIGACHAT3,
    GIGACHAT35,
    APERTUS,
    HY3,
    HY3_PLAIN,
    HY4,
    HY4_PLAIN,
    SOLAR_OPEN,
    SOLAR_OPEN2,
    LONGCAT,
    MINICPM5,
    STEP3,
)

LONGCAT_KEY_VALUE: Final = glm_syntax("longcat_arg_key", "longcat_arg_value", "</longcat_tool_call>")


def _with_key_value_body(spec: FormatSpec) -> FormatSpec:
    """LongCat's spec, also reading the key/value body after ``<longcat_tool_call>``."""
    base, opener = spec.wire, glm_style_open("longcat", LONGCAT_KEY_VALUE)

    def wire(w: Wiring) -> None:
        base(w)
        w.on("<longcat_tool_call>", opener)

    return replace(
        spec,
        wire=wire,
        delimiters=spec.delimiters + " · <longcat_tool_call>NAME <longcat_arg_key>K"
        "</longcat_arg_key> <longcat_arg_value>V</longcat_arg_value> </longcat_tool_call>",
    )


# Hy3 and HY v4 share their call opener (with the same suffix): each reads the other's calls where its own
# shape declines, so a section opened by either holds both.
_SHARED_OPENER: Final = {HY3: (HY4,), HY4: (HY3,), HY3_PLAIN: (HY4_PLAIN,), HY4_PLAIN: (HY3_PLAIN,)}
SPECS: list[FormatSpec] = [
    _with_key_value_body(compile_declaration(d)) if d is LONGCAT else compile_declaration(d, _SHARED_OPENER.get(d, ()))
    for d in DECLARATIONS
]
