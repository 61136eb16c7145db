"""cwm: Meta's Code World Model as vLLM's ``cwm`` parser reads it. A call is ``<tool: LABEL>``, then the tool's
name as the body's first word, then its arguments, then ``</tool>``. Arguments that start with ``{`` are a JSON
object; any other rest of the body is one command, ``{"command": TEXT}`` (stripped). The shorthand
``<tool: NAME TEXT </tool>``, without the ``>`` after the label, names the tool by its label.

The raw command has no counterpart in the declaration vocabulary (a body that is one string argument), so this
is a small handler: it decides on the header within the look-ahead, then streams the command as it comes.
"""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, State
from ..core.json_reader import dump_json
from ..core.lookahead import LOOKAHEAD, WS, skip_ws, starts_or_prefix
from ..rejections import Reason
from ..states.json_body import JsonArgsState
from .base import FormatSpec, Wiring
from .openers import Decision

OPEN: Final = "<tool:"
CLOSE: Final = "</tool>"
_FMT: Final = "cwm"
# ``<tool:`` + a label; a ``>`` after it closes the header, anything else makes the label the tool's name.
_HEADER: Final = re.compile(r"[ \t]*(?P<label>[^\s<>]{1,64})[ \t]*(?P<gt>>)?")
# The tool's name: the first word of the body.
_NAME: Final = re.compile(r"\s{0,64}(?P<name>[^\s<>]{1,200})")


def _undecided(e: int, end: int) -> Decision:
    """A match that reached the end of the buffer: more input could change it (None), unless the look-ahead is
    spent (False)."""
    return False if end - e >= LOOKAHEAD else None


def cwm_open(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<tool:`` at ``s``: the header, then the name (the label in the shorthand); the body's state reads on."""
    buf = eng.buf
    m = _HEADER.match(buf, e)
    if m is None:  # nothing but blanks after ``<tool:`` yet, or no label
        blank = not buf[e:].strip(" \t")
        return _undecided(e, len(buf)) if blank and not final else False
    if m.end() >= len(buf) and not final:  # (at the end of the stream a cut header is a cut call)
        return _undecided(e, m.end())
    if m.group("gt") is None:  # the shorthand: the label is the tool, the rest of the body its command
        name, body = m.group("label"), m.end()
    else:
        n = _NAME.match(buf, m.end())
        if n is None:
            closed = starts_or_prefix(buf, skip_ws(buf, m.end()), CLOSE)
            if closed is None and not final:
                return _undecided(e, len(buf))
            if not closed:
                return False
            end = skip_ws(buf, m.end()) + len(CLOSE)
            eng.begin_call(_FMT, s)
            eng.fail_call(Reason.MALFORMED, "a <tool:> block without a tool name", end)
            eng.pos = end
            return True
        if n.end() >= len(buf) and not final:
            return _undecided(e, n.end())
        name, body = n.group("name"), n.end()
    eng.begin_call(_FMT, s)
    eng.set_name(name)
    eng.pos = body
    eng.push(_Body())
    return True


class _Body(State):
    """Whitespace after the name, then the arguments: a JSON object at ``{``, else the raw command."""

    __slots__ = ()

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        j = skip_ws(buf, eng.pos)
        eng.pos = j
        if j >= len(buf) or buf[j] in WS:
            return j < len(buf)  # whitespace is the call's raw text; a longer run than the look-ahead goes on
        eng.pop()
        if buf[j] == "{":
            eng.push(JsonArgsState(eng, (CLOSE,)))
        else:
            eng.args('{"command": "')
            eng.push(_Command())
        return True


class _Command(State):
    """The command text up to ``</tool>``, streamed as a JSON string; whitespace at its end is held back until
    text follows it (it is not part of the command when the closer does)."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held = ""

    def step(self, eng: Engine, final: bool) -> bool:
        buf, pos = eng.buf, eng.pos
        idx = buf.find(CLOSE, pos)
        if idx < 0:
            end = len(buf)
            if not final:  # a possible start of the closer at the end of the buffer waits for the rest
                end -= next((k for k in range(min(len(CLOSE) - 1, end - pos), 0, -1) if buf.endswith(CLOSE[:k])), 0)
            self._write(eng, buf[pos:end])
            eng.pos = end
            return False
        self._write(eng, buf[pos:idx])
        eng.args('"}')
        eng.end_call(idx + len(CLOSE))
        eng.pos = idx + len(CLOSE)
        eng.pop()
        return True

    def _write(self, eng: Engine, text: str) -> None:
        text = self.held + text
        kept = text.rstrip()
        self.held = text[len(kept) :]
        if kept:
            eng.args(dump_json(kept)[1:-1])


def wire_cwm(w: Wiring) -> None:
    w.on(OPEN, cwm_open)


SPECS: Final = [
    FormatSpec(
        _FMT,
        "CWM (Meta Code World Model)",
        "<tool: LABEL>\\nNAME ARGS\\n</tool> (ARGS: a JSON object, or the command text)",
        "<tool: function>\nterminal ls -la\n</tool>",
        wire_cwm,
        opt_in=True,
        notes="named only: `<tool:` could open prose's own tags. Arguments starting with `{` are JSON; any other "
        'rest of the body is {"command": TEXT}. `<tool: NAME TEXT </tool>` (no `>`) names the tool by its label.',
    ),
]
