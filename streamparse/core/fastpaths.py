"""The engine's fast paths: chunks taken without the states when they cannot change the state.

- Visible text (inlined in ``Engine.feed``): a chunk with no marker and no marker prefix is one TextDelta.
  A chunk whose only marker-like text is a prefix of a marker at its very end (``t``, a possible start of
  ``to=functions.`` with every format on) releases the text before it and holds the prefix, and the next
  chunk is scanned together with the prefix: what the scanning state would do, without its machinery.
- Armed (the commonest chunk inlined in ``Engine.feed``): after a slow step with an open call, the state
  may arm a pattern (``State.arm``). A chunk that fully matches it is plain content of the argument string
  streaming: argument text at once, verbatim or JSON-escaped, and the call's markup refers to that text
  instead of keeping a copy (``RawText.share``). A chunk that matches but for a final lone backslash (a JSON
  escape split across chunks: a few percent of tokens in code) stays here too: the text before it streams,
  the backslash alone is held at ``buf[pos]`` while it is undecided and goes with the next chunk.

- Limited (``_feed_limited``, not fast): with ``max_call_chars`` a chunk that could take a call past the
  limit is fed in pieces.

- Waiting (``wait_for``): while a state holds a marker's prefix (or a handler the prefix of the tag that must
  follow its header) and only more of it can decide, a chunk that keeps it a proper prefix is only kept.

Also the buffer's upkeep after the states ran (``_trim``). Mixed into :class:`~streamparse.core.engine.Engine`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json.encoder import encode_basestring  # the C string escaper json.dumps uses
from typing import Any, Final, Protocol

from ..events import Event
from .calls import CallLifecycle
from .constructors import tool_call_delta
from .json_reader import DQ_RUN, DQ_SPECIAL
from .json_reader import NEEDS_ESCAPE as _NEEDS_ESCAPE
from .scanner import MarkerSet

CTX: Final = 8  # characters of already-consumed context kept before ``pos`` (line-start and word checks)


def _names_marker(markers: MarkerSet, tail: str) -> bool:
    """``tail`` begins with a whole marker of ``markers`` (a namespaced one: ``<ns:name>``)."""
    found = markers.search(tail, 0)
    return found is not None and found[2] is not None


class Search(Protocol):
    """A marker set's search (``re.Pattern.search``): from ``pos``, look-behinds see the text before it."""

    def __call__(self, string: str, pos: int = 0, /) -> re.Match[str] | None: ...


