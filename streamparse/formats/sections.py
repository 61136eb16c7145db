"""Sections of JSON calls behind a tag or token: jamba, minimax_m1, function_calls_json, token_json,
tag_json and tool_request (forms a and b; form c, the lost opener, is in :mod:`.unmarked`)."""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine
from ..core.lookahead import LOOKAHEAD, skip_ws
from ..states.json_body import JsonArgsState, JsonCallState
from . import tokens
from .base import FormatSpec, Wiring
from .declaration import Call, Declaration, HeaderName, JsonArgs, JsonName
from .openers import NAME_MAX, TOOL_NAME, Decision, after_opener, block_table, cut_off, objects_section, start_object

# -- jamba / minimax_m1 -----------------------------------------------------------------------------------

TOOL_CALLS_TAG: Final = "<tool_calls>"
TOOL_CALLS_CLOSE: Final = "</tool_calls>"


def jamba_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<tool_calls>[{...}, ...]</tool_calls>``; the closer wraps the list, so it is optional (end-of-stream rule)."""
    j = after_opener(eng, s, e, "jamba", final, token=False)
    if j is None or isinstance(j, bool):
        return j
    if eng.buf[j] != "[":
        return False
    eng.pos = j
    eng.push(JsonCallState(eng, "jamba", (TOOL_CALLS_CLOSE,), list_form=True, optional_close=True))
    return True


def _m1_object(eng: Engine, s: int, e: int, final: bool) -> bool:
    state = JsonCallState(eng, "minimax_m1", stops=(TOOL_CALLS_CLOSE,))
    return start_object(eng, s, s, "minimax_m1", state)


# MiniMax-M1: one call object per line inside `<tool_calls>`...`</tool_calls>`.
_M1_BLOCK: Final = block_table({"{": _m1_object}, (TOOL_CALLS_CLOSE,))


m1_open: Final = objects_section("minimax_m1", _M1_BLOCK, token=False)


def wire_jamba(w: Wiring) -> None:
    w.on(TOOL_CALLS_TAG, jamba_open)


def wire_minimax_m1(w: Wiring) -> None:
    w.on(TOOL_CALLS_TAG, m1_open)


# -- function_calls_json ----------------------------------------------------------------------------------

FUNCTION_CALLS: Final = "<function_calls>"
FUNCTION_CALLS_CLOSE: Final = "</function_calls>"


def function_calls_json(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<function_calls>`` + ``[`` (a list; the closer is then a section closer) or ``{`` (one call)."""
    fmt = "function_calls_json"
    j = after_opener(eng, s, e, fmt, final, token=False)
    if j is None or isinstance(j, bool):
        return j
    c = eng.buf[j]
    if c == "[":
        eng.pos = j
        eng.push(JsonCallState(eng, fmt, (FUNCTION_CALLS_CLOSE,), list_form=True, optional_close=True))
        return True
    if c == "{":
        return start_object(eng, s, j, fmt, JsonCallState(eng, fmt, (FUNCTION_CALLS_CLOSE,)))
    return False


def wire_function_calls_json(w: Wiring) -> None:
    w.on(FUNCTION_CALLS, function_calls_json)


# -- token_json -------------------------------------------------------------------------------------------


