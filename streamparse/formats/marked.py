"""Formats whose calls are JSON behind a distinctive marker, each with its own framing: llama3_json (the
``<|python_tag|>`` form), mistral, granite, phi4_mini, internlm, command_r, jamba, minimax_m1,
function_calls_json, token_json, tag_json, tool_request (forms a and b) and functionary_v3.

Several of them have no end marker (mistral, granite's ``<|tool_call|>``, phi4_mini, functionary_v3): a
call ends the moment its JSON closes (invariant 4). A malformed body cannot be delimited by a closer then,
so it is swallowed up to the format's next opener (or the end of the stream) into the rejection's raw
text (:mod:`streamparse.calls`): markup never leaks into the visible text. A special-token opener
(``[TOOL_CALLS]``, ``<|python_tag|>``...) cut off by the end of the stream is a truncated call, never
text: those tokens do not occur in prose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from ..calls import LOOKAHEAD, BlockState, JsonArgsState, JsonCallState, fence_at, skip_ws, starts_or_prefix
from ..engine import Engine, Handler, MarkerTable, ScanState, State
from ..rejections import Reason
from ..textscope import CONTROL_TOKENS, drop, pop_scope
from . import tokens
from .base import FormatSpec, Wiring
from .openers import Decision, block_table

_NAME = re.compile(r"\w[\w.\-]{0,199}")  # a bare tool name (mistral, tool_request)
_NAME_MAX = 200


# -- shared pieces ------------------------------------------------------------------------------------


def _cut_off(eng: Engine, s: int, fmt: str, final: bool) -> Decision:
    """The stream may still complete the opener's continuation: wait, or at the end a truncated call."""
    if not final:
        return None
    eng.begin_call(fmt, s)
    eng.fail_call(Reason.TRUNCATED, "the stream ended right after the opener", len(eng.buf))
    eng.pos = len(eng.buf)
    return True


def _next(eng: Engine, s: int, e: int, fmt: str, final: bool, token: bool) -> int | bool | None:
    """Index of the first non-space character after an opener; for a special ``token`` opener the end of
    the stream there is a truncated call, for a plain-text opener it leaves the opener as text."""
    buf = eng.buf
    j = skip_ws(buf, e)
    if j < len(buf):
        return j
    if j - e >= LOOKAHEAD:
        return False
    if token:
        return _cut_off(eng, s, fmt, final)
    return False if final else None


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _start_object(eng: Engine, s: int, j: int, fmt: str, state: State) -> bool:
    eng.begin_call(fmt, s)
    eng.pos = j
    eng.push(state)
    return True


# -- llama3_json (marked form) --------------------------------------------------------------------------

PYTHON_TAG = "<|python_tag|>"
LLAMA_ENDS = ("<|eom_id|>", "<|eot_id|>")


def _llama_object(eng: Engine, s: int, e: int, final: bool) -> bool:
    return _start_object(eng, s, s, "llama3_json", JsonCallState(eng, "llama3_json", stops=LLAMA_ENDS + (";",)))


# After `<|python_tag|>`: call objects separated by `;`, closed by the end-of-message token.
_LLAMA_BLOCK = block_table({"{": _llama_object, ";": drop}, LLAMA_ENDS)


