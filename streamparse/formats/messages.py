"""The compiler of :class:`~streamparse.formats.declaration_recipient.Messages`: message headers read.

A header (``open`` ... ``body``) is markup. What follows it depends on what the header says: reasoning
(a channel or recipient among ``reasoning_words``), pushed as a reasoning scope that ends at one of the
declared ``ends`` where a new header or the end of the output follows, or at the next header; visible
text (no recipient, or one among ``text_words``); or a call message: with a recipient-named call
(:class:`RecipientName`) the recipient is the call's name and the body its JSON arguments, otherwise the
body is read as text and the calls in it by their own markers. A header is looked for only within the
look-ahead after its opener, so the cost per chunk stays independent of the stream's length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, Literal, TypeAlias

from ..core.engine import Engine, Handler, MarkerTable, ScanState
from ..core.lookahead import LOOKAHEAD, after_ws, starts_or_prefix
from ..rejections import Reason
from ..states.json_body import JsonArgsState
from ..states.text import CONTROL_TOKENS, drop, pop_scope
from .base import Wiring
from .declaration import Declaration, Messages, RecipientName
from .openers import Decision

__all__ = ["wire_messages", "Header", "header_reader"]

_WORD: Final = r"[^\s<>]{1,200}"
_NAME: Final = r"[A-Za-z_][\w.\-]{0,199}"  # a recipient written alone (`>>>NAME`): a name, as tools are named
Kind = Literal["reasoning", "text", "call"]


class Header:
    """A header read: where its body begins, its recipient and what the message is."""

    __slots__ = ("body", "recipient", "kind")

    def __init__(self, body: int, recipient: str | None, kind: Kind) -> None:
        self.body = body
        self.recipient = recipient
        self.kind = kind


def _patterns(m: Messages) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    to = re.compile(r"(?:^|(?<=[\s>]))" + re.escape(m.recipient) + "(" + _WORD + ")") if m.recipient else None
    channel = re.compile(re.escape(m.channel) + r"[ \t]*(" + _WORD + ")") if m.channel else None
    return to, channel


Read: TypeAlias = Header | Literal[False] | None


def header_reader(m: Messages) -> Callable[[str, int, bool], Read]:
    """``read(buf, i, final)``: the header from ``i`` up to ``body`` (a :class:`Header`), False (none
    there), or None (undecided: more input may complete it)."""
    to, channel = _patterns(m)
    whole = re.compile(_NAME)  # a header that is only its recipient names it: it starts as a name does
    limit = 2 * LOOKAHEAD
    forbidden = (m.open, *m.ends)

    def _may_be_header(seen: str) -> bool:
        """The text after an opener can still become a header (prose is released without waiting)."""
        if to is None:
            return not seen or whole.fullmatch(seen) is not None
        return "\n" not in seen and not any(f in seen for f in forbidden)

    def read(buf: str, i: int, final: bool) -> Read:
        idx = buf.find(m.body, i, i + limit + len(m.body))
        if idx < 0:
            if len(buf) >= i + limit or final or not _may_be_header(buf[i:]):
                return False
            return None
        header = buf[i:idx]
        if (m.body != "\n" and "\n" in header) or any(f in header for f in forbidden):
            return False
        recipient: str | None
        if to is None:
            if whole.fullmatch(header) is None:
                return False
            recipient = header
        else:
            found = to.search(header)
            recipient = found.group(1) if found else None
        word = channel.search(header) if channel is not None else None
        kind: Kind = "call"
        if recipient in m.reasoning_words or (word is not None and word.group(1) in m.reasoning_words):
            kind = "reasoning"
        elif recipient is None or recipient in m.text_words:
            kind = "text"
        return Header(idx + len(m.body), recipient, kind)

    return read


def _reasoning_table(decl: Declaration, m: Messages, leave: Handler) -> MarkerTable:
    """The scope of a reasoning message: it ends at one of ``ends`` where a header or the end of the
    output follows (a body that mentions them keeps them), or where a new header begins."""

    def end_message(eng: Engine, s: int, e: int, final: bool) -> bool | None:
        buf = eng.buf
        j = after_ws(buf, e, final)
        if j is None:
            return None
        if j is not False:
            found = [starts_or_prefix(buf, j, o) for o in m.openers()]
            if not any(found):
                return None if None in found and not final else False
        return pop_scope(eng, s, e, final)

    handlers: dict[str, list[Handler]] = {t: [drop] for t in (*CONTROL_TOKENS, *decl.control_tokens)}
    for t in m.ends:
        handlers[t] = [end_message]
    for t in m.openers():
        handlers[t] = [leave]
    return MarkerTable(handlers)


def wire_messages(w: Wiring, decl: Declaration) -> None:
    """The header openers (and, primed, the start of the output) of ``decl.messages``."""
    m = decl.messages
    assert m is not None
    fmt = decl.name
    call = decl.call
    named = call.name if isinstance(call.name, RecipientName) else None
    read = header_reader(m)
    to, _ = _patterns(m)
    closers = (*((call.close,) if call.close else ()), *(t for t in m.ends if t != call.close))
    table: list[MarkerTable] = []

    def leave(eng: Engine, s: int, e: int, final: bool) -> bool | None:
        """A new header inside reasoning, without an end marker: reasoning is over (only when a whole
        header follows: reasoning may mention the opener)."""
        h = read(eng.buf, s if eng.buf[s:e] in m.also_open else e, final)
        if h is None or h is False:
            return h
        eng.pos = s
        eng.pop()
        return True

    def open_message(eng: Engine, s: int, h: Header, final: bool, strict: bool) -> Decision:
        buf = eng.buf
        if h.kind == "reasoning":
            if not table:
                table.append(_reasoning_table(decl, m, leave))
            eng.pos = h.body
            eng.begin_reasoning_segment()
            eng.push(ScanState(table[0], reasoning=True))
            return True
        if h.kind == "text" or named is None:
            eng.pos = h.body  # the header is markup; a call message's calls are read by their own markers
            return True
        j = after_ws(buf, h.body, final)
        if j is None:
            return None  # the arguments' first character decides (whitespace is part of the call)
        if strict and (j is False or buf[j] != "{"):
            return False  # at the start of the output (no opener written): a call only with JSON arguments
        assert h.recipient is not None
        recipient = h.recipient
        cand = eng.begin_call(fmt, s)
        if named.prefix and not recipient.startswith(named.prefix):
            tools = eng.cfg.tools
            if tools is None or recipient not in tools:  # a built-in tool (harmony's `browser.search`)
                cand.name = recipient
                cand.reject, cand.detail = Reason.UNKNOWN_TOOL, f"built-in recipient {recipient!r} is not declared"
            else:
                eng.set_name(recipient)
        else:
            eng.set_name(recipient[len(named.prefix) :])
        if j is False:  # the stream ended before the body: truncated (an unknown tool stays unknown_tool)
            eng.pos = len(buf)
            eng.truncate_call()
            return True
        eng.pos = j
        eng.push(JsonArgsState(eng, closers, optional_close=True, stops=m.openers()))
        return True

    def cut(eng: Engine, s: int, i: int, final: bool) -> Decision:
        """The output ended inside a header that names a recipient: a truncated call, never text."""
        rest = eng.buf[i:]
        if not final or named is None or "\n" in rest or m.open in rest or any(f in rest for f in m.ends):
            return False
        recipient = to.search(rest) if to is not None else None
        if recipient is None or recipient.group(1) in m.text_words or recipient.group(1) in m.reasoning_words:
            return False
        cand = eng.begin_call(fmt, s)
        name = recipient.group(1)
        cand.name = name[len(named.prefix) :] if name.startswith(named.prefix) else name
        eng.fail_call(Reason.TRUNCATED, "the stream ended inside the call's header", len(eng.buf))
        eng.pos = len(eng.buf)
        return True

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        i = s if eng.buf[s:e] in m.also_open else e  # an also_open marker is part of the header
        h = read(eng.buf, i, final)
        if h is False:
            return cut(eng, s, i, final)
        if h is None:
            return None
        return open_message(eng, s, h, final, strict=False)

    def first(eng: Engine, s: int, e: int, final: bool) -> Decision:
        """The prompt wrote the opener: the output begins inside the first header."""
        if eng.next_index or eng.reasoning_seen:
            return False
        if any(eng.buf.startswith(o, s) for o in m.openers()):
            return False  # the text scope reads a written opener
        if m.recipient:  # the rest of the first header starts with its recipient, channel or body marker
            starts = [starts_or_prefix(eng.buf, s, w) for w in (m.recipient, m.channel, m.body) if w]
            if not any(starts):
                return None if None in starts and not final else False
        h = read(eng.buf, s, final)
        if h is False:
            return cut(eng, s, s, final) if m.recipient else False
        if h is None:
            return None
        words = eng.buf[s : h.body - len(m.body)].strip()
        if m.recipient and h.recipient is None and words and not (m.channel and m.channel in words):
            return False  # bare words before the body marker: prose, not a header
        return open_message(eng, s, h, final, strict=True)

    for marker in m.openers():
        w.on(marker, handler)
    if m.primed:
        w.start.append(first)
    w.dropped.extend(t for t in m.ends if t not in w.dropped)
