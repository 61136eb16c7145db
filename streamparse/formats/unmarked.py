"""Unmarked formats (start rule): json, xlam, envelope, and the bare forms of llama3_json and tool_request (c).

They have no opener, so they are tried only where start rule allows: at the start of the output (a start handler,
see :mod:`streamparse.startscope`) and, when named in ``formats``, at every line start (``{``/``[``
markers that check the line start, and ``json``/bare fences, code rule). A candidate there is *held* (not
released as text) only while it can still be a call, and the hold is bounded (:data:`HOLD_CAP`):

- :class:`Shape` watches the candidate's top-level keys as the JSON streams in. A name key with a string
  value plus an args key whose value is an object (or null, or a string holding an object) makes it a
  call; ``toolCalls``/``needsMoreWork`` make it an envelope; the first other key (``version``, ...), a
  non-string name, a non-object element of a list, or JSON that does not parse even after repair rules repairs
  makes it text at once. ``type`` and ``id`` are neutral (OpenAI / Llama 3.3 add them); so is ``content``
  while an envelope is still possible.
- Text: the held characters are emitted exactly, and the rest of the JSON value streams through as text
  (markers inside a data answer are not scanned); in a fence the rest of the block is code (code rule).
- Call: the held prefix is read once more by the shared :class:`~streamparse.calls.JsonCallState`, so
  the name and arguments stream from there on; an undeclared name is rejected (``unknown_tool``).
- Envelope (from a proposal to normalise every format into one envelope): ``content`` streams as
  visible text, the calls in ``toolCalls`` stream as calls,
  ``needsMoreWork`` goes to ``StreamParser.metadata["needsMoreWork"]``.
- End of stream while held (end-of-stream rule): a truncated call once a complete name pair and the start of an args key
  were seen, else the held text is visible.

After a call, another candidate may follow at the next line start (or after ``;`` for llama3_json).
tool_request form (c), ``1 {...}[END_TOOL_REQUEST]``: when the json rules cannot take the object (a line
number precedes it, or no JSON format is enabled), it is held until the end marker decides.
"""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, State
from ..core.lookahead import LOOKAHEAD, fence_at, skip_ws, starts_or_prefix
from ..rejections import Reason
from ..states.json_body import JsonCallState
from ..states.text import FenceState
from .base import FormatSpec, Wiring
from .envelope import EnvelopeState
from .family import Family
from .shape import CALL, ENVELOPE, TEXT, Shape

HOLD_CAP: Final = 8192  # most characters an undecided candidate is held (max_call_chars lowers it; gated: 2 KB)
TOOL_REQUEST_ENDS: Final = ("[END_TOOL_REQUEST]", "[TOOL_REQUEST_END]")
_WS: Final = " \t\r\n"
_LINE_NUMBER: Final = re.compile(r"\d{1,6}[ \t]+")
_DIGITS_WS: Final = re.compile(r"\d{1,6}[ \t]*")

# -- the candidate ---------------------------------------------------------------------------------------

HOLD: Final = 0
PASS: Final = 1
AFTER: Final = 2


