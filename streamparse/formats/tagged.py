"""Formats whose arguments are text values in tags (text-value rule): qwen3_coder, seed_oss, xml_invoke, minimax,
deepseek_dsml, minimax_m3, glm45."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Final

from ..core.engine import Engine, Handler
from ..core.lookahead import LOOKAHEAD, read_header, skip_ws, starts_or_prefix
from ..core.scanner import split_ns
from ..states.tag_body import TagCallState, TagSyntax
from ..states.text import drop
from ..states.xml_tree import XmlTreeState
from .base import FormatSpec, Wiring
from .declaration import Call, Declaration, HeaderName, Section, TaggedArgs, Values
from .openers import Decision, block, block_table, tag_call

# qwen3_coder / seed_oss -------------------------------------------------------------------------------

FUNCTION_NAME: Final = re.compile(r"(?P<name>[^\s<>=]{1,200})>")
QWEN_SYNTAX: Final = TagSyntax(
    param_open="<parameter=",
    header_end=">",
    param_header=re.compile(r"(?P<key>[^<>\n]{1,200})>"),
    param_close="</parameter>",
    call_close="</function>",
    lenient=True,
    outer_close=("</tool_call>", "</seed:tool_call>"),
    call_next=("</tool_call>", "<tool_call>", "<function="),
)


# Seed-OSS's template writes ``<parameter=K>`` + value + ``</parameter>``: values are verbatim.
SEED_SYNTAX: Final = replace(
    QWEN_SYNTAX, verbatim=True, call_next=("</seed:tool_call>", "<seed:tool_call>", "<function="), tables={}
)


# Qwen3-Coder without the ``<tool_call>`` wrapper (models drop it): ``\n</function>`` ends the call even when
# ``</parameter>`` is missing and prose follows (vLLM ends such a value at ``</function>`` too).
QWEN_BARE_SYNTAX: Final = replace(QWEN_SYNTAX, bare_close=True, tables={})


def _function_call(fmt: str, standalone: bool) -> Handler:
    # Standalone `<function=NAME>` is shared with function_tag, so it needs `<parameter=`/`</function>` next.
    nxt = ("<parameter=", "</function>") if standalone else ()
    syntax = SEED_SYNTAX if fmt == "seed_oss" else QWEN_BARE_SYNTAX if standalone else QWEN_SYNTAX
    return tag_call(fmt, FUNCTION_NAME, ">", syntax, require_next=nxt)


_QWEN_BLOCK: Final = block_table({"<function=": _function_call("qwen3_coder", False)}, ("</tool_call>",))
_SEED_BLOCK: Final = block_table({"<function=": _function_call("seed_oss", False)}, ("</seed:tool_call>",))


def wire_qwen3_coder(w: Wiring) -> None:
    w.on("<tool_call>", block(_QWEN_BLOCK, "<function="))
    w.on("<function=", _function_call("qwen3_coder", True))


def wire_seed_oss(w: Wiring) -> None:
    w.on("<seed:tool_call>", block(_SEED_BLOCK, "<function="))


# xml_invoke / minimax / deepseek_dsml -------------------------------------------------------------------

INVOKE_NAME: Final = re.compile(r"""\s+name\s*=\s*(["'])(?P<name>[^"'<>\n]{1,200})\1[^<>]*>""")
PARAM_HEADER: Final = re.compile(
    r"""\s+name\s*=\s*(["'])(?P<key>[^"'<>\n]{1,200})\1"""
    r"""(?:\s+string\s*=\s*(["'])(?P<string>true|false)\3)?[^<>]*>""",
    re.I,
)


@lru_cache(maxsize=64)
def invoke_syntax(prefix: str, trim: bool = False) -> TagSyntax:
    """``<PREFIXparameter name="K">`` ... for one namespace prefix (``""``, ``"antml:"``, ``"｜DSML｜"``).

    Every template of this family (Anthropic XML, MiniMax-M2, DeepSeek DSML) writes values verbatim."""
    return TagSyntax(
        param_open=f"<{prefix}parameter",
        header_end=">",
        param_header=PARAM_HEADER,
        param_close=f"</{prefix}parameter>",
        call_close=f"</{prefix}invoke>",
        lenient=False,
        trim=trim,
        verbatim=not trim,
    )


@lru_cache(maxsize=64)
def invoke_call(fmt: str, prefix: str, trim: bool = False) -> Handler:
    return tag_call(fmt, INVOKE_NAME, ">", invoke_syntax(prefix, trim))


def _prefix(eng: Engine, s: int, e: int, suffix: str) -> str:
    """The namespace prefix of a matched ``<ns:suffix`` (or ``""`` for the bare tag)."""
    parts = split_ns(eng.buf[s:e])
    return parts[0] + ":" if parts is not None else ""


@lru_cache(maxsize=64)
def _invoke_block(fmt: str, prefix: str):  # type: ignore[no-untyped-def]
    return block_table({f"<{prefix}invoke": invoke_call(fmt, prefix)}, (f"</{prefix}function_calls>",))


def function_calls_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    prefix = _prefix(eng, s, e, "function_calls>")
    return block(_invoke_block("xml_invoke", prefix), f"<{prefix}invoke")(eng, s, e, final)


def invoke_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    prefix = _prefix(eng, s, e, "invoke")
    return invoke_call("xml_invoke", prefix)(eng, s, e, final)


def wire_xml_invoke(w: Wiring) -> None:
    w.on("<function_calls>", function_calls_open)
    w.on_ns("function_calls>", function_calls_open)
    w.on("<invoke", invoke_open)
    w.on_ns("invoke", invoke_open)


# MiniMax-M2's and GLM's templates write values verbatim (``<parameter name="k">`` + v + ``</parameter>``),
# so the whitespace around a value is the model's (vLLM and SGLang strip it); Qwen3-Coder's template wraps
# values in one newline per side, which is all its values lose.
_MINIMAX_BLOCK: Final = block_table({"<invoke": invoke_call("minimax", "")}, ("</minimax:tool_call>",))


def wire_minimax(w: Wiring) -> None:
    w.on("<minimax:tool_call>", block(_MINIMAX_BLOCK, "<invoke"))


DSML: Final = "｜DSML｜"
# DeepSeek-V3.2 wraps calls in `function_calls`, V4 / V4-Flash in `tool_calls`, V4.1 writes a space after the
# DSML token in every tag (`<｜DSML｜ calls>`, `<｜DSML｜ invoke`, `<｜DSML｜ parameter`). Each spelling of the
# section accepts the invokes of both spacings; an invoke's parameters and closer follow its own spacing.
DSML_SECTIONS: Final = ("function_calls", "tool_calls", "calls")
_DSML_PREFIXES: Final = (DSML, DSML + " ")
# A no-argument call written as one self-closing tag: `<｜DSML｜invoke name="x"/>`.
_SELF_CLOSING: Final = re.compile(r"""\s+name\s*=\s*(["'])(?P<name>[^"'<>\n]{1,200})\1\s*/>""")


@lru_cache(maxsize=8)
def _dsml_syntax(prefix: str) -> TagSyntax:
    # V4.1's engines also end a value at the next parameter tag when its closer is missing (lenient).
    syn = invoke_syntax(prefix)
    if prefix == DSML:
        return syn
    return TagSyntax(syn.param_open, syn.header_end, syn.param_header, syn.param_close, syn.call_close, lenient=True)


def _dsml_invoke(prefix: str) -> Handler:
    body = tag_call("deepseek_dsml", INVOKE_NAME, ">", _dsml_syntax(prefix))

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        m = read_header(eng.buf, e, ">", _SELF_CLOSING, final)
        if m is None:
            return None
        if m:
            eng.begin_call("deepseek_dsml", s)
            eng.set_name(m.group("name").strip())
            eng.args("{}")
            eng.end_call(m.end())
            eng.pos = m.end()
            return True
        return body(eng, s, e, final)

    return handler


_DSML_BLOCK: Final = block_table(
    {f"<{p}invoke": _dsml_invoke(p) for p in _DSML_PREFIXES},
    tuple(f"</{p}{name}>" for p in _DSML_PREFIXES for name in DSML_SECTIONS),
)


def wire_deepseek_dsml(w: Wiring) -> None:
    for p in _DSML_PREFIXES:
        for name in DSML_SECTIONS:
            w.on(f"<{p}{name}>", block(_DSML_BLOCK, f"<{DSML}"))


# minimax_m3 -------------------------------------------------------------------------------------------

# MiniMax-M3 writes its namespace token before every tag of a call; arguments are an element tree
# (`<city>Paris</city>`, nested objects, repeated `<item>` for arrays). The token is removed from the
# body; a tag the model wrote without it is read too.
M3_NS: Final = "]<]minimax[>["
M3_INVOKE_NAME: Final = re.compile(r"""\s+name\s*=\s*(["'])(?P<name>[^"'<>\n]{1,200})\1\s*>""")


def m3_invoke(eng: Engine, s: int, e: int, final: bool) -> Decision:
    m = read_header(eng.buf, e, ">", M3_INVOKE_NAME, final)
    if not m:
        return m
    eng.begin_call("minimax_m3", s)
    eng.set_name(m.group("name").strip())
    eng.pos = m.end()
    eng.push(XmlTreeState("</invoke>", M3_NS))
    return True


_M3_BLOCK: Final = block_table(
    {f"{M3_NS}<invoke": m3_invoke, "<invoke": m3_invoke, M3_NS: drop},
    (f"{M3_NS}</tool_call>", "</tool_call>"),
)


def wire_minimax_m3(w: Wiring) -> None:
    w.on(f"{M3_NS}<tool_call>", block(_M3_BLOCK))
    w.on(f"{M3_NS}<invoke", m3_invoke)  # models also write the invokes without the section
    # The namespace token is a special token, never prose; so is a namespaced section closer left over.
    w.on(M3_NS, drop)
    w.on(f"{M3_NS}</tool_call>", drop)


# glm45 (and LongCat's key/value form) -----------------------------------------------------------------


def glm_syntax(key: str, value: str, call_close: str) -> TagSyntax:
    """``NAME<KEY>K</KEY> <VALUE>V</VALUE> ... CLOSE``: GLM-4.5's body, spelt with the family's own tags."""
    return TagSyntax(
        param_open=f"<{key}>",
        header_end=f"<{value}>",
        param_header=re.compile(rf"(?P<key>[^<]{{1,200}})</{key}>(?:\s|\\[nrt])*<{value}>"),  # escaped: GLM-4.6
        param_close=f"</{value}>",
        call_close=call_close,
        verbatim=True,
    )


GLM_SYNTAX: Final = glm_syntax("arg_key", "arg_value", "</tool_call>")
_NAME_CHARS: Final = re.compile(r"[A-Za-z0-9_.\-:/]{1,200}")


def glm_style_open(fmt: str, syn: TagSyntax) -> Handler:
    """The opener's handler: ``OPENER NAME`` (no space), then a newline, the first key tag or the call's closer;
    anything else (a JSON body, prose) is declined for the other handlers of the same opener."""
    ends = (syn.param_open, syn.call_close)

    def opened(eng: Engine, s: int, e: int, final: bool) -> Decision:
        buf = eng.buf
        m = _NAME_CHARS.match(buf, e)
        if m is None:
            return False if e < len(buf) or final else None
        i = m.end()
        if i >= len(buf):
            return False if final or i - e >= LOOKAHEAD else None
        # GLM-4.6 sometimes writes the whole call JSON-escaped once: a literal backslash-n after the name.
        escaped = starts_or_prefix(buf, i, "\\n")
        if escaped is None and not final:
            return None
        if buf[i] != "\n" and not escaped:
            results = [starts_or_prefix(buf, i, w) for w in ends]
            if not any(results):
                return None if (None in results and not final) else False
        eng.begin_call(fmt, s)
        eng.set_name(m.group())
        eng.pos = skip_ws(buf, i)
        eng.push(TagCallState(syn, escaped=bool(escaped)))
        return True

    return opened


glm45_open: Final = glm_style_open("glm45", GLM_SYNTAX)


def wire_glm45(w: Wiring) -> None:
    w.on("<tool_call>", glm45_open)
    if w.explicit:  # GLM-4.5+ interleave reasoning blocks with text and calls; only where GLM is named
        w.add_reasoning("<think>", "</think>", start_only=False)


def invoke_args(prefix: str, string_attribute: str | None = None) -> TaggedArgs:
    """The layout the invoke family's templates write for an argument, ``<PREFIXparameter name="K">V</...>``
    (structural tags, ``FormatSpec.layout``)."""
    return TaggedArgs(
        open=f"<{prefix}parameter",
        key_end=">",
        close=f"</{prefix}parameter>",
        key_attribute="name",
        string_attribute=string_attribute,
        values=Values(whitespace="strip"),
    )


SPECS: Final = [
    FormatSpec(
        "qwen3_coder",
        "Qwen3-Coder-30B-A3B, Qwen3-Coder-480B-A35B",
        "<tool_call> <function=NAME> <parameter=K>V</parameter> </function> </tool_call>",
        "<tool_call>\n<function=run_tests>\n<parameter=path>\ntests/api\n</parameter>\n</function>\n</tool_call>",
        wire_qwen3_coder,
        layout=Declaration(
            "qwen3_coder",
            Call(
                "<tool_call>\n<function=",
                "</function>\n</tool_call>",
                HeaderName(">"),
                TaggedArgs(open="<parameter=", key_end=">", close="</parameter>"),
            ),
        ),
    ),
    FormatSpec(
        "seed_oss",
        "ByteDance-Seed/Seed-OSS-36B",
        "<seed:tool_call> <function=NAME> <parameter=K>V</parameter> </function> </seed:tool_call>",
        "<seed:tool_call>\n<function=fare_quote>\n<parameter=route>LIS-OPO</parameter>\n</function>\n</seed:tool_call>",
        wire_seed_oss,
        layout=Declaration(
            "seed_oss",
            Call(
                "<seed:tool_call>\n<function=",
                "</function>\n</seed:tool_call>",
                HeaderName(">"),
                TaggedArgs(open="<parameter=", key_end=">", close="</parameter>", values=Values(whitespace="strip")),
            ),
        ),
    ),
    FormatSpec(
        "xml_invoke",
        "Claude in text mode, Anthropic-style XML through proxies",
        '<function_calls> <invoke name="NAME"> <parameter name="K">V</parameter> </invoke> </function_calls>'
        " (any ns: prefix)",
        '<function_calls>\n<invoke name="fetch_url">\n<parameter name="url">https://example.org/a</parameter>\n'
        "</invoke>\n</function_calls>",
        wire_xml_invoke,
        layout=Declaration(
            "xml_invoke",
            Call("<invoke", "</invoke>", HeaderName(">", attribute="name"), invoke_args("")),
            Section("<function_calls>", "</function_calls>"),
        ),
    ),
    FormatSpec(
        "minimax",
        "MiniMax-M2",
        '<minimax:tool_call> <invoke name="NAME"> <parameter name="K">V</parameter> </invoke> </minimax:tool_call>',
        '<minimax:tool_call>\n<invoke name="fare_quote">\n<parameter name="route">LIS-OPO</parameter>\n'
        "</invoke>\n</minimax:tool_call>",
        wire_minimax,
        primed=True,
        layout=Declaration(
            "minimax",
            Call("<invoke", "</invoke>\n", HeaderName(">\n", attribute="name"), invoke_args("")),
            Section("<minimax:tool_call>\n", "</minimax:tool_call>"),
        ),
    ),
    FormatSpec(
        "deepseek_dsml",
        "DeepSeek-V3.2 (function_calls), V4 / V4-Flash (tool_calls), V4.1 (` calls`, a space in every tag)",
        '<｜DSML｜function_calls> <｜DSML｜invoke name="NAME"> <｜DSML｜parameter name="K" string="true|false">V'
        "</｜DSML｜parameter> </｜DSML｜invoke> </｜DSML｜function_calls> · "
        "<｜DSML｜tool_calls>...</｜DSML｜tool_calls> · "
        '<｜DSML｜ calls> <｜DSML｜ invoke name="NAME"> <｜DSML｜ parameter ...>V</｜DSML｜ parameter> ... · '
        '<｜DSML｜invoke name="NAME"/> (no arguments)',
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="set_alarm">\n<｜DSML｜parameter name="minutes" '
        'string="false">15</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
        wire_deepseek_dsml,
        layout=Declaration(
            "deepseek_dsml",
            Call(
                f"<{DSML}invoke",
                f"</{DSML}invoke>\n",
                HeaderName(">\n", attribute="name"),
                invoke_args(DSML, "string"),
            ),
            Section(f"<{DSML}function_calls>\n", f"</{DSML}function_calls>"),
        ),
    ),
    FormatSpec(
        "minimax_m3",
        "MiniMax-M3",
        ']<]minimax[>[<tool_call> ]<]minimax[>[<invoke name="NAME"> ]<]minimax[>[<K>V]<]minimax[>[</K> ... '
        "]<]minimax[>[</invoke> ]<]minimax[>[</tool_call> (nested <K> objects, repeated <item> arrays)",
        ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="fare_quote">\n]<]minimax[>[<route>LIS-OPO'
        "]<]minimax[>[</route>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
        wire_minimax_m3,
    ),
    FormatSpec(
        "glm45",
        "GLM-4.5, GLM-4.5-Air, GLM-4.6, GLM-4.7",
        "<tool_call>NAME <arg_key>K</arg_key> <arg_value>V</arg_value> </tool_call>",
        "<tool_call>lookup_order\n<arg_key>order_id</arg_key>\n<arg_value>A-1001</arg_value>\n</tool_call>",
        wire_glm45,
        layout=Declaration(
            "glm45",
            Call(
                "<tool_call>",
                "</tool_call>",
                HeaderName("\n"),
                TaggedArgs(
                    open="<arg_key>",
                    key_end="</arg_key>",
                    value_open="<arg_value>",
                    close="</arg_value>",
                    values=Values(whitespace="verbatim"),
                ),
            ),
        ),
    ),
]
