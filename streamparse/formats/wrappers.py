"""Wrappers real Hermes-family output arrives in, that llama.cpp's Hermes 2 Pro parser tolerates.

Models trained on ``<tool_call>`` sometimes write the same call object in another wrapper:
``<function=NAME>{ARGS}</function>``, ``<function name="NAME">{ARGS}</function>``, ``<tool>``, ``<tools>``,
``<response>``, ``<json>``, ``<JSON>``, ``<xml>``, ``<function_call>`` around ``{"name": ..., "arguments":
...}``, a ```` ```json ```` / ```` ```xml ```` / bare fence around the object, or the bare object.

None of these is a marker a model reserves for calls: prose quotes them. So they are read only where
they cannot be a quoted example: at the start of the output (start rule: after whitespace and reasoning),
and only when the tools are given and the object names a declared tool (``{"name": "DECLARED"`` first,
or the declared NAME in the ``<function`` header). Anywhere else, or with an undeclared name, they stay
text. A wrapper inside a fence (```` ```xml\\n<response>``...) is not read: one wrapper at a time.
"""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, State
from ..core.lookahead import LOOKAHEAD, after_ws, skip_ws
from ..states.json_body import JsonArgsState, JsonCallState
from .openers import Decision

FMT: Final = "hermes"
TAGS: dict[str, str] = {
    "<tool>": "</tool>",
    "<tools>": "</tools>",
    "<response>": "</response>",
    "<json>": "</json>",
    "<JSON>": "</JSON>",
    "<xml>": "</xml>",
    "<function_call>": "</function_call>",
}
_FENCE: Final = re.compile(r"```(?P<info>[A-Za-z]{0,8})[ \t]*\n")
_NAME_KEY: Final = re.compile(r'\{\s*"name"\s*:\s*"(?P<name>[^"\\\n]{1,200})"')
_FUNCTION: Final = re.compile(r'<function(?:=(?P<eq>[^\s<>="]{1,200})|\s+name\s*=\s*"(?P<attr>[^"<>\n]{1,200})"\s*)>')
_OPENERS: Final = ("```", "<function", *TAGS)


def _declared(eng: Engine, name: str) -> bool:
    tools = eng.cfg.tools
    return tools is not None and name in tools


def _undecided(buf: str, j: int, final: bool) -> bool:
    """More input may still complete a header read at ``j`` (bounded by LOOKAHEAD)."""
    return not final and len(buf) - j < LOOKAHEAD


def _name_prefix(t: str) -> bool:
    """``t`` (from ``{``) may still grow into ``{"name": "VALUE"`` (the value not closed yet)."""
    i = skip_ws(t, 1)
    rest = t[i:]
    key = '"name"'
    if len(rest) <= len(key):
        return key.startswith(rest)
    if not rest.startswith(key):
        return False
    rest = rest[len(key) :].lstrip()
    if not rest:
        return True
    if rest[0] != ":":
        return False
    rest = rest[1:].lstrip()
    if not rest:
        return True
    return rest[0] == '"' and '"' not in rest[1:] and "\n" not in rest and len(rest) <= 201


def _object(eng: Engine, s: int, j: int, final: bool, closer: str | None, fenced: bool) -> Decision:
    """A call object at ``j`` naming a declared tool: begin the call (from ``s``) and read it."""
    buf = eng.buf
    m = _NAME_KEY.match(buf, j)
    if m is None:
        return None if not final and _name_prefix(buf[j : j + LOOKAHEAD]) else False
    if not _declared(eng, m.group("name")):
        return False
    eng.begin_call(FMT, s)
    eng.pos = j
    eng.push(_Again())
    eng.push(JsonCallState(eng, FMT, (closer,) if closer else (), fenced=fenced))
    return True


class _Again(State):
    """After a wrapped call: another wrapper after whitespace is the next call of the same reply."""

    __slots__ = ("done",)

    def __init__(self) -> None:
        self.done = False

    def step(self, eng: Engine, final: bool) -> bool:
        if self.done:
            eng.pop()
            return True
        buf = eng.buf
        j = after_ws(buf, eng.pos, final)
        if j is None:
            return False
        if j is False:
            eng.pop()
            return True
        if not buf.startswith(("<", "`"), j):
            eng.pop()
            return True
        res = wrapped_call(eng, j, j, final)
        if res is None:
            return False
        if res:
            self.done = True
            return True
        eng.pop()
        return True


def wrapped_call(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """Start handler (start rule): one of the wrappers above at the start of the output."""
    if eng.cfg.tools is None or getattr(eng.cfg, "fallback", None) in ("gated", "off"):
        return False  # unmarked-like forms: never behind the fallback gates or with the fallback off
    buf = eng.buf
    if any(o.startswith(buf[s:]) for o in _OPENERS) and not final:
        return None  # the start is a prefix of a wrapper: wait for it
    j = s
    fenced = False
    bare_ok = "json" not in eng.cfg.format_set  # the json format reads bare and fenced objects itself
    if buf.startswith("```", j):
        if not bare_ok:
            return False
        f = _FENCE.match(buf, j)
        if f is None:
            return None if _undecided(buf, j, final) and "\n" not in buf[j : j + 16] else False
        if f.group("info").lower() not in ("", "json", "xml"):
            return False
        k = after_ws(buf, f.end(), final)
        if k is None or isinstance(k, bool):
            return k
        j, fenced = k, True
    if buf.startswith("<function", j):
        m = _FUNCTION.match(buf, j)
        if m is None:
            return None if _undecided(buf, j, final) and ">" not in buf[j : j + LOOKAHEAD] else False
        name = m.group("eq") or m.group("attr")
        if not _declared(eng, name):
            return False
        k = after_ws(buf, m.end(), final)
        if k is None or isinstance(k, bool):
            return k
        if buf[k] != "{":
            return False
        eng.begin_call(FMT, s)
        eng.set_name(name)
        eng.pos = k
        eng.push(_Again())
        eng.push(JsonArgsState(eng, ("</function>",), fenced=fenced))
        return True
    for tag, closer in TAGS.items():
        if buf.startswith(tag, j):
            if fenced:
                return False  # one wrapper at a time
            k = after_ws(buf, j + len(tag), final)
            if k is None or isinstance(k, bool):
                return k
            if buf[k] != "{":
                return False
            return _object(eng, s, k, final, closer, False)
    if buf.startswith("{", j) and bare_ok:
        return _object(eng, s, j, final, None, fenced)
    return False
