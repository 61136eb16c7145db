"""Formats whose calls are JSON behind a distinctive marker, each with its own framing: llama3_json (the
``<|python_tag|>`` form), mistral, granite, phi4_mini, internlm and command_r. Sections of several JSON
calls are in :mod:`.sections`, functionary's recipients in :mod:`.functionary`.

Several of them have no end marker (mistral, granite's ``<|tool_call|>``, phi4_mini): a call ends the
moment its JSON closes (early completion). A malformed body cannot be delimited by a closer then, so it is
swallowed up to the format's next opener (or the end of the stream) into the rejection's raw text (see
:mod:`streamparse.states.json_body`): markup never leaks into the visible text. A special-token opener
(``[TOOL_CALLS]``, ``<|python_tag|>``...) cut off by the end of the stream is a truncated call, never
text: those tokens do not occur in prose.
"""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, MarkerTable, ScanState
from ..core.lookahead import LOOKAHEAD, after_ws, fence_at, skip_ws, starts_or_prefix, word_char
from ..core.scanner import WORD
from ..states.json_body import JsonArgsState, JsonCallState
from ..states.text import CONTROL_TOKENS, drop, pop_scope
from .base import FormatSpec, Wiring
from .declaration import Call, Declaration, HeaderName, JsonArgs, JsonName
from .openers import (
    NAME_MAX,
    TOOL_NAME,
    Decision,
    after_opener,
    block_table,
    cut_off,
    json_call,
    objects_section,
    start_object,
)

# -- llama3_json (marked form) --------------------------------------------------------------------------

PYTHON_TAG: Final = "<|python_tag|>"
LLAMA_ENDS: Final = ("<|eom_id|>", "<|eot_id|>")


def _llama_object(eng: Engine, s: int, e: int, final: bool) -> bool:
    return start_object(eng, s, s, "llama3_json", JsonCallState(eng, "llama3_json", stops=LLAMA_ENDS + (";",)))


# After `<|python_tag|>`: call objects separated by `;`, closed by the end-of-message token.
_LLAMA_BLOCK: Final = block_table({"{": _llama_object, ";": drop}, LLAMA_ENDS)


# ``<|python_tag|>`` then JSON call objects; built-in tool calls (``brave_search.call(...)``) are text.
python_tag: Final = objects_section("llama3_json", _LLAMA_BLOCK, token=True)


def wire_llama3_json_marked(w: Wiring) -> None:
    """The marked form only; the bare form at output start (start rule) is wired by ``formats/unmarked.py``."""
    w.on(PYTHON_TAG, python_tag)


# -- mistral ----------------------------------------------------------------------------------------------

TOOL_CALLS: Final = "[TOOL_CALLS]"
_CALL_ID: Final = re.compile(r"[^\[\]\s{}]{1,200}")


def _proper_prefixes(word: str) -> str:
    """A regex alternation of the non-empty proper prefixes of ``word``, longest first."""
    return "|".join(re.escape(word[:k]) for k in range(len(word) - 1, 0, -1))


# The text after ``[TOOL_CALLS]`` that leaves _mistral_open undecided (None): blanks, then a name that runs to
# the end of the buffer, or is followed by blanks, a prefix of ``[CALL_ID]`` or ``[ARGS]``, ``[CALL_ID]`` and
# an id (then a prefix of ``[ARGS]``), or ``[ARGS]`` and blanks, each within the bounds the reader checks
# (LOOKAHEAD blanks, NAME_MAX name characters, 200 id characters). While the held text stays so, the engine
# keeps the chunks (FastPaths.wait_for) instead of running the handler once per piece of the header.
_B: Final = r"[ \t\r\n]"  # (lookahead.WS, what skip_ws skips)
_ARGS_PREFIX: Final = _proper_prefixes("[ARGS]")
_ID: Final = r"[^\[\]\s{}]"  # (an id's character: _CALL_ID's)
_MISTRAL_UNDECIDED: Final = re.compile(
    rf"{_B}{{0,{LOOKAHEAD - 1}}}(?:\w[\w.\-]{{0,{NAME_MAX - 2}}}(?:"
    rf"|{_B}{{1,{LOOKAHEAD - 1}}}|{_proper_prefixes('[CALL_ID]')}|{_ARGS_PREFIX}"
    rf"|\[CALL_ID\](?:{_ID}{{0,200}}|{_ID}{{1,200}}(?:{_ARGS_PREFIX}|\[ARGS\]{_B}{{0,{LOOKAHEAD - 1}}}))"
    rf"|\[ARGS\]{_B}{{0,{LOOKAHEAD - 1}}}"
    r"))?"
)


