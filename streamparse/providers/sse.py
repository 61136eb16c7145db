"""A push decoder for Server-Sent Events (WHATWG HTML, "event stream interpretation").

Written here rather than imported: httpx-sse (an optional dependency) keeps its line and event decoders
in a private module (``httpx_sse._decoders``), dispatches events whose data buffer is empty (the spec
says not to), and does not strip the leading BOM. The spec's algorithm is small, so this module is the
whole of it: bytes or str pieces split anywhere in, :class:`SSEEvent` out, no I/O.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

_BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event. ``event`` defaults to ``"message"``; ``id`` is the last event id seen.
    With ``SSEDecoder(comments=True)`` a comment line (``: ping``) is an event ``""`` whose data is the
    comment's text."""

    event: str
    data: str
    id: str = ""
    retry: int | None = None


class SSELimitError(ValueError):
    """A line or an event's data grew past the decoder's ``max_chars``."""


class SSEDecoder:
    """Incremental SSE decoder: ``feed(piece) -> list[SSEEvent]``, ``close() -> list[SSEEvent]``.

    Bytes are decoded incrementally as UTF-8 (a multi-byte character may be split across pieces;
    invalid bytes become U+FFFD as the spec asks). Lines end at CR, LF or CRLF; a CR that ends a piece
    ends the line at once and a LF that starts the next piece is then skipped, so a split CRLF neither
    delays an event nor yields an extra blank line.

    ``max_chars`` bounds one line and one event's data (:class:`SSELimitError` past it), so a peer that
    never ends a line cannot grow memory without limit; ``comments=True`` reports comment lines (keep-alive
    pings a proxy forwards) as events named ``""``.
    """

    def __init__(self, *, max_chars: int | None = None, comments: bool = False) -> None:
        self.max_chars = max_chars
        self.comments = comments
        self._line_len = 0
        self._data_len = 0
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._line: list[str] = []  # the current line's text, not yet terminated
        self._after_cr = False  # the last character seen was a CR: a following LF belongs to it
        self._started = False  # the first character (a possible BOM) has been seen
        self._event = ""
        self._data: list[str] = []
        self._retry: int | None = None
        self.last_event_id = ""

    def feed(self, piece: bytes | bytearray | str) -> list[SSEEvent]:
        text = self._utf8.decode(piece) if isinstance(piece, bytes | bytearray) else piece
        if not text:
            return []
        if not self._started:
            self._started = True
            if text.startswith(_BOM):
                text = text[1:]
        if self._after_cr and text.startswith("\n"):
            text = text[1:]
        self._after_cr = False
        out: list[SSEEvent] = []
        start = 0
        n = len(text)
        cr = text.find("\r")  # the next CR at or after start (n: none); found once, not once per line
        if cr < 0:
            cr = n
        while start < n:
            if cr < start:
                cr = text.find("\r", start)
                if cr < 0:
                    cr = n
            lf = text.find("\n", start, cr)  # only a LF before the next CR ends this line first
            if lf < 0 and cr == n:
                self._line.append(text[start:])
                self._line_len += n - start
                if self.max_chars is not None and self._line_len > self.max_chars:
                    raise SSELimitError(f"an SSE line grew past {self.max_chars} characters")
                break
            if lf >= 0:
                end, nxt = lf, lf + 1
            elif cr + 1 < n:
                end, nxt = cr, cr + 2 if text[cr + 1] == "\n" else cr + 1
            else:  # CR at the end of the piece: end the line now, swallow a LF that may come next
                end, nxt = cr, cr + 1
                self._after_cr = True
            self._line.append(text[start:end])
            line = "".join(self._line)
            self._line = []
            self._line_len = 0
            if self.max_chars is not None and len(line) > self.max_chars:
                raise SSELimitError(f"an SSE line grew past {self.max_chars} characters")
            ev = self._process_line(line)
            if ev is not None:
                out.append(ev)
            start = nxt
        return out

    def close(self, *, dispatch_incomplete: bool = False) -> list[SSEEvent]:
        """End of stream. The spec discards an event not terminated by a blank line; with
        ``dispatch_incomplete`` it is dispatched instead (lenient: some servers omit the final blank
        line, and a provider reader would rather not drop the model's last words)."""
        tail = self._utf8.decode(b"", final=True)
        out = self.feed(tail) if tail else []
        if dispatch_incomplete:
            if self._line:
                ev = self._process_line("".join(self._line))
                if ev is not None:
                    out.append(ev)
            ev = self._process_line("")
            if ev is not None:
                out.append(ev)
        self._line = []
        self._line_len = self._data_len = 0
        self._event, self._data, self._retry = "", [], None
        return out

    def _process_line(self, line: str) -> SSEEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):  # comment (keep-alive)
            return SSEEvent("", line[1:].lstrip(" ")) if self.comments else None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_len += len(value) + 1
            if self.max_chars is not None and self._data_len > self.max_chars:
                raise SSELimitError(f"an SSE event's data grew past {self.max_chars} characters")
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> SSEEvent | None:
        if not self._data:
            self._event, self._retry = "", None
            self._data_len = 0
            return None
        ev = SSEEvent(self._event or "message", "\n".join(self._data), self.last_event_id, self._retry)
        self._event, self._data, self._retry = "", [], None
        self._data_len = 0
        return ev


def encode_sse(data: str, *, event: str | None = None, id: str | None = None) -> bytes:
    """Frame one event (multi-line data becomes several ``data:`` lines)."""
    parts: list[str] = []
    if event is not None:
        parts.append(f"event: {event}\n")
    if id is not None:
        parts.append(f"id: {id}\n")
    for line in data.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        parts.append(f"data: {line}\n")
    parts.append("\n")
    return "".join(parts).encode("utf-8")
