"""The envelope format: ``{"content": ..., "toolCalls": [...], "needsMoreWork": ...}``.

``content`` streams as visible text, the calls in ``toolCalls`` stream as calls, ``needsMoreWork`` goes to
``StreamParser.metadata``.
"""

from __future__ import annotations

import json
import re
from typing import Final

from ..core.engine import Engine, State
from ..core.fastpaths import Search
from ..core.json_reader import DONE, DQ_RUN, DQ_SPECIAL, ERROR, STRING, JsonReader
from ..rejections import Reason
from ..states.call_fields import CallExtractor
from .shape import INVALID, load_json

_ESCAPE: Final = re.compile(r"\\(?:u[0-9a-fA-F]{0,4}|.|\Z)", re.S)


_ROLES: Final = {"toolCalls": "calls", "content": "content", "needsMoreWork": "more"}
_NOT_PLAIN: Final = DQ_SPECIAL.search  # what content text cannot hold as it is: an escape, its end, a raw control


def _safe_cut(s: str) -> int:
    """Length of the prefix of JSON string content that decodes on its own (no escape or surrogate pair
    cut in two), so streamed pieces decode to the same text whatever the chunking."""
    cut = len(s)
    if "\\" not in s:
        return cut  # no escape to keep whole
    last = prev = None
    for m in _ESCAPE.finditer(s):  # from the start: escapes must be paired up left to right
        prev, last = last, m
    if last is None or last.end() != cut:
        return cut
    tok = last.group()
    if len(tok) < 2 or (tok[1] == "u" and len(tok) < 6):  # a partial escape
        cut = last.start()
        last = prev
    if last is not None and last.end() == cut and _high_surrogate(last.group()):
        cut = last.start()  # wait for its pair
    return cut


def _high_surrogate(tok: str) -> bool:
    return len(tok) == 6 and tok[1] == "u" and 0xD800 <= int(tok[2:], 16) <= 0xDBFF


def _decode(content: str) -> str:
    if "\\" not in content:
        return content  # (the reader's string content: control characters and quotes come escaped)
    try:
        text = json.loads('"' + content + '"')
    except ValueError:
        return content
    return text if isinstance(text, str) else content


class _EnvelopeSink:
    """Routes an envelope's members: ``toolCalls`` to a call extractor, ``content`` to visible text,
    ``needsMoreWork`` to ``eng.metadata``."""

    __slots__ = ("eng", "reader", "ext", "role", "calls", "in_content", "first", "pending")

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.reader = JsonReader(self, watch=4)
        self.ext = CallExtractor(eng, "envelope", 2, each=True, reader=self.reader)
        self.role: str | None = None
        self.calls = False
        self.in_content = False
        self.first = True
        self.pending = ""

    def key(self, depth: int, key: str) -> None:
        if depth == 1:
            self.role = _ROLES.get(key)
        elif self.calls:
            self.ext.key(depth, key)

    def value_start(self, depth: int, kind: str, pos: int) -> None:
        if depth == 1:
            self.reader.drain()
            if self.role == "content" and kind == '"':
                self.in_content, self.first, self.pending = True, True, ""
            self.calls = self.role == "calls" and kind == "["
        elif depth >= 2 and self.calls:
            self.ext.value_start(depth, kind, pos)

    def value_end(self, depth: int, pos: int) -> None:
        if depth == 1:
            if self.in_content:
                self.content(self.reader.drain(), True)
                self.in_content = False
            elif self.role == "more":
                value = load_json(self.reader.drain())
                if value is not INVALID:
                    self.eng.metadata["needsMoreWork"] = value
            self.role = None
            self.calls = False
        elif depth >= 2 and self.calls:
            self.ext.value_end(depth, pos)

    def content(self, piece: str, last: bool) -> None:
        s = self.pending + piece
        if self.first and s:
            s = s[1:]  # the opening quote
            self.first = False
        if last:
            s = s[:-1] if s.endswith('"') else s
            self.pending = ""
        else:
            cut = _safe_cut(s)
            s, self.pending = s[:cut], s[cut:]
        if s:
            self.eng.text(_decode(s))


class EnvelopeState(State):
    """``{"toolCalls": [...], "content": TEXT, "needsMoreWork": BOOL}`` in any key order."""

    __slots__ = ("sink",)

    def __init__(self, eng: Engine) -> None:
        self.sink = _EnvelopeSink(eng)

    def arm(self, eng: Engine) -> tuple[re.Pattern[str], bool] | None:
        """Inside a call's argument string: the engine's armed path streams plain chunks of it (as
        JsonCallState.arm), instead of a reader step and two callbacks a chunk."""
        sink = self.sink
        reader = sink.reader
        if reader.state != STRING or reader.is_key or reader.out or reader.quote != '"':
            return None
        ext = sink.ext
        return (DQ_RUN, False) if ext.args_depth >= 0 and ext.args_kind == "{" else None

    def plain_text(self, eng: Engine) -> Search | None:
        """Inside ``content``, past its opening quote with nothing pending: a chunk without a backslash,
        quote or raw control character is that much visible text as it is (what ``_EnvelopeSink.content``
        would release for it), and leaves the reader where it is."""
        sink = self.sink
        reader = sink.reader
        if not sink.in_content or sink.first or sink.pending or reader.out:
            return None
        if reader.state != STRING or reader.is_key or reader.quote != '"':
            return None
        return _NOT_PLAIN

    def step(self, eng: Engine, final: bool) -> bool:
        sink = self.sink
        reader = sink.reader
        eng.pos = reader.feed(eng.buf, eng.pos, final)
        ext = sink.ext
        if ext.args_depth >= 0 and ext.args_kind == "{":  # (ext.streaming, inlined: once per chunk)
            eng.args(reader.drain())
        elif sink.in_content:
            sink.content(reader.drain(), False)
        state = reader.state
        if state < DONE:  # (neither done nor failed: the common case, without the properties)
            return False
        if state == ERROR and eng.call is not None:
            eng.fail_call(Reason.MALFORMED, f"invalid JSON: {reader.error}", eng.pos)
        eng.pop()
        return True