class FastPaths(CallLifecycle):
    """Part of the engine: the armed path's state and its slow half (the commonest chunk is inlined in
    ``feed``), the wait for a marker arriving in pieces, and the buffer's upkeep."""

    limit: int | None
    largest_hold: int
    hot: re.Pattern[str] | None
    hot_escape: bool
    hot_bs: bool
    hot_special: Callable[[str], object] | None
    wait: tuple[str | MarkerSet | re.Pattern[str], int] | None
    state: Any  # (core.engine.State)
    text_search: Search | None
    held_scan: Search | None
    scan_text: Search | None

    def _run(self, final: bool) -> None:
        raise NotImplementedError

    def _trim(self) -> None:
        """Drop consumed text, keeping CTX characters of context; move an open call's raw text aside."""
        pos = self.pos
        call = self.call
        if call is not None and not call.closed:
            if pos > call.raw_mark:
                piece = self.buf[call.raw_mark : pos]
                loose = call.loose
                if not loose or not (len(piece) >= 32 or call.raw_parts.spans) or not call.share_loose(piece):
                    call.raw_parts.append(piece)
                call.raw_len += len(piece)
                call.raw_mark = pos  # (the buffer is not cut below when pos <= CTX)
            if call.loose:
                call.loose.clear()
            limit = self.limit
            if limit is not None and call.raw_len > limit:
                self.reject_too_large()
        if pos > CTX:
            self.buf = self.buf[pos - CTX :]
            self.pos = CTX
            if call is not None:
                call.raw_mark = CTX
        held = len(self.buf) - self.pos
        if held > self.largest_hold:
            self.largest_hold = held
            self.stats.largest_holdback = held

    def note_hold(self, n: int) -> None:
        if n > self.largest_hold:
            self.largest_hold = n
            self.stats.largest_holdback = n

    def _fits(self, text: str) -> bool:
        """True when ``text`` cannot take the open call (or one beginning in it) past ``max_call_chars``."""
        limit = self.cfg.max_call_chars
        assert limit is not None
        call = self.call
        if call is not None and not call.closed:
            return bool(call.raw_len + (len(self.buf) - call.raw_mark) + len(text) <= limit)
        return bool((len(self.buf) - self.pos) + len(text) <= limit)

    def _feed_limited(self, text: str, limit: int) -> list[Event]:
        """Feed in pieces so that an open call sees exactly ``limit`` characters of its markup, then is
        rejected too_large the moment more input arrives: the verdict, its raw text and the deltas before
        it do not depend on the chunking, and nothing past the limit is buffered (docs/FORMATS.md, docs/API.md)."""
        self.events = []
        self.hot_bs = False
        i, n = 0, len(text)
        while i < n:
            call = self.call
            if call is not None and not call.closed:
                room = limit - call.raw_len - (len(self.buf) - call.raw_mark)
                if room <= 0:
                    self.reject_too_large()
                    continue
            else:
                # A call beginning in this piece starts at or after ``pos``: it sees at most ``limit`` chars.
                room = max(1, limit - (len(self.buf) - self.pos))
            self.buf += text[i : i + room]
            i += room
            self._run(False)
            self._trim()
        return self.events

    def output_began(self) -> None:
        """The first visible text: markers that count only before it leave the armed search (the text
        scope's ``late_search``)."""
        self.seen_output = True
        late = getattr(self.state, "late_search", None)
        if late is not None:
            if self.text_search is not None:
                self.text_search = late
            if self.scan_text is not None:
                self.scan_text = late

    def _text_end(self, chunk: str, start: int) -> list[Event] | None:
        """``chunk``, searched alone, ends in something marker-like from ``start`` on: searched again from
        there with the text before it (a word marker counts only at a word start; alone, the chunk's first
        character looks like one). Only the marker-like end is searched again, so a long chunk costs one
        search, and it is copied only when the context before it may decide."""
        search = self.text_search
        assert search is not None
        if start <= CTX:
            buf = self.buf
            joined, pos = buf + chunk, len(buf)
        else:
            joined, pos = chunk, 0  # (the chunk's own characters before ``start`` are the context)
        m = search(joined, pos + start)
        if m is None:
            self.buf = joined[-CTX:]
            self.pos = len(self.buf)
            return self.release_text(chunk)
        if m.end() == len(joined):
            return self._text_tail(joined, pos, m.start())
        return None

    def _text_tail(self, joined: str, pos: int, start: int) -> list[Event] | None:
        """``joined`` is the kept context (and a held prefix) plus the new chunk, whose text from ``pos`` on
        is not released yet, and ``joined[start:]`` at its end is marker-like: when it is only a prefix of
        a marker, release the text before it and hold it (``held_scan``); None when it is a marker (or a
        held prefix grew into one): the states decide."""
        tail = joined[start:]
        markers: MarkerSet = self.state.table.markers  # (the text paths are open in a ScanState only)
        if tail in markers.markers or (tail[0] == "<" and markers.ns_suffixes and _names_marker(markers, tail)):
            return None  # a complete marker (a namespaced one starts with "<")
        held = len(joined) - start
        self.buf = buf = joined[-(CTX + held) :]
        self.pos = len(buf) - held
        if held > self.largest_hold:
            self.note_hold(held)
        if self.text_search is not None:  # (else the prefix held before grew into this one)
            self.held_scan = self.text_search
            self.text_search = None
        if start == pos:
            return []
        return self.release_text(joined[pos:start])

    def _text_after_hold(self, chunk: str) -> list[Event] | None:
        """The chunk after a held marker prefix, scanned with it (None: the states decide)."""
        scan = self.held_scan
        assert scan is not None
        pos = self.pos
        joined = self.buf + chunk
        m = scan(joined, pos)
        if m is None:
            self.buf = joined[-CTX:]
            self.pos = len(self.buf)
            self.held_scan = None
            self.text_search = scan
            return self.release_text(joined[pos:])
        if m.end() == len(joined):
            return self._text_tail(joined, pos, m.start())
        return None

    def wait_for(self, marker: str | MarkerSet | re.Pattern[str], start: int) -> None:
        """A state holds ``buf[start:]``, a proper prefix of ``marker`` (or of a marker of the set ``marker``
        that the state's next step would search for there), and only more of it can change its answer (a
        marker arriving in pieces): until the held text is a whole marker or stops being a prefix of one,
        chunks are only kept (``_still_waiting``), as the state's step would keep them. A pattern: the held
        text stays undecided while the pattern matches all of it (a header whose end has not come yet)."""
        if self.limit is None:
            self.wait = (marker, start - self.pos)

    def _still_waiting(self, text: str) -> bool:
        """``text`` keeps the held text a proper prefix of the awaited marker: kept, nothing else changes."""
        marker, offset = self.wait  # type: ignore[misc]
        buf = self.buf + text
        start = self.pos + offset
        if type(marker) is str:
            if len(buf) - start >= len(marker) or not buf.startswith(marker[: len(buf) - start], start):
                return False
        elif type(marker) is MarkerSet:  # a set's marker: a whole one, or text that is none, goes to the state
            prefixes = marker.prefixes
            if prefixes is not None:
                if buf[start:] not in prefixes:
                    return False
            else:
                found = marker.match(buf, start)
                if found is None or found[2] is not None or found[1] != len(buf):
                    return False
        elif marker.fullmatch(buf, start) is None:  # type: ignore[union-attr]  # (a pattern of undecided text)
            return False
        self.buf = buf
        if len(buf) - self.pos > self.largest_hold:
            self.note_hold(len(buf) - self.pos)
        return True

    def _hot(self, hot: re.Pattern[str], text: str, limit: int | None) -> list[Event] | None:
        """The armed path: an open call streams an argument string and ``text`` is plain content of it
        (a full match of ``hot``), or is, but for a final lone backslash: that escape is undecided, so the
        backslash alone is held (at ``buf[pos]``) and goes with the next chunk."""
        call = self.call
        held = self.hot_bs
        if call is None or (not held and self.pos != len(self.buf)):
            return None
        if held:
            text = "\\" + text
        keep = False
        if hot.fullmatch(text) is None:
            if hot is not DQ_RUN or text[-1] != "\\" or hot.fullmatch(text, 0, len(text) - 1) is None:
                return None
            keep = True
        n = len(text) - keep
        if limit is not None and call.raw_len + n > limit:
            return None
        args = text[:-1] if keep else text
        raw = call.raw_parts  # the markup is this argument text (verbatim or escaped): kept once
        if not self.hot_escape:
            if raw.run < 0 or raw.run_escaped:
                raw.share()
        else:  # (text that needs no escaping is its own escape)
            if _NEEDS_ESCAPE.search(args) is not None:
                args = encode_basestring(args)[1:-1]
            if raw.run < 0 or not raw.run_escaped:
                raw.share(True)
        call.args.append(args)
        call.raw_len += n
        # The chunk is consumed; the buffer (context for line-start and word-boundary checks) is left as
        # is: nothing looks behind into a string value.
        if keep:
            if not held:
                self.buf += "\\"
                if self.largest_hold < 1:
                    self.note_hold(1)
            self.hot_bs = True
            self.hot_special = None
        elif held:
            self.buf = self.buf[: self.pos]
            self.hot_bs = False
            self._arm_inline()
        if not args:
            return []
        return [tool_call_delta(call.index, args)]  # type: ignore[arg-type]

    def _arm_inline(self) -> None:
        """Open the inlined armed path in ``feed`` when the armed chunk needs nothing but appending."""
        hot = self.hot
        call = self.call
        if hot is not DQ_RUN or call is None or self.hot_bs or self.hot_escape or self.limit is not None:
            return
        if self.pos == len(self.buf) and call.raw_mark == self.pos:
            self.hot_special = DQ_SPECIAL.search  # (feed() opens the shared stretch at its first chunk)
