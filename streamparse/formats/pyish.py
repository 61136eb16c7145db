"""Formats whose calls are not JSON objects behind a tag: pythonic, gemma_tool_code, gemma4, generic_xml,
key_value."""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, Handler
from ..core.lookahead import LOOKAHEAD, after_ws, read_header, skip_ws, starts_or_prefix
from ..states.tag_body import TagCallState, TagSyntax
from .base import FormatSpec, Wiring
from .gemma_args import FUNCTIONGEMMA_STRING_DELIM, GEMMA4_STRING_DELIM
from .gemma_call import GemmaCallState
from .keyvalue import KeyValueState
from .openers import Decision, json_call
from .pythonic import FENCE, HEAD_UNDECIDED, LINES, LIST, PyCallsState, match_head

# pythonic ------------------------------------------------------------------------------------------------
#
# Wrapped forms (Llama 4 ``<|python_start|>[...]<|python_end|>``, LFM2 ``<|tool_call_start|>[...]
# <|tool_call_end|>``, Olmo 3 ``<function_calls>`` one call per line) are recognised anywhere; a bare
# ``[NAME(...)]`` only at the start of the output (start rule). After an unambiguous wrapper, a call with positional
# arguments or expressions is *rejected* (malformed), not turned into text: its ToolCallStart was already
# emitted when ``NAME(`` was seen, and the wrapper token is markup a model only writes to call a tool. The
# bare form has no such signal, so it stays text until its first call is confirmed: ``[print(x) for x in
# y]`` is text, and its first call's ToolCallStart waits until that call closes followed by ``,`` or ``]``.

PY_START: Final = "<|python_start|>"
PY_END: Final = "<|python_end|>"
LFM_START: Final = "<|tool_call_start|>"
LFM_END: Final = "<|tool_call_end|>"
OLMO_OPEN: Final = "<function_calls>"
OLMO_CLOSE: Final = "</function_calls>"


# What _list_head leaves undecided after a wrapper's opener: blanks, ``[``, blanks, and the start of a head
# (HEAD_UNDECIDED, from its first non-blank: blanks alone are bounded by the handler's own count), within
# the look-ahead bounds the handler checks.
_LIST_UNDECIDED: Final = re.compile(
    rf"[ \t\r\n]{{0,{LOOKAHEAD - 1}}}(?:\[[ \t\r\n]{{0,{LOOKAHEAD - 2}}}(?:(?=[\w.-]){HEAD_UNDECIDED.pattern})?)?"
)


def _list_head(eng: Engine, j: int, final: bool) -> Decision:
    """``[`` at ``j``, then (after whitespace) ``NAME(``."""
    buf = eng.buf
    if j >= len(buf):
        return False if final else None
    if buf[j] != "[":
        return False
    k = skip_ws(buf, j + 1)
    if k >= len(buf):
        return False if final or k - j >= LOOKAHEAD else None
    m = match_head(buf, k, final)
    return m if m is None or m is False else True


def wrapped_list(closer: str, fmt: str = "pythonic", raw_strings: bool = False) -> Handler:
    """The handler of an opener followed by ``[NAME(``: the list's calls up to ``closer`` (a declared
    PythonName's too: its format's name, and its strings as the template writes them)."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        j = skip_ws(eng.buf, e)
        if j >= len(eng.buf) and not final and j - e < LOOKAHEAD:
            eng.wait_for(_LIST_UNDECIDED, e)
            return None
        ok = _list_head(eng, j, final)
        if ok is None:  # (not final) ``[`` and the first name arriving in pieces: kept meanwhile
            eng.wait_for(_LIST_UNDECIDED, e)
        if not ok:
            return ok
        eng.pos = j + 1
        eng.push(PyCallsState(fmt, LIST, closer, raw_strings=raw_strings))
        return True

    return handler


def olmo_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<function_calls>`` + ``NAME(``: Olmo 3 (``<invoke`` is xml_invoke's, ``[``/``{`` function_calls_json)."""
    buf = eng.buf
    j = after_ws(buf, e, final)
    if j is None or isinstance(j, bool):
        return j
    m = match_head(buf, j, final)
    if not m:
        return m
    eng.pos = e
    eng.push(PyCallsState("pythonic", LINES, OLMO_CLOSE))
    return True