def token_json_call(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<|tool_call_begin|>{"name", "arguments"}<|tool_call_end|>``; kimi_k2 takes the ``NAME:IDX`` form."""
    j = after_opener(eng, s, e, "token_json", final, token=True)
    if j is None or isinstance(j, bool):
        return j
    if eng.buf[j] != "{":
        return False
    return start_object(eng, s, j, "token_json", JsonCallState(eng, "token_json", (tokens.KIMI_CALL_END,)))


tokens.SECTION_CALLS["token_json"] = token_json_call


def wire_token_json(w: Wiring) -> None:
    tokens.wire_section(w)
    w.on(tokens.KIMI_CALL_BEGIN, token_json_call)


# -- tag_json ---------------------------------------------------------------------------------------------

_TOOL_ATTR: Final = re.compile(r"""[ \t]*name[ \t]*=[ \t]*(["'])(?P<name>[^"'<>\n]{1,200})\1[ \t]*>""")
# Every proper prefix of a `<tool name="...">` header: prose such as `<tool or >` is released at once.
_TOOL_ATTR_PREFIX: Final = re.compile(
    r"""[ \t]*(?:n(?:a(?:m(?:e(?:[ \t]*(?:=[ \t]*(?:(["'])[^"'<>\n]{0,200}(?:\1[ \t]*)?)?)?)?)?)?)?)?\Z"""
)


def tool_name_tag(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<tool name="NAME">`` + a JSON object + ``</tool>``; ``<tool name="x"/>`` and other payloads are text."""
    buf = eng.buf
    m = _TOOL_ATTR.match(buf, e)
    if m is None:
        if final or _TOOL_ATTR_PREFIX.match(buf, e) is None:
            return False
        return None
    j = after_opener(eng, s, m.end(), "tag_json", final, token=False)
    if j is None or isinstance(j, bool):
        return j
    if buf[j] != "{":
        return False
    eng.begin_call("tag_json", s)
    eng.set_name(m.group("name").strip())
    eng.pos = j
    eng.push(JsonArgsState(eng, ("</tool>",)))
    return True


def wire_tag_json(w: Wiring) -> None:
    w.on("<tool ", tool_name_tag)


# -- tool_request (forms a and b; form c, the lost opener, is in formats/unmarked.py) ----------------------

TOOL_REQUEST: Final = "[TOOL_REQUEST]"
TOOL_REQUEST_ENDS: Final = ("[TOOL_REQUEST_END]", "[END_TOOL_REQUEST]")


def tool_request(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``[TOOL_REQUEST]`` + ``{"name", "arguments"}`` (b) or ``NAME ARGS`` (a), then either end marker."""
    fmt = "tool_request"
    buf = eng.buf
    j = after_opener(eng, s, e, fmt, final, token=True)
    if j is None or isinstance(j, bool):
        return j
    if buf[j] == "{":
        return start_object(eng, s, j, fmt, JsonCallState(eng, fmt, TOOL_REQUEST_ENDS))
    m = TOOL_NAME.match(buf, j)
    if m is None:
        return False
    i = m.end()
    if i >= len(buf):
        return False if i - j >= NAME_MAX else cut_off(eng, s, fmt, final)
    k = skip_ws(buf, i)
    if k >= len(buf):
        return False if k - i >= LOOKAHEAD else cut_off(eng, s, fmt, final)
    if buf[k] != "{":
        return False
    eng.begin_call(fmt, s)
    eng.set_name(m.group())
    eng.pos = k
    eng.push(JsonArgsState(eng, TOOL_REQUEST_ENDS))
    return True


def wire_tool_request_marked(w: Wiring) -> None:
    w.on(TOOL_REQUEST, tool_request)


# -- catalog -------------------------------------------------------------------------------------

_ARGS: Final = '{"minutes": 15}'

SPECS: Final = [
    FormatSpec(
        "jamba",
        "AI21 Jamba 1.5 / 1.6",
        '<tool_calls>[{"name": NAME, "arguments": ARGS}, ...]</tool_calls>',
        '<tool_calls>[{"name": "set_alarm", "arguments": ' + _ARGS + "}]</tool_calls>",
        wire_jamba,
        layout=Declaration("jamba", Call("<tool_calls>", "</tool_calls>", JsonName(list=True))),
    ),
    FormatSpec(
        "minimax_m1",
        "MiniMax-M1",
        '<tool_calls>\\n{"name": NAME, "arguments": ARGS}\\n{...}\\n</tool_calls> (one object per line)',
        '<tool_calls>\n{"name": "set_alarm", "arguments": ' + _ARGS + "}\n</tool_calls>",
        wire_minimax_m1,
    ),
    FormatSpec(
        "function_calls_json",
        "Llama variants on Groq",
        '<function_calls>[{"name": NAME, "arguments": ARGS}, ...]</function_calls>',
        '<function_calls>[{"name": "set_alarm", "arguments": ' + _ARGS + "}]</function_calls>",
        wire_function_calls_json,
    ),
    FormatSpec(
        "token_json",
        "prompted models (token-delimited JSON)",
        '[<|tool_calls_section_begin|>] <|tool_call_begin|>{"name": NAME, "arguments": ARGS}<|tool_call_end|> ... '
        "[<|tool_calls_section_end|>]",
        '<|tool_call_begin|>{"name": "set_alarm", "arguments": ' + _ARGS + "}<|tool_call_end|>",
        wire_token_json,
        layout=Declaration("token_json", Call("<|tool_call_begin|>", "<|tool_call_end|>")),
    ),
    FormatSpec(
        "tag_json",
        "prompted models behind a fail-closed fallback",
        '<tool name="NAME">ARGS</tool>',
        '<tool name="set_alarm">' + _ARGS + "</tool>",
        wire_tag_json,
        layout=Declaration("tag_json", Call("<tool", "</tool>", HeaderName(">", attribute="name"), JsonArgs())),
    ),
    FormatSpec(
        "tool_request",
        "Gemma via LLxprt Code, LM Studio's default tool prompt",
        "[TOOL_REQUEST]\\nNAME ARGS\\n[TOOL_REQUEST_END] · "
        '[TOOL_REQUEST]{"name": NAME, "arguments": ARGS}[END_TOOL_REQUEST] (either end marker)',
        '[TOOL_REQUEST]\nlookup_order {"order_id": "A-1001"}\n[TOOL_REQUEST_END]',
        wire_tool_request_marked,
    ),
]