def mistral_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``[TOOL_CALLS]`` + a list of call objects (pre-v11), or ``NAME[ARGS]{...}``,
    ``NAME[CALL_ID]ID[ARGS]{...}``, ``NAME{...}`` (v11+). No end marker: the call ends with its JSON."""
    decision = _mistral_open(eng, s, e, final)
    if decision is None:  # (not final) the header arrives in pieces: kept while it stays undecided
        eng.wait_for(_MISTRAL_UNDECIDED, e)
    return decision


def _mistral_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    fmt = "mistral"
    buf = eng.buf
    j = after_opener(eng, s, e, fmt, final, token=True)
    if j is None or isinstance(j, bool):
        return j
    c = buf[j]
    if c == "[":
        eng.pos = j
        eng.push(JsonCallState(eng, fmt, list_form=True, stops=(TOOL_CALLS,)))
        return True
    if c == "{":
        return start_object(eng, s, j, fmt, JsonCallState(eng, fmt, stops=(TOOL_CALLS,)))
    m = TOOL_NAME.match(buf, j)
    if m is None:
        return False
    i = m.end()
    if i >= len(buf):
        if i - j >= NAME_MAX:
            return False
        return cut_off(eng, s, fmt, final)
    call_id = None
    marked = False
    if buf[i] == "[":
        ok = starts_or_prefix(buf, i, "[CALL_ID]")
        if ok is None:
            return cut_off(eng, s, fmt, final)
        if ok:
            idm = _CALL_ID.match(buf, i + 9)
            if idm is None and i + 9 < len(buf):
                return False
            if idm is None or idm.end() >= len(buf):
                return cut_off(eng, s, fmt, final)
            call_id = idm.group()
            i = idm.end()
        ok = starts_or_prefix(buf, i, "[ARGS]")
        if ok is None:
            return cut_off(eng, s, fmt, final)
        if not ok:
            return False
        i += 6
        marked = True
    k = skip_ws(buf, i)
    if k >= len(buf):
        return False if k - i >= LOOKAHEAD else cut_off(eng, s, fmt, final)
    if buf[k] != "{" and not marked:
        return False  # prose after the token: `[TOOL_CALLS]` is text (continuation rule)
    eng.begin_call(fmt, s)
    eng.set_name(m.group(), call_id=call_id)
    eng.pos = k
    eng.push(JsonArgsState(eng, stops=(TOOL_CALLS,)))  # `NAME[ARGS]` + non-object: rejected malformed
    return True


def wire_mistral(w: Wiring) -> None:
    w.on(TOOL_CALLS, mistral_open)


# -- granite ----------------------------------------------------------------------------------------------

GRANITE_TOKEN: Final = "<|tool_call|>"


def granite_token(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Granite 3.0: ``<|tool_call|>[{...}, ...]``, no end marker."""
    j = after_opener(eng, s, e, "granite", final, token=True)
    if j is None or isinstance(j, bool):
        return j
    c = eng.buf[j]
    if c == "[":
        eng.pos = j
        eng.push(JsonCallState(eng, "granite", list_form=True, stops=(GRANITE_TOKEN,)))
        return True
    if c == "{":
        return start_object(eng, s, j, "granite", JsonCallState(eng, "granite", stops=(GRANITE_TOKEN,)))
    return False


