"""Text-valued arguments in tags (``<parameter=k>v</parameter>``, ``<arg_key>``/``<arg_value>``, ...).

Values are text, typed by the tool's schema when complete and streamed as JSON built incrementally (see
"Typing of text-valued parameters" in docs/FORMATS.md).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any, Final

from ..core.engine import Engine, Handler, MarkerTable, State
from ..core.json_reader import dump_json
from ..core.lookahead import LOOKAHEAD, after_ws, blanks_then_prefix, read_header, starts_or_prefix, undecided
from ..rejections import Reason
from .value_writer import ValueWriter, member

# Value text that cannot hold a marker nor end in a newline the value rules may drop. Every value-scope
# marker starts with "</" or "<p" (</parameter>, <parameter=, </KEY>, </arg_value>), so "<" before another
# char is text.
_PLAIN_VALUE: Final = re.compile(r"[^<\n]*(?:(?:\n(?=[^<\n])|<(?=[^/p<\n]))[^<\n]*)*")


CDATA_OPEN: Final = "<![CDATA["
CDATA_CLOSE: Final = "]]>"
_ESCAPED_SPACE: Final = " \t\r\n\\nrt"  # literal escapes between the tags of a JSON-escaped call


@dataclass(frozen=True)
class TagSyntax:
    """How one XML-style call spells its parameters.

    ``param_open`` begins a parameter header that ``param_header`` parses up to ``header_end``; the value
    runs to ``param_close`` (or to ``</KEY>`` when None). ``call_close`` ends the call. ``lenient``: a
    missing ``param_close`` is tolerated when another parameter or the call close follows.
    """

    param_open: str
    header_end: str
    param_header: re.Pattern[str]
    param_close: str | None
    call_close: str
    lenient: bool = False
    markup: tuple[str, ...] = ()  # tags in the body that are skipped (generic_xml's <arguments>)
    trim: bool = False  # values are stripped of surrounding whitespace, not just one newline per side
    verbatim: bool = False  # values keep every character between the markers (no newline is dropped)
    key_escapes: bool = False  # keys (attribute values) are XML-escaped: ``&quot;`` -> ``"``
    json_values: bool = False  # every value is written as JSON (strings quoted): read as JSON
    python_values: bool = False  # non-string values are Python reprs (``None``, ``True``, ``['a']``)
    outer_close: tuple[str, ...] = ()
    """Closers of the enclosing block that also end the call between parameters (``</parameter></tool_call>``:
    the model left ``</function>`` out) and are left for the block; inside a value they are value text."""
    # What may follow ``call_close`` when it ends a value (lenient: ``</parameter>`` missing); empty: anything.
    call_next: tuple[str, ...] = ()
    # A call written without its block's wrapper (Qwen3-Coder's bare ``<function=``): ``call_close`` at a line
    # start ends a value whose closer is missing whatever follows (no wrapper closer can follow it).
    bare_close: bool = False
    cdata: bool = False  # values may hold ``<![CDATA[...]]>``: the inner text is value text, markers included
    tables: dict[str, MarkerTable] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def body_table(self) -> MarkerTable:
        t = self.tables.get("")
        if t is None:
            markers: dict[str, list[Handler]] = {self.param_open: [], self.call_close: []}
            markers.update((m, []) for m in (*self.markup, *self.outer_close))
            t = self.tables[""] = MarkerTable(markers)
        return t

    def plain_values(self) -> bool:
        """Every marker of the value scope starts with ``</`` or ``<p`` (what ``_PLAIN_VALUE`` assumes)."""
        markers = [self.param_open, self.call_close, self.param_close or "</"]
        return not self.cdata and all(m.startswith(("</", "<p")) for m in markers)

    def value_table(self, close: str) -> MarkerTable:
        t = self.tables.get(close)
        if t is None:
            markers: dict[str, list[Handler]] = {close: []}
            if self.lenient:
                markers[self.param_open] = []
                markers[self.call_close] = []
            if self.cdata:
                markers[CDATA_OPEN] = []
            t = self.tables[close] = MarkerTable(markers)
        return t


# A lone parameter of one of these names that the tool does not declare may wrap the real arguments
# (``<parameter name="arguments">{"location": "Beijing"}</parameter>``, DeepSeek V3.2 per vLLM's tests).
_WRAPPERS: Final = ("arguments", "input")


class TagCallState(State):
    """Parameters of an XML-style call (the name was read by the opener), up to ``call_close``."""

    __slots__ = ("syn", "value", "close", "nparams", "escaped", "cdata", "pending", "plain", "keys", "after")

    def __init__(self, syn: TagSyntax, escaped: bool = False) -> None:
        self.syn = syn
        self.cdata = False  # inside a CDATA section of a value: only ``]]>`` ends it
        self.value: ValueWriter | None = None
        self.close = ""
        self.nparams = 0
        self.escaped = escaped  # literal ``\n`` between the tags: the call was JSON-escaped once
        self.pending: ValueWriter | None = None  # a complete wrapper parameter, held until the call's end
        self.plain = syn.plain_values()  # (asked after every step of a streaming value: once per call)
        self.keys: set[str] = set()  # the call's parameter names so far (bounded by the call's size)
        self.after: tuple[str, ...] = ()  # the markers a closer's continuation was last looked for

    def arm(self, eng: Engine) -> tuple[re.Pattern[str], bool] | None:
        value = self.value
        if self.escaped or value is None or not value.stream or value.trim or value.first or value.held_nl:
            return None
        if value.nl_end:  # a line start a closer after it may need (lenient closers): the states decide
            return None
        if not self.plain:
            return None  # a value-scope marker _PLAIN_VALUE does not stop at (K3's ``<|close|>``)
        return _PLAIN_VALUE, True

    def step(self, eng: Engine, final: bool) -> bool:
        syn = self.syn
        buf = eng.buf
        pos = eng.pos
        if self.cdata:
            return self._cdata(eng, final)
        if self.value is not None:
            found = syn.value_table(self.close).markers.search(buf, pos)
            if found is None or found[2] is None:
                end = len(buf) if found is None else found[0]
                if final:
                    end = len(buf)
                self.value.write(buf[pos:end])
                eng.pos = end
                if found is not None and not final:
                    eng.wait_for(syn.value_table(self.close).markers, end)  # a marker's prefix is held
                return False
            s, e, tok = found
            if tok == CDATA_OPEN:
                self.value.write(buf[pos:s])
                self.cdata = True
                eng.pos = e
                return True
            ends = self._ends_value(buf, tok, s, e, final, pos)
            if not ends:
                if ends is None:  # what follows the closer decides: hold from it (bounded look-ahead)
                    self.value.write(buf[pos:s])
                    eng.pos = s
                    eng.note_hold(len(buf) - s)
                    if self.after and tok not in syn.value_table(self.close).markers.extendable:
                        # The next marker arriving in pieces (blanks, then its prefix): kept meanwhile.
                        eng.wait_for(blanks_then_prefix(self.after), e)
                    return False
                self.value.write(buf[pos:e])  # a closer written inside the value is text of the value
                eng.pos = e
                return True
            self.value.write(buf[pos:s])
            self.value.finish()
            if self.value.deferred:
                self.pending = self.value
            self.value = None
            eng.pos = e if tok == self.close else s
            return True
        found = syn.body_table().markers.search(buf, pos)
        if final and (found is None or found[2] is None) and self._stopped_after_body(eng, buf[pos:]):
            return True
        if found is None or found[2] is None:
            end = len(buf) if found is None else found[0]
            self._junk(eng, buf[pos:end])
            eng.pos = end
            if found is not None and not final:
                eng.wait_for(syn.body_table().markers, end)  # a marker's prefix is held
            return False
        s, e, tok = found
        self._junk(eng, buf[pos:s])
        if tok in syn.markup:
            eng.pos = e
            return True
        if tok == syn.call_close or tok in syn.outer_close:
            # A missing call closer before the block's closer (`</parameter></tool_call>`): the call ends there.
            end = e if tok == syn.call_close else s
            self._close_args(eng)
            eng.end_call(end)
            eng.pos = end
            eng.pop()
            return True
        stop = buf.find(syn.call_close, e, e + LOOKAHEAD + len(syn.call_close))
        if stop >= 0 and buf.find(syn.header_end, e, stop) < 0:
            # The call's closer before the header's end (a key written with no value): the call is malformed,
            # not cut, and ends at its closer; the text after it stays text.
            call = eng.call
            if call is not None and call.reject is None:
                call.reject, call.detail = Reason.MALFORMED, "a parameter without its value"
            eng.pos = stop
            return True
        m = read_header(buf, e, syn.header_end, syn.param_header, final)
        if m is None:
            eng.pos = s
            # Only more of the header decides (its end, or the call's closer before it): kept meanwhile.
            eng.wait_for(undecided(buf[s:e], (syn.header_end, syn.call_close), LOOKAHEAD - 1), s)
            return False
        if not m and final and buf.find(syn.header_end, e) < 0:
            eng.pos = len(buf)  # the output ended inside a parameter's header: the call was cut (truncated)
            return False
        if not m:
            call = eng.call
            if call is not None and call.reject is None:
                call.reject, call.detail = Reason.MALFORMED, "unreadable parameter tag"
            eng.pos = e
            return True
        key = m.group("key").strip()
        if syn.key_escapes and "&" in key:
            key = html.unescape(key)
        raw_json = True if syn.json_values else None
        if "string" in m.re.groupindex and m.group("string") is not None:
            raw_json = m.group("string").lower() != "true"
        if "type" in m.re.groupindex and m.group("type") is not None:
            raw_json = m.group("type") != "string"  # a declared type attribute: string is raw text, else JSON
        if key in self.keys and eng.call is not None and eng.call.reject is None:
            # Which of the two values was meant is unknowable, and a JSON object cannot hold both.
            eng.call.reject, eng.call.detail = Reason.MALFORMED, f"parameter {key!r} given twice"
        self.keys.add(key)
        self.close = syn.param_close or f"</{key}>"
        self._release(eng)
        deferred = self.nparams == 0 and key in _WRAPPERS and _undeclared(eng, key)
        self.value = ValueWriter(
            eng,
            key,
            self.nparams == 0,
            raw_json,
            syn.trim,
            self.escaped,
            syn.verbatim,
            syn.python_values,
            deferred=deferred,
        )
        self.nparams += 1
        eng.pos = m.end()
        return True

    def _release(self, eng: Engine) -> None:
        """A held wrapper parameter is an ordinary one after all (another parameter follows it)."""
        held, self.pending = self.pending, None
        if held is not None:
            eng.args(member(held.key, True) + dump_json(held.result))

    def _close_args(self, eng: Engine) -> None:
        """The end of the arguments object; a lone wrapper parameter whose value is an object of the tool's own
        parameters is those arguments (as vLLM's DeepSeek V3.2 parser unwraps it)."""
        held = self.pending
        inner = _unwrapped(eng, held.result) if held is not None else None
        if inner is not None:
            self.pending = None
            eng.args(dump_json(inner))
            return
        self._release(eng)
        eng.args("}" if self.nparams else "{}")

    def _cdata(self, eng: Engine, final: bool) -> bool:
        """Inside ``<![CDATA[``: text up to ``]]>`` is value text; a possible start of ``]]>`` at the end of
        the buffer is held (two characters at most)."""
        buf, pos = eng.buf, eng.pos
        value = self.value
        assert value is not None
        idx = buf.find(CDATA_CLOSE, pos)
        if idx < 0:
            end = len(buf) if final else len(buf) - (2 if buf.endswith("]]") else 1 if buf.endswith("]") else 0)
            end = max(end, pos)
            value.write(buf[pos:end])
            eng.pos = end
            return False
        value.write(buf[pos:idx])
        eng.pos = idx + len(CDATA_CLOSE)
        self.cdata = False
        return True

    def _after_newline(self, buf: str, s: int, pos: int) -> bool:
        """The value text before the marker at ``s`` ends with a newline. Text consumed before ``pos`` may have
        gone through the engine's argument fast path, which keeps no context, so the value remembers it
        (the fast paths never take text ending in a newline, nor text after one)."""
        if s > pos:
            return buf[s - 1] == "\n"
        value = self.value
        return value is not None and value.nl_end

    def _ends_value(self, buf: str, tok: str | None, s: int, e: int, final: bool, pos: int) -> bool | None:
        """A closer ends the value only where the structure can end: the template writes the next parameter
        or the call's closer after ``</parameter>`` (and the section's closer or another call after the
        call's closer); anything else means the model wrote the marker inside the value (markers inside
        values). None: the continuation is not here yet."""
        syn = self.syn
        if self.escaped:
            return True
        if tok == syn.param_open:  # lenient: a missing closer; the template starts parameters on a new line
            return self._after_newline(buf, s, pos)
        if tok == self.close:
            nexts: tuple[str, ...] = (syn.param_open, syn.call_close, *syn.outer_close, *syn.markup)
        elif syn.bare_close and self._after_newline(buf, s, pos):
            return True
        elif syn.call_next:
            nexts = syn.call_next
        else:
            return True
        self.after = nexts  # (what a None below waits for)
        j = after_ws(buf, e, final)
        if j is None:
            return None
        if j is False:  # the end of the output (or a long whitespace run) follows
            return True
        pending = False
        for marker in nexts:
            ok = starts_or_prefix(buf, j, marker)
            if ok:
                return True
            pending = pending or ok is None
        if pending:  # the output so far ends inside the next marker: at its end, the structure ended here
            return True if final else None
        return False

    def _stopped_after_body(self, eng: Engine, rest: str) -> bool:
        """close(reason="stop") with every parameter closed and only (part of) the call's closer left: a stop
        sequence ate the closer, so the call is complete (a stop for length leaves it truncated)."""
        call = eng.call
        tail = rest.strip()
        if eng.end_reason != "stop" or call is None or call.name is None or call.reject is not None:
            return False
        if tail and not self.syn.call_close.startswith(tail):
            return False
        self._close_args(eng)
        eng.end_call(len(eng.buf))
        eng.pos = len(eng.buf)
        eng.pop()
        return True

    def _junk(self, eng: Engine, text: str) -> None:
        if self.escaped:
            text = text.strip(_ESCAPED_SPACE)  # literal \n, \t between the tags of an escaped call
        if text and not text.isspace():
            call = eng.call
            if call is not None and call.reject is None:
                # Only the first character: a longer excerpt would depend on the chunking (chunking invariance).
                call.reject, call.detail = Reason.MALFORMED, f"unexpected text in the call at {text.lstrip()[:1]!r}"


def _undeclared(eng: Engine, key: str) -> bool:
    """Whether the call's tool is declared and has no parameter ``key``."""
    tools, call = eng.cfg.tools, eng.call
    if tools is None or call is None or call.name is None or call.name not in tools:
        return False
    return tools.property_schema(call.name, key) is None


def _unwrapped(eng: Engine, value: Any) -> dict[str, Any] | None:
    """``value`` (an object, or a JSON string of one) when every key of it is a parameter of the call's tool."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return None
    tools, call = eng.cfg.tools, eng.call
    if not isinstance(value, dict) or not value or tools is None or call is None or call.name is None:
        return None
    name = call.name
    return value if all(tools.property_schema(name, k) is not None for k in value) else None
