"""Formats whose calls are JSON behind a marker: hermes, function_tag, tool_call_marker."""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine
from ..core.lookahead import LOOKAHEAD, after_ws, fence_at, skip_ws, word_char
from ..core.scanner import WORD
from ..states.json_body import JsonCallState
from .base import FormatSpec, Wiring
from .declaration import Call, Declaration, HeaderName, JsonArgs, JsonName
from .openers import Decision, json_call, named_json
from .wrappers import wrapped_call


def wire_hermes(w: Wiring) -> None:
    # `<tool_call>[` is granite's when granite is active (docs/FORMATS.md, auto-detection), else a hermes list.
    # Several objects in one block (`<tool_call>{...}, {...}</tool_call>`) are several calls.
    w.on("<tool_call>", json_call("hermes", ("</tool_call>",), lists=True, unless_active="granite", several=True))
    w.start.append(wrapped_call)  # the wrappers llama.cpp tolerates, at the output start (formats/wrappers.py)


FUNCTION_NAME: Final = re.compile(r"(?P<name>[^\s<>=]{1,200})>")


def wire_function_tag(w: Wiring) -> None:
    w.on("<function=", named_json("function_tag", FUNCTION_NAME, ">", ("</function>",)))


def tool_call_marker(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``TOOL_CALL`` as a whole word, optional ``:``, whitespace, an optional json fence, an object."""
    buf = eng.buf
    if s > 0 and word_char(buf[s - 1]):
        return False
    if e >= len(buf):
        return False if final else None
    j = e
    if buf[j] == ":":
        j += 1
    elif word_char(buf[j]):
        return False
    j = skip_ws(buf, j)
    if j >= len(buf):
        return False if final or j - e >= LOOKAHEAD else None
    fenced = False
    if buf[j] == "`":
        f = fence_at(buf, j, final)
        if f is None or f is False:
            return f
        k = after_ws(buf, f, final)
        if k is None or isinstance(k, bool):
            return k
        j, fenced = k, True
    if buf[j] != "{":
        return False
    eng.begin_call("tool_call_marker", s)
    eng.pos = j
    eng.push(JsonCallState(eng, "tool_call_marker", (), fenced=fenced))
    return True


def wire_tool_call_marker(w: Wiring) -> None:
    w.on("TOOL_CALL", tool_call_marker, WORD)


def wire_nemotron(w: Wiring) -> None:
    # NVIDIA Nemotron Nano v2 / Llama-Nemotron: a JSON list (or one object) inside <TOOLCALL>...</TOOLCALL>.
    w.on("<TOOLCALL>", json_call("nemotron", ("</TOOLCALL>",), lists=True, several=True))


SPECS: Final = [
    FormatSpec(
        "hermes",
        "Qwen2.5, Qwen3, QwQ, Hermes 2 Pro / 3, ERNIE 4.5, Granite 4, most fine-tunes",
        '<tool_call>{"name": NAME, "arguments": ARGS}</tool_call>',
        '<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}\n</tool_call>',
        wire_hermes,
        layout=Declaration("hermes", Call("<tool_call>", "</tool_call>")),
    ),
    FormatSpec(
        "function_tag",
        "Llama 3.1 custom tools, functionary v3.1",
        "<function=NAME>ARGS</function>",
        '<function=lookup_order>{"order_id": "A-1001"}</function>',
        wire_function_tag,
        layout=Declaration("function_tag", Call("<function=", "</function>", HeaderName(">"), JsonArgs())),
    ),
    FormatSpec(
        "nemotron",
        "NVIDIA Nemotron Nano v2 (9B, 12B), Llama-3.3-Nemotron-Super",
        '<TOOLCALL>[{"name": NAME, "arguments": ARGS}, ...]</TOOLCALL>',
        '<TOOLCALL>[{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}]</TOOLCALL>',
        wire_nemotron,
        layout=Declaration("nemotron", Call("<TOOLCALL>", "</TOOLCALL>", JsonName(list=True))),
    ),
    FormatSpec(
        "tool_call_marker",
        "prompted agents with a TOOL_CALL contract",
        'TOOL_CALL [:] [```json] {"tool_name"|"tool"|"name": NAME, "parameters"|"params"|"arguments": ARGS}',
        'TOOL_CALL\n{"tool": "lookup_order", "params": {"order_id": "A-1001"}}',
        wire_tool_call_marker,
    ),
]