def granite_tag(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Granite 3.1 / 3.2: ``<tool_call>[{...}, ...]`` with no closing tag (hermes defers ``[`` to us)."""
    j = after_opener(eng, s, e, "granite", final, token=False)
    if j is None or isinstance(j, bool):
        return j
    if eng.buf[j] != "[":
        return False
    eng.pos = j
    eng.push(
        JsonCallState(eng, "granite", ("</tool_call>",), list_form=True, optional_close=True, stops=("<tool_call>",))
    )
    return True


def granite_response_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Granite 3.2 thinking: ``<think>...</think><response>ANSWER</response>``; the tag right after the
    reasoning closer is markup."""
    if s < 8 or eng.buf[s - 8 : s] != "</think>":
        return False
    eng.pos = e
    return True


def granite_response_close(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``</response>`` ending the output (only whitespace after it) is markup."""
    j = skip_ws(eng.buf, e)
    if j < len(eng.buf) or j - e >= LOOKAHEAD:
        return False
    if not final:
        return None
    eng.pos = len(eng.buf)
    return True


def wire_granite(w: Wiring) -> None:
    w.on(GRANITE_TOKEN, granite_token)
    w.on("<tool_call>", granite_tag)
    w.on("<response>", granite_response_open)
    w.on("</response>", granite_response_close)


# -- phi4_mini --------------------------------------------------------------------------------------------

FUNCTOOLS: Final = "functools["


def functools_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``functools[{...}, ...]``: a whole word, ``[`` right after it, a call object inside."""
    buf = eng.buf
    if s > 0 and word_char(buf[s - 1]):
        return False
    j = after_opener(eng, s, e, "phi4_mini", final, token=True)
    if j is None or isinstance(j, bool):
        return j
    if buf[j] != "{":
        return False  # `functools[0]`, `functools[]`: text
    eng.pos = e - 1
    eng.push(JsonCallState(eng, "phi4_mini", list_form=True, stops=(FUNCTOOLS,)))
    return True


PHI4_CALL: Final = "<|tool_call|>"
PHI4_CALL_END: Final = "<|/tool_call|>"


def wire_phi4_mini(w: Wiring) -> None:
    w.on(FUNCTOOLS, functools_open, WORD)
    # Phi-4-mini's chat template writes calls in its own tokens: <|tool_call|>{...}<|/tool_call|>.
    w.on(PHI4_CALL, json_call("phi4_mini", (PHI4_CALL_END,), lists=True, several=True))


# -- internlm ---------------------------------------------------------------------------------------------

ACTION_START: Final = "<|action_start|>"
ACTION_END: Final = "<|action_end|>"
PLUGIN: Final = "<|plugin|>"
INTERPRETER: Final = "<|interpreter|>"
# `<|action_start|><|interpreter|>` carries code for InternLM's own interpreter, not a function call: its
# tokens are dropped and the code stays visible text up to `<|action_end|>`.
_INTERPRETER: Final = MarkerTable({ACTION_END: [pop_scope], **{t: [drop] for t in CONTROL_TOKENS}})


def action_start(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<|action_start|><|plugin|>`` + a JSON call object + ``<|action_end|>``."""
    fmt = "internlm"
    buf = eng.buf
    j = after_opener(eng, s, e, fmt, final, token=True)
    if j is None or isinstance(j, bool):
        return j
    plugin = starts_or_prefix(buf, j, PLUGIN)
    interp = starts_or_prefix(buf, j, INTERPRETER)
    if plugin:
        k = after_opener(eng, s, j + len(PLUGIN), fmt, final, token=True)
        if k is None or isinstance(k, bool):
            return k
        return start_object(eng, s, k, fmt, JsonCallState(eng, fmt, (ACTION_END,)))
    if interp:
        eng.pos = j + len(INTERPRETER)
        eng.push(ScanState(_INTERPRETER))
        return True
    if plugin is None or interp is None:
        return cut_off(eng, s, fmt, final)
    return False


def wire_internlm(w: Wiring) -> None:
    w.on(ACTION_START, action_start)


# -- command_r --------------------------------------------------------------------------------------------

START_ACTION: Final = "<|START_ACTION|>"
END_ACTION: Final = "<|END_ACTION|>"


def action_fence(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Command R / R+: ``Action:`` + a json fence holding ``[{"tool_name", "parameters"}, ...]``."""
    buf = eng.buf
    if s > 0 and word_char(buf[s - 1]):
        return False
    j = after_opener(eng, s, e, "command_r", final, token=False)
    if j is None or isinstance(j, bool):
        return j
    if buf[j] != "`":
        return False
    f = fence_at(buf, j, final)
    if f is None or f is False:
        return f
    k = after_ws(buf, f, final)
    if k is None or isinstance(k, bool):
        return k
    if buf[k] != "[":
        return False
    eng.pos = k
    eng.push(JsonCallState(eng, "command_r", list_form=True, fenced=True, ends=("```",)))
    return True


def start_action(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Command R7B / Command A: ``<|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}]<|END_ACTION|>``."""
    j = after_opener(eng, s, e, "command_r", final, token=True)
    if j is None or isinstance(j, bool):
        return j
    c = eng.buf[j]
    if c == "[":
        eng.pos = j
        eng.push(JsonCallState(eng, "command_r", (END_ACTION,), list_form=True))
        return True
    if c == "{":
        return start_object(eng, s, j, "command_r", JsonCallState(eng, "command_r", (END_ACTION,)))
    return False


def wire_command_r(w: Wiring) -> None:
    w.on("Action:", action_fence, WORD)
    w.on(START_ACTION, start_action)


# -- catalog -------------------------------------------------------------------------------------

_ARGS: Final = '{"minutes": 15}'

# Llama 3 and InternLM write the arguments under "parameters" (structural tags, FormatSpec.layout).
_PARAMETERS: Final = JsonName(arguments_field="parameters", alt_arguments_fields=())

SPECS: Final = [
    FormatSpec(
        "llama3_json",
        "Llama 3.1 / 3.2 (JSON mode) / 3.3, Llama 4 (JSON)",
        '<|python_tag|>{"name": NAME, "parameters"|"arguments": ARGS}; {...}<|eom_id|> (or <|eot_id|>); '
        "bare at output start (start rule)",
        '<|python_tag|>{"name": "lookup_order", "parameters": {"order_id": "A-1001"}}<|eom_id|>',
        wire_llama3_json_marked,
        layout=Declaration("llama3_json", Call(PYTHON_TAG, None, _PARAMETERS)),
    ),
    FormatSpec(
        "mistral",
        "Mistral 7B v0.3, Mixtral 8x22B, Nemo (pre-v11); Mistral Small 3.1/3.2, Magistral, Devstral, Ministral",
        '[TOOL_CALLS] [{"name": NAME, "arguments": ARGS, "id": ID}, ...] · [TOOL_CALLS]NAME[ARGS]ARGS · '
        "[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]ARGS · [TOOL_CALLS]NAME ARGS (no end marker)",
        'Sure.[TOOL_CALLS]lookup_order[ARGS]{"order_id": "A-1001"}[TOOL_CALLS]set_alarm[ARGS]' + _ARGS,
        wire_mistral,
        notes="ToolCall.id is the [CALL_ID] when given; the pre-v11 list's `id` is ignored.",
        layout=Declaration("mistral", Call(TOOL_CALLS, None, HeaderName("[ARGS]"), JsonArgs())),
    ),
    FormatSpec(
        "granite",
        "Granite 3.0 (<|tool_call|>), Granite 3.1 / 3.2 (<tool_call>, no closing tag)",
        '<|tool_call|>[{"name": NAME, "arguments": ARGS}, ...] · <tool_call>[...]',
        '<|tool_call|>[{"name": "set_alarm", "arguments": ' + _ARGS + "}]",
        wire_granite,
        layout=Declaration("granite", Call("<|tool_call|>", None, JsonName(list=True))),
    ),
    FormatSpec(
        "phi4_mini",
        "Phi-4-mini-instruct",
        'functools[{"name": NAME, "arguments": ARGS}, ...]',
        'functools[{"name": "set_alarm", "arguments": ' + _ARGS + "}]",
        wire_phi4_mini,
        layout=Declaration("phi4_mini", Call("functools", None, JsonName(list=True))),
    ),
    FormatSpec(
        "internlm",
        "InternLM 2 / 2.5",
        '<|action_start|><|plugin|>\\n{"name": NAME, "parameters": ARGS}<|action_end|>',
        '<|action_start|><|plugin|>\n{"name": "set_alarm", "parameters": ' + _ARGS + "}<|action_end|>",
        wire_internlm,
        notes="<|action_start|><|interpreter|> code: the tokens are dropped, the code stays visible text.",
        layout=Declaration("internlm", Call("<|action_start|><|plugin|>\n", "<|action_end|>", _PARAMETERS)),
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
]