def _objects_section(fmt: str, table: Callable[[], MarkerTable], token: bool) -> Handler:
    """An opener followed by one or more JSON call objects, read as a section (``{`` must come next)."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        j = _next(eng, s, e, fmt, final, token=token)
        if j is None or isinstance(j, bool):
            return j
        if eng.buf[j] != "{":
            return False
        eng.pos = e
        eng.push(BlockState(table()))
        return True

    return handler


# ``<|python_tag|>`` then JSON call objects; built-in tool calls (``brave_search.call(...)``) are text.
python_tag = _objects_section("llama3_json", _LLAMA_BLOCK, token=True)


def wire_llama3_json_marked(w: Wiring) -> None:
    """The marked form only; the bare form at output start (R4) is wired by ``formats/unmarked.py``."""
    w.on(PYTHON_TAG, python_tag)


# -- mistral ----------------------------------------------------------------------------------------------

TOOL_CALLS = "[TOOL_CALLS]"
_CALL_ID = re.compile(r"[^\[\]\s{}]{1,200}")


def mistral_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``[TOOL_CALLS]`` + a list of call objects (pre-v11), or ``NAME[ARGS]{...}``,
    ``NAME[CALL_ID]ID[ARGS]{...}``, ``NAME{...}`` (v11+). No end marker: the call ends with its JSON."""
    fmt = "mistral"
    buf = eng.buf
    j = _next(eng, s, e, fmt, final, token=True)
    if j is None or isinstance(j, bool):
        return j
    c = buf[j]
    if c == "[":
        eng.pos = j
        eng.push(JsonCallState(eng, fmt, list_form=True, stops=(TOOL_CALLS,)))
        return True
    if c == "{":
        return _start_object(eng, s, j, fmt, JsonCallState(eng, fmt, stops=(TOOL_CALLS,)))
    m = _NAME.match(buf, j)
    if m is None:
        return False
    i = m.end()
    if i >= len(buf):
        return False if i - j >= _NAME_MAX else _cut_off(eng, s, fmt, final)
    call_id = None
    marked = False
    if buf[i] == "[":
        ok = starts_or_prefix(buf, i, "[CALL_ID]")
        if ok is None:
            return _cut_off(eng, s, fmt, final)
        if ok:
            idm = _CALL_ID.match(buf, i + 9)
            if idm is None and i + 9 < len(buf):
                return False
            if idm is None or idm.end() >= len(buf):
                return _cut_off(eng, s, fmt, final)
            call_id = idm.group()
            i = idm.end()
        ok = starts_or_prefix(buf, i, "[ARGS]")
        if ok is None:
            return _cut_off(eng, s, fmt, final)
        if not ok:
            return False
        i += 6
        marked = True
    k = skip_ws(buf, i)
    if k >= len(buf):
        return False if k - i >= LOOKAHEAD else _cut_off(eng, s, fmt, final)
    if buf[k] != "{" and not marked:
        return False  # prose after the token: `[TOOL_CALLS]` is text (R2)
    eng.begin_call(fmt, s)
    eng.set_name(m.group(), call_id=call_id)
    eng.pos = k
    eng.push(JsonArgsState(eng, stops=(TOOL_CALLS,)))  # `NAME[ARGS]` + non-object: rejected malformed
    return True


def wire_mistral(w: Wiring) -> None:
    w.on(TOOL_CALLS, mistral_open)


# -- granite ----------------------------------------------------------------------------------------------

GRANITE_TOKEN = "<|tool_call|>"