class UnmarkedState(State):
    """An unmarked candidate from ``eng.pos`` (its fence, line number or value), then what follows it."""

    __slots__ = ("fam", "shape", "value_off", "scan_off", "fence", "numbered", "phase", "cap", "newline", "prose")

    def __init__(
        self, eng: Engine, fam: Family, start: int, value_at: int, fence: bool, numbered: bool, prose: bool = False
    ) -> None:
        self.fam = fam
        self.prose = prose  # after prose: a call only once it closes and names a declared tool
        self.value_off = value_at - start  # offsets from the candidate start (eng.pos while held)
        self.scan_off = self.value_off
        self.fence = fence
        self.numbered = numbered
        self.shape = Shape(fam.envelope and not numbered, fam.fields, fam.nested)
        self.phase = HOLD
        cap = HOLD_CAP
        if eng.cfg.max_call_chars is not None:
            cap = min(cap, eng.cfg.max_call_chars)
        gate = eng.gate
        if gate is not None and gate.max_chars is not None:
            cap = min(cap, gate.max_chars)
        self.cap = cap
        self.newline = False

    @property
    def need_end(self) -> bool:
        """tool_request (c) without the json rules: only the end marker makes the object a call."""
        return self.fam.end_marker and (self.numbered or not self.fam.objects)

    def step(self, eng: Engine, final: bool) -> bool:
        if self.phase == HOLD:
            return self._hold(eng, final)
        if self.phase == PASS:
            return self._pass(eng, final)
        return self._after(eng, final)

    # HOLD: read until the shape is known -------------------------------------------------------------

    def _hold(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        origin = eng.pos
        shape = self.shape
        reader = shape.reader
        end = reader.feed(buf, origin + self.scan_off, final)
        self.scan_off = end - origin
        if reader.failed:
            shape._decide(TEXT, end)
        verdict = shape.verdict
        # The cap applies to where the verdict was reached in the text, never to how it was chunked.
        if (shape.at - origin if verdict else self.scan_off) > self.cap:
            verdict = TEXT
        if verdict == CALL and self.prose:
            return self._prose_call(eng, final)
        if verdict == CALL and shape.base == 0 and (self.need_end or not self.fam.objects):
            if not self.need_end:
                verdict = TEXT
            else:
                return self._end_marker(eng, final)
        if verdict == TEXT:
            return self._release(eng)
        if verdict == CALL:
            return self._call(eng, ())
        if verdict == ENVELOPE:
            eng.pos = origin + self.value_off
            eng.push(EnvelopeState(eng))
            self.phase = AFTER
            return True
        if final:
            if shape.truncated():
                eng.begin_call(self._label(), origin)
                eng.set_name(shape.name or "")
                eng.fail_call(Reason.TRUNCATED, "the stream ended inside the call", len(buf))
                eng.pos = len(buf)
                eng.pop()
                return True
            return self._release(eng)
        eng.note_hold(len(buf) - origin)
        return False

    def _prose_call(self, eng: Engine, final: bool) -> bool:
        """A call-shaped object after prose is held whole (bounded): a call only at its closing brace and only
        if it names a declared tool; nothing is emitted before that, and otherwise it is text as written."""
        if not self.shape.reader.done:
            if self.scan_off > self.cap or final:
                return self._release(eng)
            eng.note_hold(len(eng.buf) - eng.pos)
            return False
        tools = eng.cfg.tools
        if tools is None or self.shape.name not in tools:
            return self._release(eng)
        return self._call(eng, ())

    def _label(self) -> str:
        if self.shape.base == 1:
            return self.fam.array_label
        return "tool_request" if self.need_end else self.fam.object_label

    def _end_marker(self, eng: Engine, final: bool) -> bool:
        """tool_request (c): the whole object was held; the end marker after it decides."""
        reader = self.shape.reader
        buf = eng.buf
        origin = eng.pos
        if not reader.done:
            if self.scan_off > self.cap:
                return self._release(eng)
            if final:
                return self._release(eng)
            eng.note_hold(len(buf) - origin)
            return False
        end = origin + self.scan_off
        j = skip_ws(buf, end)
        if j >= len(buf) and not final and j - end < LOOKAHEAD:
            return False
        for marker in TOOL_REQUEST_ENDS:
            ok = starts_or_prefix(buf, j, marker) if j < len(buf) else False
            if ok is None and not final:
                return False
            if ok:
                return self._call(eng, TOOL_REQUEST_ENDS)
        return self._release(eng)

    def _call(self, eng: Engine, closers: tuple[str, ...]) -> bool:
        origin = eng.pos
        value = origin + self.value_off
        label = self._label()
        fam = self.fam
        if self.shape.base == 1:
            eng.pos = value
            eng.push(UnmarkedCallState(eng, label, list_form=True, fields=fam.fields, nested=fam.nested))
        else:
            eng.begin_call(label, origin)
            eng.pos = value
            eng.push(UnmarkedCallState(eng, label, closers, fields=fam.fields, nested=fam.nested))
        self.phase = AFTER
        return True

    def _release(self, eng: Engine) -> bool:
        """Not a call: the held text is visible, exactly as written."""
        end = eng.pos + self.scan_off
        eng.text(eng.buf[eng.pos : end])
        eng.pos = end
        reader = self.shape.reader
        if self.fence:
            self._code(eng)
        elif reader.done or reader.failed:
            eng.pop()
        else:
            self.phase = PASS
        return True

    @staticmethod
    def _code(eng: Engine) -> None:
        """The rest of a fenced block that turned out not to hold a call is code (code rule)."""
        eng.pop()
        eng.push(FenceState("`", 3))

    # PASS: the rest of a JSON value that is not a call, as text ---------------------------------------

    def _pass(self, eng: Engine, final: bool) -> bool:
        reader = self.shape.reader
        pos = eng.pos
        end = reader.feed(eng.buf, pos, final)
        reader.out.clear()
        if end > pos:
            eng.text(eng.buf[pos:end])
            eng.pos = end
        if reader.done or reader.failed or final:
            eng.pop()
            return True
        return False

    # AFTER: the closing fence, then maybe another candidate ----------------------------------------------

    def _after(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        n = len(buf)
        if self.fence:
            j = skip_ws(buf, pos)
            if j >= n and not final and j - pos < LOOKAHEAD:
                return False
            ok = starts_or_prefix(buf, j, "```") if j < n else False
            if ok is None and not final:
                return False
            self.fence = False
            if not ok:
                eng.text(buf[pos:j])
                eng.pos = j
                self._code(eng)
                return True
            eng.pos = pos = j + 3  # the closing fence is markup, like the opening one
        j = pos
        while j < n and buf[j] in _WS:
            j += 1
        if j > pos:
            self.newline = self.newline or "\n" in buf[pos:j]
            eng.text(buf[pos:j])
            eng.pos = j
        if j >= n:
            if final:
                eng.pop()
                return True
            return False
        if buf[j] == "[" and self.fam.end_marker:
            # tool_request (c) read by the json rules: its end marker, when it follows, is markup
            found = [starts_or_prefix(buf, j, m) for m in TOOL_REQUEST_ENDS]
            if None in found and not final:
                return False
            if True in found:
                eng.pos = j + len(TOOL_REQUEST_ENDS[found.index(True)])
                return True
        nxt: State | bool | None = False
        if buf[j] == ";" and self.fam.semicolons:
            k = skip_ws(buf, j + 1)
            if k >= n:
                if not final and k - j < LOOKAHEAD:
                    return False
            elif buf[k] == "{":
                nxt = candidate(eng, self.fam, k, final)
                if isinstance(nxt, State):
                    eng.pos = k  # `;` and the whitespace after it separate calls: markup
        elif self.newline:
            nxt = candidate(eng, self.fam, j, final)
        if nxt is None and not final:
            return False
        eng.pop()
        if isinstance(nxt, UnmarkedState):
            nxt.prose = self.prose  # the next object on a prose line is held to the same rule
        if isinstance(nxt, State):
            eng.push(nxt)
        return True


class UnmarkedCallState(JsonCallState):
    """The call (or list of calls) of a candidate: ends the moment its JSON closes (early completion), or at
    tool_request's end marker when one follows; malformed JSON rejects it and the rest is text again."""

    __slots__ = ()

    def _close(self, eng: Engine, final: bool) -> bool:
        if self.list_form or not self.closers:
            self._finish(eng, eng.pos)
            return True
        buf = eng.buf
        j = skip_ws(buf, eng.pos)
        if j >= len(buf) and not final and j - eng.pos < LOOKAHEAD:
            return False
        for closer in self.closers:
            ok = starts_or_prefix(buf, j, closer) if j < len(buf) else False
            if ok is None and not final:
                return False
            if ok:
                if eng.call is not None:
                    eng.call.format = "tool_request"
                self._finish(eng, j + len(closer))
                return True
        self._finish(eng, eng.pos)
        return True

    def _recover(self, eng: Engine, final: bool) -> bool:
        if eng.call is not None:
            eng.fail_call(Reason.MALFORMED, "invalid JSON", eng.pos)
        eng.pop()
        return True


# -- handlers and wiring ----------------------------------------------------------------------------------


def candidate(eng: Engine, fam: Family, s: int, final: bool) -> State | bool | None:
    """The state for an unmarked candidate beginning at ``s``: False (none here), None (need more input)."""
    buf = eng.buf
    n = len(buf)
    c = buf[s]
    if c == "{":
        if fam.objects or fam.envelope or fam.end_marker:
            return UnmarkedState(eng, fam, s, s, False, False)
        return False
    if c == "[":
        if not fam.arrays:
            return False
        j = skip_ws(buf, s + 1)
        if j >= n:
            return False if final or j - s >= LOOKAHEAD else None
        return UnmarkedState(eng, fam, s, s, False, False) if buf[j] == "{" else False
    if c == "`":
        if not fam.fences:
            return False
        f = fence_at(buf, s, final)
        if f is None or f is False:
            return f
        j = skip_ws(buf, f)
        if j >= n:
            return False if final or j - f >= LOOKAHEAD else None
        if buf[j] == "{" or (buf[j] == "[" and fam.arrays):
            return UnmarkedState(eng, fam, s, j, True, False)
        return False
    if c.isdigit() and fam.end_marker:
        m = _LINE_NUMBER.match(buf, s)
        if m is None or m.end() >= n:
            partial = _DIGITS_WS.fullmatch(buf, s)
            return None if partial is not None and not final and n - s < 16 else False
        return UnmarkedState(eng, fam, s, m.end(), False, True) if buf[m.end()] == "{" else False
    return False


class UnmarkedStart:
    """The start handler of the unmarked JSON family (one per wiring, whatever formats share it)."""

    __slots__ = ("fam",)

    def __init__(self, fam: Family) -> None:
        self.fam = fam

    def __call__(self, eng: Engine, s: int, e: int, final: bool) -> bool | None:
        state = candidate(eng, self.fam, s, final)
        if not isinstance(state, State):
            return state
        eng.pos = s
        eng.push(state)
        return True

    def at_line_start(self, eng: Engine, s: int, e: int, final: bool) -> bool | None:
        """Configured mode (start rule): ``{``, ``[``, a fence or (tool_request) a line number at a line start."""
        if not eng.line_start(s):
            return False
        return self(eng, s, s, final)


# Llama 3 JSON objects after prose: call objects only (no list, envelope, fence or end marker).
_PROSE: Final = Family.of(frozenset({"llama3_json"}))


def json_after_prose(eng: Engine, s: int, e: int, final: bool) -> bool:
    """``{`` after prose, llama3_json named and tools given (vLLM's Llama 3 JSON parser reads call objects
    anywhere: ``Here are the results: {...}; {...}``). As for a pythonic list after prose, prose stays text:
    the object is held to its closing brace and is a call only if it names a declared tool, so a JSON value
    in prose (data, an example naming no tool of this request) is text, and no call event comes before."""
    if eng.cfg.tools is None or eng.call is not None or _PROSE is None:
        return False
    eng.pos = s
    eng.push(UnmarkedState(eng, _PROSE, s, s, False, False, prose=True))
    return True


def wire_unmarked(w: Wiring) -> None:
    """Wire the unmarked JSON family once per wiring, for all of its active formats together."""
    if any(isinstance(h, UnmarkedStart) for h in w.start):
        return
    fam = Family.of(w.active)
    if fam is None:
        return
    start = UnmarkedStart(fam)
    w.start.append(start)
    if not w.explicit:
        return
    line = start.at_line_start
    if fam.objects or fam.envelope or fam.end_marker:
        w.on("{", line)
    if fam.arrays:
        w.on("[", line)
    if fam.fences:
        w.fence_infos.setdefault("json", line)
        w.fence_infos.setdefault("", line)
    if fam.end_marker:
        for digit in "0123456789":
            w.on(digit, line)


def wire_bare(w: Wiring) -> None:
    """The bare forms of llama3_json and tool_request (form c), whose specs live in formats/marked.py."""
    if w.active & {"llama3_json", "tool_request"}:
        wire_unmarked(w)


_ARGS: Final = '{"minutes": 15}'

SPECS: list[FormatSpec] = [
    FormatSpec(
        "json",
        "any prompted model (seeds 000, 003, 004)",
        '{"name"|"tool_name"|"tool"|"function": NAME, "arguments"|"parameters"|"params"|"args"|"input": ARGS}, '
        'a list of them, or {"type": "function", "function": {"name", "arguments"}}; bare or in a ```json / '
        "bare fence, at a line start (start rule)",
        'Sure!\n\n{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}',
        wire_unmarked,
        notes="In formats='auto' only at the start of the output. Objects that are not call-shaped "
        "(package.json-like, data answers) are text.",
    ),
    FormatSpec(
        "xlam",
        "xLAM / xLAM-2",
        '[{"name": NAME, "arguments": ARGS}, ...] bare or in a json fence (alias of json\'s list form)',
        '[{"name": "set_alarm", "arguments": ' + _ARGS + "}]",
        wire_unmarked,
    ),
    FormatSpec(
        "envelope",
        "prompted agents normalised to one envelope (SpeakMCP)",
        '{"toolCalls": [{"name": NAME, "arguments": ARGS}, ...], "content": TEXT, "needsMoreWork": BOOL} '
        "(any key order)",
        '{"toolCalls": [{"name": "set_alarm", "arguments": ' + _ARGS + '}], "content": "Setting it.", '
        '"needsMoreWork": true}',
        wire_unmarked,
        notes="`content` streams as visible text; `needsMoreWork` is StreamParser.metadata['needsMoreWork'].",
    ),
]
