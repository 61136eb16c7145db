"""Call-body states shared by every format: the engine's building blocks.

- :class:`JsonCallState`: a JSON call object ``{"name": ..., "arguments": {...}}`` (any key order and the
  field-name variants of FORMATS.md ``json``), or a list of them; arguments stream as they arrive.
- :class:`JsonArgsState`: the name came from a header; the body is the JSON arguments object.
- :class:`TagCallState`: text-valued arguments in tags (R7), streamed as JSON built incrementally.
- :class:`BlockState`: a section holding several calls (``<function_calls>``, ``<｜tool▁calls▁begin｜>``).

A format is data that wires these together (see ``streamparse/formats``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from json.encoder import encode_basestring  # the C string escaper json.dumps uses
from typing import Any, Literal

from .coerce import coerce_text_value, streams_as_string
from .engine import Engine, Handler, MarkerTable, State
from .events import Event
from .jsonstream import DQ_RUN, STRING, JsonReader
from .jsonstream import NEEDS_ESCAPE as _NEEDS_ESCAPE
from .rejections import Reason

NAME_KEYS = {"name": "name", "tool_name": "name", "tool": "name", "function": "function"}
ARGS_KEYS = frozenset({"arguments", "parameters", "params", "args", "input"})
WS = " \t\r\n"
# Value text that cannot hold a marker nor end in a newline that R7 may drop. Every value-scope marker
# starts with "</" or "<p" (</parameter>, <parameter=, </KEY>, </arg_value>), so "<" before another char is text.
_PLAIN_VALUE = re.compile(r"[^<\n]*(?:(?:\n(?=[^<\n])|<(?=[^/p<\n]))[^<\n]*)*")
LOOKAHEAD = 256  # bound on whitespace / header text examined before deciding (R2)
JSON_FENCE = "json_fence"


def skip_ws(buf: str, i: int, limit: int = LOOKAHEAD) -> int:
    """Index of the first non-whitespace character at or after ``i`` (or ``len(buf)``), bounded."""
    n = len(buf)
    stop = min(n, i + limit)
    while i < stop and buf[i] in WS:
        i += 1
    return i


def starts_or_prefix(buf: str, i: int, word: str) -> bool | None:
    """True if ``word`` starts at ``i``; None if the rest of the buffer is a proper prefix of it."""
    rest = len(buf) - i
    if rest >= len(word):
        return buf.startswith(word, i)
    return None if word.startswith(buf[i:]) else False


def read_header(
    buf: str, i: int, terminator: str, pattern: re.Pattern[str], final: bool, limit: int = LOOKAHEAD
) -> re.Match[str] | None | Literal[False]:
    """Match ``pattern`` against ``buf[i:]`` up to and including ``terminator``, within ``limit`` chars.

    Returns the match, None when more input is needed, or False when it cannot match.
    """
    idx = buf.find(terminator, i, i + limit + len(terminator))
    if idx < 0:
        if len(buf) < i + limit and not final:
            return None
        return False
    m = pattern.fullmatch(buf, i, idx + len(terminator))
    return m if m is not None else False


def fence_at(buf: str, j: int, final: bool) -> int | None | bool:
    """A ```json (or bare ```) fence line at ``j``: index after its newline, None (more), False (no)."""
    if not buf.startswith("```", j):
        ok = starts_or_prefix(buf, j, "```")
        return None if ok is None and not final else False
    nl = buf.find("\n", j + 3, j + 3 + 32)
    if nl < 0:
        return None if (len(buf) < j + 35 and not final) else False
    info = buf[j + 3 : nl].strip().lower()
    return nl + 1 if info in ("", "json") else False


# -- JSON call objects ------------------------------------------------------------------------------


class CallExtractor:
    """JSON sink that picks the name and streams the arguments of call objects at depth ``base``."""

    __slots__ = (
        "eng",
        "fmt",
        "base",
        "reader",
        "each",
        "fallback",
        "role",
        "args_depth",
        "args_kind",
        "name_depth",
        "in_fn",
        "obj_done",
        "need_args_key",
        "saw_args",
    )

    def __init__(self, eng: Engine, fmt: str, base: int, each: bool, fallback: bool = False) -> None:
        self.eng = eng
        self.fmt = fmt
        self.base = base
        self.each = each  # one candidate per object (list forms); else the opener began the candidate
        self.fallback = fallback
        self.reader: JsonReader = JsonReader(self, watch=base + 2)
        self.role: str | None = None
        self.args_depth = -1
        self.args_kind = ""
        self.name_depth = -1
        self.in_fn = False
        self.obj_done = False
        self.saw_args = False

    @property
    def streaming(self) -> bool:
        return self.args_depth >= 0 and self.args_kind == "{"

    def _member(self, depth: int) -> bool:
        return depth == self.base + 1 or (self.in_fn and depth == self.base + 2)

    def value_start(self, depth: int, kind: str, pos: int) -> None:
        eng = self.eng
        if depth == self.base:
            if self.each:
                eng.begin_call(self.fmt, pos, self.fallback)
                self.reader.repairs = []
            self.role = None
            self.in_fn = False
            self.saw_args = False
            if kind != "{" and eng.call is not None:
                eng.call.reject, eng.call.detail = Reason.MALFORMED, "a call must be a JSON object"
            return
        if not self._member(depth):
            return
        role = self.role
        if role == "args":
            self.reader.drain()
            self.args_depth = depth
            self.args_kind = kind
        elif role == "name" and kind == '"':
            self.reader.drain()
            self.name_depth = depth
        elif role == "function":
            if kind == '"':
                self.reader.drain()
                self.name_depth = depth
            elif kind == "{" and depth == self.base + 1:
                self.in_fn = True  # OpenAI nesting: {"type": "function", "function": {"name", "arguments"}}

    def key(self, depth: int, key: str) -> None:
        if not self._member(depth):
            return
        call = self.eng.call
        if key in ARGS_KEYS:
            self.role = None if self.saw_args else "args"
            self.saw_args = True
        elif key in NAME_KEYS:
            role = NAME_KEYS[key]
            named = call is not None and call.name is not None
            self.role = None if (named and role == "name") else role
        else:
            self.role = None

    def value_end(self, depth: int, pos: int) -> None:
        eng = self.eng
        if depth == self.args_depth:
            text = self.reader.drain()
            kind = self.args_kind
            self.args_depth = -1
            if kind == "{":
                eng.args(text)
            else:
                self._args_value(text, kind)
        elif depth == self.name_depth:
            self.name_depth = -1
            try:
                name = json.loads(self.reader.drain())
            except ValueError:
                name = None
            if isinstance(name, str):
                eng.set_name(name.strip())
        elif depth == self.base:
            eng.add_repairs(self.reader.repairs)
            if self.each:
                eng.end_call(pos)
            else:
                self.obj_done = True
            return
        elif depth == self.base + 1 and self.in_fn:
            self.in_fn = False
        if self._member(depth):
            self.role = None

    def _args_value(self, text: str, kind: str) -> None:
        """Arguments that are not an object: a JSON-encoded string is decoded (R5); null means none."""
        eng = self.eng
        call = eng.call
        if call is None:
            return
        value: Any
        try:
            value = json.loads(text)
        except ValueError:
            value = object()
        if value is None:
            eng.args("{}")
            return
        if isinstance(value, str):
            try:
                decoded = json.loads(value) if value.strip() else {}
            except ValueError:
                decoded = None
            if isinstance(decoded, dict):
                eng.args(json.dumps(decoded, ensure_ascii=False))
                return
        call.has_args = True
        call.reject, call.detail = Reason.MALFORMED, "arguments are not a JSON object"


class _JsonBody(State):
    """What JSON bodies share: the closer after the value, and recovery after malformed JSON."""

    # closers: required (or, with optional_close, optional) end markers after the JSON value;
    # ends: malformed JSON is swallowed through the first of these (default: the closers);
    # stops: ... or up to the first of these (left for the scan: e.g. the next call's opener);
    # phase: 0 reading JSON, 1 expecting the closer, 2 recovering after malformed JSON.
    __slots__ = ("closers", "ends", "stops", "optional_close", "fenced", "phase")
    closers: tuple[str, ...]
    ends: tuple[str, ...]
    stops: tuple[str, ...]
    optional_close: bool
    fenced: bool
    phase: int
    list_form: bool

    def _close(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        end = eng.pos  # where the call ends when no closer follows: right after the JSON value
        if not self.closers and not self.fenced:
            self._finish(eng, end)  # the JSON value was the whole call (invariant 4: end now)
            return True
        j = skip_ws(buf, end)
        if j >= len(buf) and not final:
            return False
        if self.fenced:
            ok = starts_or_prefix(buf, j, "```")
            if ok is None and not final:
                return False
            if ok:
                end = j + 3
                j = skip_ws(buf, end)
                if j >= len(buf) and not final and self.closers:
                    return False
        for closer in self.closers:
            ok = starts_or_prefix(buf, j, closer)
            if ok is None and not final:
                return False
            if ok:
                self._finish(eng, j + len(closer))
                return True
        if self.optional_close or not self.closers:
            self._finish(eng, end)
            return True
        if final and eng.call is not None and (j >= len(buf) or any(c.startswith(buf[j:]) for c in self.closers)):
            # The stream ended before (or inside) the required end marker: truncated, not malformed (R9).
            stop = len(buf) if j < len(buf) else end
            eng.fail_call(Reason.TRUNCATED, f"the stream ended before {self.closers[0]!r}", stop)
            eng.pos = stop
            eng.pop()
            return True
        if eng.call is not None and not self.list_form and not self.fenced:
            # Text where the required end marker should be: the call is malformed, and everything up to the
            # end marker is its markup (recovered below), so nothing of it leaks into the visible text.
            cand = eng.call
            if cand.reject is None:
                cand.reject, cand.detail = Reason.MALFORMED, f"expected {self.closers[0]!r} after the JSON"
            self.phase = 2
            return True
        if eng.call is not None:
            eng.fail_call(Reason.MALFORMED, f"expected {self.closers[0]!r} after the JSON", end)
        eng.pos = end
        eng.pop()
        return True

    def _finish(self, eng: Engine, end: int) -> None:
        if not self.list_form:
            eng.end_call(end)
        eng.pos = end
        eng.pop()

    def _recover(self, eng: Engine, final: bool) -> bool:
        """Malformed JSON: the call runs to the first of ``ends`` (included) or ``stops`` (excluded), else to
        the end of the stream; all of it is the rejection's raw text, so no markup leaks into the text.
        A format with neither (an ASCII marker such as ``TOOL_CALL``) rejects at the error and scans on."""
        ends, stops = self.ends, self.stops
        buf = eng.buf
        pos = eng.pos
        if not ends and not stops:
            if eng.call is not None:
                eng.fail_call(Reason.MALFORMED, "", pos)
            eng.pop()
            return True
        if eng.call is None:  # junk between the objects of a list: a rejected candidate of its own
            cand = eng.begin_call(getattr(self, "fmt", ""), pos)
            cand.reject, cand.detail = Reason.MALFORMED, "invalid JSON between calls"
        cut = end = -1
        for marker in ends:
            i = buf.find(marker, pos)
            if i >= 0 and (cut < 0 or i < cut):
                cut, end = i, i + len(marker)
        for marker in stops:
            i = buf.find(marker, pos)
            if i >= 0 and (cut < 0 or i < cut):
                cut, end = i, i
        if cut < 0:
            if not final:
                keep = max(len(m) for m in ends + stops) - 1
                eng.pos = max(pos, len(buf) - keep)
                return False
            end = len(buf)
        eng.fail_call(Reason.MALFORMED, "invalid JSON", end)
        eng.pos = end
        eng.pop()
        return True

    def at_close(self, eng: Engine) -> None:
        if self.phase == 1 and (self.optional_close or not self.closers) and eng.call is not None:
            eng.end_call(eng.pos)



class JsonCallState(_JsonBody):
    """One call object (the opener began the candidate) or a list of call objects, then a closer."""

    __slots__ = ("fmt", "sink", "list_form")

    def __init__(
        self,
        eng: Engine,
        fmt: str,
        closers: tuple[str, ...] = (),
        *,
        list_form: bool = False,
        optional_close: bool = False,
        fenced: bool = False,
        fallback: bool = False,
        ends: tuple[str, ...] | None = None,
        stops: tuple[str, ...] = (),
    ) -> None:
        self.fmt = fmt
        self.closers = closers
        self.ends = closers if ends is None else ends
        self.stops = stops
        self.optional_close = optional_close
        self.fenced = fenced
        self.list_form = list_form
        self.sink = CallExtractor(eng, fmt, 1 if list_form else 0, each=list_form, fallback=fallback)
        self.phase = 0
        if fenced:
            eng.add_repairs([JSON_FENCE])

    def arm(self, eng: Engine) -> tuple[re.Pattern[str], bool] | None:
        reader = self.sink.reader
        if self.phase or reader.state != STRING or reader.is_key or reader.out or reader.quote != '"':
            return None
        return (DQ_RUN, False) if self.sink.streaming else None

    def step(self, eng: Engine, final: bool) -> bool:
        if self.phase == 0:
            sink = self.sink
            reader = sink.reader
            start = eng.pos
            eng.pos = reader.feed(eng.buf, start, final)
            if sink.streaming:
                eng.args(reader.drain())
            elif eng.call is not None and eng.call.closed:
                reader.drain()  # rejected too_large: keep reading to its end, buffering nothing
            if reader.failed:
                if eng.call is not None:
                    eng.call.reject, eng.call.detail = Reason.MALFORMED, f"invalid JSON: {reader.error}"
                self.phase = 2
                return True
            if reader.done:
                self.phase = 1
                return True
            return False
        if self.phase == 1:
            return self._close(eng, final)
        return self._recover(eng, final)


class JsonArgsState(_JsonBody):
    """The arguments object of a call whose name is already known, then a closer."""

    __slots__ = ("reader",)
    list_form = False

    def __init__(
        self,
        eng: Engine,
        closers: tuple[str, ...] = (),
        *,
        optional_close: bool = False,
        fenced: bool = False,
        ends: tuple[str, ...] | None = None,
        stops: tuple[str, ...] = (),
    ) -> None:
        self.closers = closers
        self.ends = closers if ends is None else ends
        self.stops = stops
        self.optional_close = optional_close
        self.fenced = fenced
        self.reader = JsonReader()
        self.phase = 0
        if fenced:
            eng.add_repairs([JSON_FENCE])

    def arm(self, eng: Engine) -> tuple[re.Pattern[str], bool] | None:
        reader = self.reader
        if self.phase or reader.state != STRING or reader.out or reader.quote != '"':
            return None
        return DQ_RUN, False

    def step(self, eng: Engine, final: bool) -> bool:
        if self.phase == 0:
            reader = self.reader
            start = eng.pos
            first = start < len(eng.buf) and reader.depth == 0 and not reader.out and reader.state == 0
            if first and eng.buf[start] != "{":
                if eng.call is not None:
                    eng.call.reject, eng.call.detail = Reason.MALFORMED, "arguments are not a JSON object"
                self.phase = 2
                return True
            eng.pos = reader.feed(eng.buf, start, final)
            eng.args(reader.drain())
            if reader.failed:
                if eng.call is not None:
                    eng.call.reject, eng.call.detail = Reason.MALFORMED, f"invalid JSON: {reader.error}"
                self.phase = 2
                return True
            if reader.done:
                eng.add_repairs(reader.repairs)
                self.phase = 1
                return True
            return False
        if self.phase == 1:
            return self._close(eng, final)
        return self._recover(eng, final)


# -- text-valued arguments in tags (R7) --------------------------------------------------------------


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
    tables: dict[str, MarkerTable] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def body_table(self) -> MarkerTable:
        t = self.tables.get("")
        if t is None:
            markers: dict[str, list[Handler]] = {self.param_open: [], self.call_close: []}
            markers.update((m, []) for m in self.markup)
            t = self.tables[""] = MarkerTable(markers)
        return t

    def value_table(self, close: str) -> MarkerTable:
        t = self.tables.get(close)
        if t is None:
            markers: dict[str, list[Handler]] = {close: []}
            if self.lenient:
                markers[self.param_open] = []
                markers[self.call_close] = []
            t = self.tables[close] = MarkerTable(markers)
        return t


class ValueWriter:
    """Streams one text value into the arguments JSON (R7): drop one leading and one trailing newline;
    strings stream fragment by fragment, other types are coerced by the schema when complete."""

    __slots__ = ("eng", "schema", "stream", "first", "held_nl", "parts", "raw_json", "trim", "held_ws")

    def __init__(
        self, eng: Engine, key: str, first_key: bool, raw_json: bool | None, trim: bool = False
    ) -> None:
        self.eng = eng
        self.trim = trim
        self.held_ws = ""
        call = eng.call
        tools = eng.cfg.tools
        self.schema = None
        if tools is not None and call is not None and call.name is not None and call.name in tools:
            self.schema = tools.property_schema(call.name, key)
        self.raw_json = raw_json  # DSML string="false": the value is JSON; "true": raw text
        if raw_json is None:
            self.stream = streams_as_string(self.schema)
        else:
            self.stream = not raw_json
        self.first = True
        self.held_nl = False
        self.parts: list[str] = []
        prefix = ("{" if first_key else ", ") + json.dumps(key, ensure_ascii=False) + ": "
        eng.args(prefix + ('"' if self.stream else ""))

    def write(self, text: str) -> None:
        if not text:
            return
        if self.trim:
            # Leading whitespace is dropped; trailing whitespace waits until more text follows it.
            text = text.lstrip() if self.first else self.held_ws + text
            body = text.rstrip()
            self.held_ws = text[len(body) :]
            if not body:
                return
            self.first = False
            text = body
        elif self.first:
            self.first = False
            if text[0] == "\n":
                text = text[1:]
        if self.held_nl:
            text = "\n" + text
            self.held_nl = False
        if text.endswith("\n"):
            text = text[:-1]
            self.held_nl = True
        if not text:
            return
        if self.stream:
            self.eng.args(encode_basestring(text)[1:-1])
        elif not (self.eng.call is not None and self.eng.call.closed):  # too_large: buffer nothing more
            self.parts.append(text)

    def finish(self) -> None:
        if self.stream:
            self.eng.args('"')
            return
        raw = "".join(self.parts)
        value: Any
        if self.raw_json:
            try:
                value = json.loads(raw)
            except ValueError:
                value = coerce_text_value(raw, self.schema)
        else:
            value = coerce_text_value(raw, self.schema)
        self.eng.args(json.dumps(value, ensure_ascii=False))


class TagCallState(State):
    """Parameters of an XML-style call (the name was read by the opener), up to ``call_close``."""

    __slots__ = ("syn", "value", "close", "nparams")

    def __init__(self, syn: TagSyntax) -> None:
        self.syn = syn
        self.value: ValueWriter | None = None
        self.close = ""
        self.nparams = 0

    def arm(self, eng: Engine) -> tuple[re.Pattern[str], bool] | None:
        value = self.value
        if value is None or not value.stream or value.trim or value.first or value.held_nl:
            return None
        return _PLAIN_VALUE, True

    def fast(self, eng: Engine, text: str) -> list[Event] | None:
        value = self.value
        if value is None or not value.stream or value.trim:
            return None
        if value.first or value.held_nl or text[-1] == "\n":
            return None
        if self.syn.value_table(self.close).markers.raw_search(text) is not None:
            return None
        escaped = encode_basestring(text)[1:-1] if _NEEDS_ESCAPE.search(text) else text
        return eng.fast_args(text, escaped)

    def step(self, eng: Engine, final: bool) -> bool:
        syn = self.syn
        buf = eng.buf
        pos = eng.pos
        if self.value is not None:
            found = syn.value_table(self.close).markers.search(buf, pos)
            if found is None or found[2] is None:
                end = len(buf) if found is None else found[0]
                if final:
                    end = len(buf)
                self.value.write(buf[pos:end])
                eng.pos = end
                return False
            s, e, tok = found
            self.value.write(buf[pos:s])
            self.value.finish()
            self.value = None
            eng.pos = e if tok == self.close else s
            return True
        found = syn.body_table().markers.search(buf, pos)
        if found is None or found[2] is None:
            end = len(buf) if found is None else found[0]
            self._junk(eng, buf[pos:end])
            eng.pos = end
            return False
        s, e, tok = found
        self._junk(eng, buf[pos:s])
        if tok in syn.markup:
            eng.pos = e
            return True
        if tok == syn.call_close:
            eng.args("}" if self.nparams else "{}")
            eng.end_call(e)
            eng.pos = e
            eng.pop()
            return True
        m = read_header(buf, e, syn.header_end, syn.param_header, final)
        if m is None:
            eng.pos = s
            return False
        if not m:
            call = eng.call
            if call is not None and call.reject is None:
                call.reject, call.detail = Reason.MALFORMED, "unreadable parameter tag"
            eng.pos = e
            return True
        key = m.group("key").strip()
        raw_json = None
        if "string" in m.re.groupindex and m.group("string") is not None:
            raw_json = m.group("string").lower() != "true"
        self.close = syn.param_close or f"</{key}>"
        self.value = ValueWriter(eng, key, self.nparams == 0, raw_json, syn.trim)
        self.nparams += 1
        eng.pos = m.end()
        return True

    @staticmethod
    def _junk(eng: Engine, text: str) -> None:
        if text and not text.isspace():
            call = eng.call
            if call is not None and call.reject is None:
                # Only the first character: a longer excerpt would depend on the chunking (invariant 1).
                call.reject, call.detail = Reason.MALFORMED, f"unexpected text in the call at {text.lstrip()[:1]!r}"


# -- sections holding several calls -----------------------------------------------------------------


class BlockState(State):
    """Between the calls of a section: whitespace is markup; the closer ends the section; anything else
    ends the section implicitly (section closers are optional, R9) and is scanned again as text."""

    __slots__ = ("table",)

    def __init__(self, table: MarkerTable) -> None:
        self.table = table

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        j = skip_ws(buf, pos)
        if j >= len(buf):
            if final or j - pos >= LOOKAHEAD:
                eng.pop()
                return True
            return False
        found = self.table.markers.match(buf, j)
        if found is None:
            eng.pop()
            return True
        s, e, tok = found
        if tok is None or (not final and e == len(buf) and tok in self.table.markers.extendable):
            if final:
                eng.pop()
                return True
            return False
        eng.pos = j
        for handler in self.table.lookup(tok):
            res = handler(eng, s, e, final)
            if res is None:
                if final:
                    continue
                return False
            if res:
                return True
        eng.pop()
        return True


def close_block(eng: Engine, s: int, e: int, final: bool) -> bool:
    """Handler for a section closer inside its block."""
    eng.pos = e
    eng.pop()
    return True