def granite_token(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Granite 3.0: ``<|tool_call|>[{...}, ...]``, no end marker."""
    j = _next(eng, s, e, "granite", final, token=True)
    if j is None or isinstance(j, bool):
        return j
    c = eng.buf[j]
    if c == "[":
        eng.pos = j
        eng.push(JsonCallState(eng, "granite", list_form=True, stops=(GRANITE_TOKEN,)))
        return True
    if c == "{":
        return _start_object(eng, s, j, "granite", JsonCallState(eng, "granite", stops=(GRANITE_TOKEN,)))
    return False


def granite_tag(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Granite 3.1 / 3.2: ``<tool_call>[{...}, ...]`` with no closing tag (hermes defers ``[`` to us)."""
    j = _next(eng, s, e, "granite", final, token=False)
    if j is None or isinstance(j, bool):
        return j
    if eng.buf[j] != "[":
        return False
    eng.pos = j
    eng.push(
        JsonCallState(
            eng, "granite", ("</tool_call>",), list_form=True, optional_close=True, stops=("<tool_call>",)
        )
    )
    return True


def wire_granite(w: Wiring) -> None:
    w.on(GRANITE_TOKEN, granite_token)
    w.on("<tool_call>", granite_tag)


# -- phi4_mini --------------------------------------------------------------------------------------------

FUNCTOOLS = "functools["


def functools_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``functools[{...}, ...]``: a whole word, ``[`` right after it, a call object inside."""
    buf = eng.buf
    if s > 0 and _word_char(buf[s - 1]):
        return False
    j = _next(eng, s, e, "phi4_mini", final, token=True)
    if j is None or isinstance(j, bool):
        return j
    if buf[j] != "{":
        return False  # `functools[0]`, `functools[]`: text
    eng.pos = e - 1
    eng.push(JsonCallState(eng, "phi4_mini", list_form=True, stops=(FUNCTOOLS,)))
    return True


def wire_phi4_mini(w: Wiring) -> None:
    w.on(FUNCTOOLS, functools_open)


# -- internlm ---------------------------------------------------------------------------------------------

ACTION_START = "<|action_start|>"
ACTION_END = "<|action_end|>"
PLUGIN = "<|plugin|>"
INTERPRETER = "<|interpreter|>"
# `<|action_start|><|interpreter|>` carries code for InternLM's own interpreter, not a function call: its
# tokens are dropped and the code stays visible text up to `<|action_end|>`.
_INTERPRETER = MarkerTable({ACTION_END: [pop_scope], **{t: [drop] for t in CONTROL_TOKENS}})


def action_start(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<|action_start|><|plugin|>`` + a JSON call object + ``<|action_end|>``."""
    fmt = "internlm"
    buf = eng.buf
    j = _next(eng, s, e, fmt, final, token=True)
    if j is None or isinstance(j, bool):
        return j
    plugin = starts_or_prefix(buf, j, PLUGIN)
    interp = starts_or_prefix(buf, j, INTERPRETER)
    if plugin:
        k = _next(eng, s, j + len(PLUGIN), fmt, final, token=True)
        if k is None or isinstance(k, bool):
            return k
        return _start_object(eng, s, k, fmt, JsonCallState(eng, fmt, (ACTION_END,)))
    if interp:
        eng.pos = j + len(INTERPRETER)
        eng.push(ScanState(_INTERPRETER))
        return True
    if plugin is None or interp is None:
        return _cut_off(eng, s, fmt, final)
    return False


def wire_internlm(w: Wiring) -> None:
    w.on(ACTION_START, action_start)


# -- command_r --------------------------------------------------------------------------------------------

START_ACTION = "<|START_ACTION|>"
END_ACTION = "<|END_ACTION|>"


def action_fence(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Command R / R+: ``Action:`` + a json fence holding ``[{"tool_name", "parameters"}, ...]``."""
    buf = eng.buf
    if s > 0 and _word_char(buf[s - 1]):
        return False
    j = _next(eng, s, e, "command_r", final, token=False)
    if j is None or isinstance(j, bool):
        return j
    if buf[j] != "`":
        return False
    f = fence_at(buf, j, final)
    if f is None or f is False:
        return f
    k = skip_ws(buf, f)
    if k >= len(buf):
        return False if final or k - f >= LOOKAHEAD else None
    if buf[k] != "[":
        return False
    eng.pos = k
    eng.push(JsonCallState(eng, "command_r", list_form=True, fenced=True, ends=("```",)))
    return True


def start_action(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Command R7B / Command A: ``<|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}]<|END_ACTION|>``."""
    j = _next(eng, s, e, "command_r", final, token=True)
    if j is None or isinstance(j, bool):
        return j
    c = eng.buf[j]
    if c == "[":
        eng.pos = j
        eng.push(JsonCallState(eng, "command_r", (END_ACTION,), list_form=True))
        return True
    if c == "{":
        return _start_object(eng, s, j, "command_r", JsonCallState(eng, "command_r", (END_ACTION,)))
    return False


def wire_command_r(w: Wiring) -> None:
    w.on("Action:", action_fence)
    w.on(START_ACTION, start_action)


# -- jamba / minimax_m1 -----------------------------------------------------------------------------------

TOOL_CALLS_TAG = "<tool_calls>"
TOOL_CALLS_CLOSE = "</tool_calls>"


def jamba_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<tool_calls>[{...}, ...]</tool_calls>``; the closer wraps the list, so it is optional (R9)."""
    j = _next(eng, s, e, "jamba", final, token=False)
    if j is None or isinstance(j, bool):
        return j
    if eng.buf[j] != "[":
        return False
    eng.pos = j
    eng.push(JsonCallState(eng, "jamba", (TOOL_CALLS_CLOSE,), list_form=True, optional_close=True))
    return True


def _m1_object(eng: Engine, s: int, e: int, final: bool) -> bool:
    state = JsonCallState(eng, "minimax_m1", stops=(TOOL_CALLS_CLOSE,))
    return _start_object(eng, s, s, "minimax_m1", state)


# MiniMax-M1: one call object per line inside `<tool_calls>`...`</tool_calls>`.
_M1_BLOCK = block_table({"{": _m1_object}, (TOOL_CALLS_CLOSE,))


m1_open = _objects_section("minimax_m1", _M1_BLOCK, token=False)


def wire_jamba(w: Wiring) -> None:
    w.on(TOOL_CALLS_TAG, jamba_open)


def wire_minimax_m1(w: Wiring) -> None:
    w.on(TOOL_CALLS_TAG, m1_open)


# -- function_calls_json ----------------------------------------------------------------------------------

FUNCTION_CALLS = "<function_calls>"
FUNCTION_CALLS_CLOSE = "</function_calls>"


def function_calls_json(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<function_calls>`` + ``[`` (a list; the closer is then a section closer) or ``{`` (one call)."""
    fmt = "function_calls_json"
    j = _next(eng, s, e, fmt, final, token=False)
    if j is None or isinstance(j, bool):
        return j
    c = eng.buf[j]
    if c == "[":
        eng.pos = j
        eng.push(JsonCallState(eng, fmt, (FUNCTION_CALLS_CLOSE,), list_form=True, optional_close=True))
        return True
    if c == "{":
        return _start_object(eng, s, j, fmt, JsonCallState(eng, fmt, (FUNCTION_CALLS_CLOSE,)))
    return False


def wire_function_calls_json(w: Wiring) -> None:
    w.on(FUNCTION_CALLS, function_calls_json)


# -- token_json -------------------------------------------------------------------------------------------


def token_json_call(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<|tool_call_begin|>{"name", "arguments"}<|tool_call_end|>``; kimi_k2 takes the ``NAME:IDX`` form."""
    j = _next(eng, s, e, "token_json", final, token=True)
    if j is None or isinstance(j, bool):
        return j
    if eng.buf[j] != "{":
        return False
    return _start_object(eng, s, j, "token_json", JsonCallState(eng, "token_json", (tokens.KIMI_CALL_END,)))


tokens.SECTION_CALLS["token_json"] = token_json_call


def wire_token_json(w: Wiring) -> None:
    tokens.wire_section(w)
    w.on(tokens.KIMI_CALL_BEGIN, token_json_call)


# -- tag_json ---------------------------------------------------------------------------------------------

_TOOL_ATTR = re.compile(r"""[ \t]*name[ \t]*=[ \t]*(["'])(?P<name>[^"'<>\n]{1,200})\1[ \t]*>""")
# Every proper prefix of a `<tool name="...">` header: prose such as `<tool or >` is released at once.
_TOOL_ATTR_PREFIX = re.compile(
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
    j = _next(eng, s, m.end(), "tag_json", final, token=False)
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

TOOL_REQUEST = "[TOOL_REQUEST]"
TOOL_REQUEST_ENDS = ("[TOOL_REQUEST_END]", "[END_TOOL_REQUEST]")


def tool_request(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``[TOOL_REQUEST]`` + ``{"name", "arguments"}`` (b) or ``NAME ARGS`` (a), then either end marker."""
    fmt = "tool_request"
    buf = eng.buf
    j = _next(eng, s, e, fmt, final, token=True)
    if j is None or isinstance(j, bool):
        return j
    if buf[j] == "{":
        return _start_object(eng, s, j, fmt, JsonCallState(eng, fmt, TOOL_REQUEST_ENDS))
    m = _NAME.match(buf, j)
    if m is None:
        return False
    i = m.end()
    if i >= len(buf):
        return False if i - j >= _NAME_MAX else _cut_off(eng, s, fmt, final)
    k = skip_ws(buf, i)
    if k >= len(buf):
        return False if k - i >= LOOKAHEAD else _cut_off(eng, s, fmt, final)
    if buf[k] != "{":
        return False
    eng.begin_call(fmt, s)
    eng.set_name(m.group())
    eng.pos = k
    eng.push(JsonArgsState(eng, TOOL_REQUEST_ENDS))
    return True


def wire_tool_request_marked(w: Wiring) -> None:
    w.on(TOOL_REQUEST, tool_request)


# -- functionary_v3 ---------------------------------------------------------------------------------------

RECIPIENT_MARK = ">>>"
_RECIPIENT = re.compile(r"[A-Za-z_][\w.\-]{0,199}")
_MESSAGE_ENDS = ("<|eot_id|>", "<|eom_id|>")
_CODE_END = MarkerTable({RECIPIENT_MARK: [], **{t: [] for t in _MESSAGE_ENDS}})


def _recipient(buf: str, e: int, final: bool) -> re.Match[str] | bool | None:
    """``RECIPIENT\\n`` right after ``>>>`` (``>>> `` with a space is a REPL prompt): match, False, None."""
    m = _RECIPIENT.match(buf, e)
    if m is None:
        return False if e < len(buf) or final else None
    i = m.end()
    if i >= len(buf):
        return False if final or i - e >= _NAME_MAX else None
    return m if buf[i] == "\n" else False


class CodeBodyState(State):
    """The raw code body of a ``>>>python`` message, streamed as ``{"code": "..."}`` up to the next
    recipient header, an end-of-message token or the end of the stream."""

    __slots__ = ()

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        found = _CODE_END.markers.search(buf, pos)
        if found is None or (found[2] is None and final):
            self._write(eng, buf[pos:])
            eng.pos = len(buf)
            return False
        s, e, tok = found
        self._write(eng, buf[pos:s])
        eng.pos = s
        if tok is None:
            return False
        if tok == RECIPIENT_MARK:
            header = _recipient(buf, e, final)
            if header is None:
                return False
            if header is False:
                self._write(eng, buf[s : s + 1])
                eng.pos = s + 1
                return True
        self._finish(eng)
        return True

    @staticmethod
    def _write(eng: Engine, text: str) -> None:
        if text:
            eng.args(json.dumps(text, ensure_ascii=False)[1:-1])

    @staticmethod
    def _finish(eng: Engine) -> None:
        eng.args('"}')
        eng.end_call(eng.pos)
        eng.pop()

    def at_close(self, eng: Engine) -> None:
        if eng.call is not None:
            self._finish(eng)


def recipient_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``>>>RECIPIENT\n``: ``all`` → the text that follows is visible; ``python`` → raw code (rejected unless
    declared); any other recipient is a tool name with a JSON body."""
    m = _recipient(eng.buf, e, final)
    if not isinstance(m, re.Match):
        return m
    return _open_message(eng, s, m)


def primed_recipient(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """The prompt ends with ``>>>``, so the output may begin with ``all\n`` or ``NAME\n{`` (formats named
    explicitly only: prose could begin with a word on its own line). ``python`` needs its ``>>>``."""
    buf = eng.buf
    m = _recipient(buf, s, final)
    if not isinstance(m, re.Match):
        return m
    if m.group() == "python":
        return False
    if m.group() != "all":
        j = skip_ws(buf, m.end())
        if j >= len(buf):
            return False if final or j - m.end() >= LOOKAHEAD else None
        if buf[j] != "{":
            return False
    return _open_message(eng, s, m)


def _open_message(eng: Engine, s: int, m: re.Match[str]) -> bool:
    body = m.end() + 1
    recipient = m.group()
    if recipient == "all":
        eng.pos = body
        return True
    eng.begin_call("functionary_v3", s)
    if recipient == "python":
        tools = eng.cfg.tools
        if tools is not None and "python" in tools:
            eng.set_name("python")
        else:
            cand = eng.call
            assert cand is not None
            cand.name = "python"
            cand.reject, cand.detail = Reason.UNKNOWN_TOOL, "the code interpreter 'python' is not declared"
        eng.args('{"code": "')
        eng.pos = body
        eng.push(CodeBodyState())
        return True
    eng.set_name(recipient)
    eng.pos = body
    eng.push(_FunctionaryBody())
    return True


class _FunctionaryBody(State):
    """Whitespace before a recipient's JSON body, then the body (an object; anything else is malformed)."""

    __slots__ = ()

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        j = skip_ws(buf, eng.pos)
        if j >= len(buf):
            eng.pos = j  # whitespace is part of the call's raw text
            return False
        eng.pos = j
        eng.pop()
        eng.push(JsonArgsState(eng, stops=(RECIPIENT_MARK,) + _MESSAGE_ENDS))
        return True


def wire_functionary_v3(w: Wiring) -> None:
    w.on(RECIPIENT_MARK, recipient_open)
    if w.explicit:
        w.start.append(primed_recipient)


# -- catalog ----------------------------------------------------------------------------------------------

_ARGS = '{"minutes": 15}'

SPECS = [
    FormatSpec(
        "llama3_json",
        "Llama 3.1 / 3.2 (JSON mode) / 3.3, Llama 4 (JSON)",
        '<|python_tag|>{"name": NAME, "parameters"|"arguments": ARGS}; {...}<|eom_id|> (or <|eot_id|>); '
        "bare at output start (R4)",
        '<|python_tag|>{"name": "lookup_order", "parameters": {"order_id": "A-1001"}}<|eom_id|>',
        wire_llama3_json_marked,
    ),
    FormatSpec(
        "mistral",
        "Mistral 7B v0.3, Mixtral 8x22B, Nemo (pre-v11); Mistral Small 3.1/3.2, Magistral, Devstral, Ministral",
        '[TOOL_CALLS] [{"name": NAME, "arguments": ARGS, "id": ID}, ...] · [TOOL_CALLS]NAME[ARGS]ARGS · '
        "[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]ARGS · [TOOL_CALLS]NAME ARGS (no end marker)",
        'Sure.[TOOL_CALLS]lookup_order[ARGS]{"order_id": "A-1001"}[TOOL_CALLS]set_alarm[ARGS]' + _ARGS,
        wire_mistral,
        notes="ToolCall.id is the [CALL_ID] when given; the pre-v11 list's `id` is ignored.",
    ),
    FormatSpec(
        "granite",
        "Granite 3.0 (<|tool_call|>), Granite 3.1 / 3.2 (<tool_call>, no closing tag)",
        '<|tool_call|>[{"name": NAME, "arguments": ARGS}, ...] · <tool_call>[...]',
        '<|tool_call|>[{"name": "set_alarm", "arguments": ' + _ARGS + "}]",
        wire_granite,
    ),
    FormatSpec(
        "phi4_mini",
        "Phi-4-mini-instruct",
        'functools[{"name": NAME, "arguments": ARGS}, ...]',
        'functools[{"name": "set_alarm", "arguments": ' + _ARGS + "}]",
        wire_phi4_mini,
    ),
    FormatSpec(
        "internlm",
        "InternLM 2 / 2.5",
        '<|action_start|><|plugin|>\\n{"name": NAME, "parameters": ARGS}<|action_end|>',
        '<|action_start|><|plugin|>\n{"name": "set_alarm", "parameters": ' + _ARGS + "}<|action_end|>",
        wire_internlm,
        notes="<|action_start|><|interpreter|> code: the tokens are dropped, the code stays visible text.",
    ),
    FormatSpec(
        "command_r",
        "Command R / R+ (Action: fence), Command R7B / Command A (+ Reasoning)",
        'Action: ```json [{"tool_name": NAME, "parameters": ARGS}, ...] ``` · '
        '<|START_ACTION|>[{"tool_call_id": ID, "tool_name": NAME, "parameters": ARGS}, ...]<|END_ACTION|>',
        '<|START_THINKING|>Look it up.<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": '
        '"lookup_order", "parameters": {"order_id": "A-1001"}}]<|END_ACTION|>',
        wire_command_r,
        notes="tool_call_id is ignored; `Action:` without a json fence is text.",
    ),
    FormatSpec(
        "jamba",
        "AI21 Jamba 1.5 / 1.6",
        '<tool_calls>[{"name": NAME, "arguments": ARGS}, ...]</tool_calls>',
        '<tool_calls>[{"name": "set_alarm", "arguments": ' + _ARGS + "}]</tool_calls>",
        wire_jamba,
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
        "Llama variants on Groq (seed 004)",
        '<function_calls>[{"name": NAME, "arguments": ARGS}, ...]</function_calls>',
        '<function_calls>[{"name": "set_alarm", "arguments": ' + _ARGS + "}]</function_calls>",
        wire_function_calls_json,
    ),
    FormatSpec(
        "token_json",
        "seed 004",
        '[<|tool_calls_section_begin|>] <|tool_call_begin|>{"name": NAME, "arguments": ARGS}<|tool_call_end|> ... '
        "[<|tool_calls_section_end|>]",
        '<|tool_call_begin|>{"name": "set_alarm", "arguments": ' + _ARGS + "}<|tool_call_end|>",
        wire_token_json,
    ),
    FormatSpec(
        "tag_json",
        "seed 003",
        '<tool name="NAME">ARGS</tool>',
        '<tool name="set_alarm">' + _ARGS + "</tool>",
        wire_tag_json,
    ),
    FormatSpec(
        "tool_request",
        "Gemma via LLxprt (seed 002), LM Studio's default tool prompt",
        "[TOOL_REQUEST]\\nNAME ARGS\\n[TOOL_REQUEST_END] · "
        '[TOOL_REQUEST]{"name": NAME, "arguments": ARGS}[END_TOOL_REQUEST] (either end marker)',
        '[TOOL_REQUEST]\nlookup_order {"order_id": "A-1001"}\n[TOOL_REQUEST_END]',
        wire_tool_request_marked,
    ),
    FormatSpec(
        "functionary_v3",
        "functionary v3.2 (meetkai/functionary-small-v3.2, -medium-v3.2)",
        ">>>RECIPIENT\\nBODY: all → visible text; NAME → JSON arguments; python → raw code",
        '>>>all\nChecking.>>>lookup_order\n{"order_id": "A-1001"}',
        wire_functionary_v3,
        notes="The prompt ends with `>>>`: when functionary_v3 is named explicitly, an output that starts with "
        "`all\\n` or `NAME\\n{` is read as the first message; in auto mode re-add `>>>`. `python` is rejected "
        "unless declared; its arguments are {\"code\": BODY}.",
    ),
]