def pythonic_bare(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """The start of the output (start rule): ``[NAME(`` begins a candidate that is text until confirmed."""
    ok = _list_head(eng, s, final)
    if not ok:
        return ok
    eng.pos = s + 1
    eng.push(PyCallsState("pythonic", LIST, None, bare=True, held="["))
    return True


def pythonic_after_prose(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``[NAME(`` after prose (SGLang reads a pythonic list anywhere): only when the tools are given and
    NAME is one of them, so prose such as ``[see(1)]`` or ``[print(x) for x in y]`` stays text. Llama 3.2 /
    4 write a short preamble before the list. The list is then read as at the output start (text until
    its first call is confirmed), and a one-call list must end its line: one quoted mid-sentence
    (``the docs say [lookup(q="x")] returns the first hit``) is prose."""
    tools = eng.cfg.tools
    if tools is None or eng.call is not None:
        return False
    buf = eng.buf
    k = skip_ws(buf, e)
    if k >= len(buf):
        return False if final or k - e >= LOOKAHEAD else None
    m = match_head(buf, k, final)
    if m is None or isinstance(m, bool):
        return None if m is None else False
    if m.group("name") not in tools:
        return False
    eng.pos = e
    eng.push(PyCallsState("pythonic", LIST, None, bare=True, held="[", line_end=True))
    return True


def wire_pythonic(w: Wiring) -> None:
    w.on(PY_START, wrapped_list(PY_END))
    w.on(LFM_START, wrapped_list(LFM_END))
    # LFM2's llama.cpp template writes a JSON list of call objects inside the same tokens.
    w.on(LFM_START, json_call("pythonic", (LFM_END,), lists=True))
    w.on(OLMO_OPEN, olmo_open)
    w.start.append(pythonic_bare)


# gemma_tool_code -------------------------------------------------------------------------------------------


# A tool_code fence whose first call's head only more input decides (blanks, then what match_head answers None
# to: a name, ``print(`` and a name, no ``(`` after it yet), from the fence's start, bounded within the
# look-ahead: for FastPaths.wait_for, so the engine keeps the chunks of a head arriving in pieces.
_FENCE_HEAD_UNDECIDED: Final = re.compile(
    r"(?=[\s\S]{0,200}\Z)`{3,32}(?!`)[ \t]*tool_code[ \t]*\n[ \t\r\n]{0,64}(?:print[ \t]*\([ \t]*)?[\w.-]*[ \t]*"
)


def tool_code_fence(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """A ```` ```tool_code ```` fence (``e`` is the end of its info line) whose first line is a call."""
    buf = eng.buf
    j = after_ws(buf, e, final)
    if j is None or isinstance(j, bool):
        if j is None:
            eng.wait_for(_FENCE_HEAD_UNDECIDED, s)
        return j
    m = match_head(buf, j, final, gemma=True)
    if not m:
        if m is None:
            eng.wait_for(_FENCE_HEAD_UNDECIDED, s)
        return m
    eng.pos = e
    eng.push(PyCallsState("gemma_tool_code", FENCE, "```"))
    return True


def wire_gemma_tool_code(w: Wiring) -> None:
    w.fence_infos["tool_code"] = tool_code_fence


# gemma4 / FunctionGemma ------------------------------------------------------------------------------------

GEMMA4_OPEN: Final = "<|tool_call>"
GEMMA4_CLOSE: Final = "<tool_call|>"
FGEMMA_OPEN: Final = "<start_function_call>"
FGEMMA_CLOSE: Final = "<end_function_call>"
# Gemma 4 sometimes drops the ``call`` keyword after its opener token (``<|tool_call>:NAME{``, vLLM issue
# 53431); the opener is a special token, so the bare form cannot be prose.
_GEMMA_NAME: Final = re.compile(r"\s*(?:call)?:(?P<name>[^\s{}<>:,]{1,200})\{")


def gemma_call(delim: str, closer: str) -> Handler:
    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        buf = eng.buf
        j = after_ws(buf, e, final)
        if j is None or isinstance(j, bool):
            return j
        ok = True if buf.startswith(":", j) else starts_or_prefix(buf, j, "call:")
        if not ok:
            return None if ok is None and not final else False
        m = read_header(buf, e, "{", _GEMMA_NAME, final)
        if not m:
            return m
        eng.begin_call("gemma4", s)
        eng.set_name(m.group("name"))
        eng.pos = m.end() - 1
        eng.push(GemmaCallState("gemma4", delim, closer))
        return True

    return handler


def wire_gemma4(w: Wiring) -> None:
    w.on(GEMMA4_OPEN, gemma_call(GEMMA4_STRING_DELIM, GEMMA4_CLOSE))
    w.on(FGEMMA_OPEN, gemma_call(FUNCTIONGEMMA_STRING_DELIM, FGEMMA_CLOSE))


# generic_xml --------------------------------------------------------------------------------------------

GENERIC_XML_NAME: Final = re.compile(r"\s*<name>\s*(?P<name>[^<>\n]{1,200}?)\s*</name>")
GENERIC_XML_SYNTAX: Final = TagSyntax(
    param_open="<",
    header_end=">",
    param_header=re.compile(r"(?P<key>[A-Za-z_][\w.:-]{0,199})\s*>"),
    param_close=None,  # a value runs to ``</KEY>``
    call_close="</tool>",
    markup=("<arguments>", "</arguments>"),
    trim=True,
)


# What _generic_xml_open leaves undecided after ``<tool>``: blanks, then a prefix of ``<name>``, or ``<name>``
# and a name whose ``</name>`` has not come, all under the header's look-ahead.
_GENERIC_XML_UNDECIDED: Final = re.compile(
    rf"(?=[\s\S]{{0,{LOOKAHEAD - 1}}}\Z)[ \t\r\n]*(?:<(?:n(?:a(?:m(?:e)?)?)?)?|<name>(?:(?!</name>)[\s\S])*)?"
)


def generic_xml_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<tool>`` then (after whitespace) ``<name>NAME</name>``; ``<tool name="...">`` is tag_json's."""
    decision = _generic_xml_open(eng, s, e, final)
    if decision is None:  # (not final) the header arrives in pieces: kept while it stays undecided
        eng.wait_for(_GENERIC_XML_UNDECIDED, e)
    return decision


def _generic_xml_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    buf = eng.buf
    j = after_ws(buf, e, final)
    if j is None or isinstance(j, bool):
        return j
    ok = starts_or_prefix(buf, j, "<name>")
    if not ok:
        return None if ok is None and not final else False
    m = read_header(buf, e, "</name>", GENERIC_XML_NAME, final)
    if not m:
        return m
    eng.begin_call("generic_xml", s)
    eng.set_name(m.group("name"))
    eng.pos = m.end()
    eng.push(TagCallState(GENERIC_XML_SYNTAX))
    return True


def wire_generic_xml(w: Wiring) -> None:
    w.on("<tool>", generic_xml_open)


# key_value ----------------------------------------------------------------------------------------------

KEY_VALUE_MARKER: Final = "✦ tool_call:"
_KV_NAME: Final = re.compile(r"[ \t]*(?P<name>[^\s\"]{1,200})(?=[ \t\r\n])")
_KV_NAME_AT_END: Final = re.compile(r"[ \t]*(?P<name>[^\s\"]{1,200})")


def key_value_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """At a line start, ``✦ tool_call: NAME`` (the name ends at a space or the end of the line)."""
    if not eng.line_start(s):
        return False
    buf = eng.buf
    m = _KV_NAME.match(buf, e, min(len(buf), e + LOOKAHEAD))
    if m is None:
        if final:
            m = _KV_NAME_AT_END.fullmatch(buf, e)  # the output ends right after the name
            if m is None:
                return False
        elif len(buf) - e >= LOOKAHEAD:
            return False
        elif buf[e:].strip(" \t") == "" or _KV_NAME_AT_END.fullmatch(buf, e):
            return None
        else:
            return False
    eng.begin_call("key_value", s)
    eng.set_name(m.group("name"))
    eng.pos = m.end()
    eng.push(KeyValueState())
    return True


def wire_key_value(w: Wiring) -> None:
    w.on(KEY_VALUE_MARKER, key_value_open)


SPECS: list[FormatSpec] = [
    FormatSpec(
        "pythonic",
        "Llama 3.2 1B/3B, Llama 4 (pythonic), ToolACE, LFM2, Olmo 3; the bracket fallback of "
        "the gated-fallback playbook",
        "[NAME(k=v, ...), ...] bare at the output start; <|python_start|>[...]<|python_end|> (Llama 4); "
        "<|tool_call_start|>[...]<|tool_call_end|> (LFM2); <function_calls>\\nNAME(...)\\n</function_calls> (Olmo 3)",
        "Setting both.\n<|python_start|>[set_alarm(label='standup', minutes=15), "
        'lookup_order(order_id="A-1001")]<|python_end|>',
        wire_pythonic,
        notes="Keyword-only literal arguments. After a wrapper token, positional arguments or expressions are "
        "rejected (malformed); a bare list that is not a call list is text.",
    ),
    FormatSpec(
        "gemma_tool_code",
        "Gemma 3 (prompted)",
        "```tool_code fence, one NAME(k=v) per line (print(...) and default_api. allowed)",
        'Checking the order.\n\n```tool_code\nprint(default_api.lookup_order(order_id="A-1001"))\n```',
        wire_gemma_tool_code,
        notes="A tool_output or python fence is code (visible text).",
    ),
    FormatSpec(
        "gemma4",
        "Gemma 4; FunctionGemma",
        '<|tool_call>call:NAME{k:<|"|>text<|"|>,n:15}<tool_call|>; FunctionGemma: <start_function_call>'
        "call:NAME{k:<escape>text<escape>}<end_function_call>",
        '<|tool_call>call:set_alarm{label:<|"|>standup, daily<|"|>,minutes:15}<tool_call|>',
        wire_gemma4,
        notes="Each call's arguments are parsed once, when its closing brace arrives.",
    ),
    FormatSpec(
        "generic_xml",
        "prompted models (LLxprt Code)",
        "<tool> <name>NAME</name> <arguments> <K>V</K> ... </arguments> </tool>",
        "<tool>\n  <name>set_alarm</name>\n  <arguments>\n    <label>standup</label>\n    <minutes>15</minutes>\n"
        "  </arguments>\n</tool>",
        wire_generic_xml,
        notes="Leaf values are trimmed and typed by the tool schema (text-value rule); without a schema they "
        "stay strings.",
    ),
    FormatSpec(
        "key_value",
        "Gemini-CLI style prompted models",
        '✦ tool_call: NAME for K V K "V with spaces" ... (one line, at a line start)',
        '✦ tool_call: set_alarm for label "daily standup" minutes 15',
        wire_key_value,
        opt_in=True,
        notes="Opt-in only: the grammar is ambiguous. The call ends at the end of its line.",
    ),
]
