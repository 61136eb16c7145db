"""Call bodies that are read whole and parsed once when they close: Python-style calls (pythonic,
gemma_tool_code; Gemma 4's are in :mod:`streamparse.formats.gemma_call`).

A call's name is known as soon as ``NAME(`` is seen, so ToolCallStart is emitted then (a bare list after
prose: once its ``]`` ends its line); an incremental tracker (:mod:`streamparse.formats.pyliteral`) finds
where the call closes without re-reading its text, and the call is parsed once at that point and ended
right away (early dispatch: the rest of a list does not have to arrive first).

Python-style sections come in three forms: a bracketed list ``[f(a=1), g(b=2)]`` (Llama 4, LFM2, bare at
the output start), one call per line up to a closer (Olmo 3 ``<function_calls>``), and a ``tool_code``
fence (Gemma 3, ``print(...)`` and ``default_api.`` allowed).
"""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, State
from ..core.lookahead import LOOKAHEAD, after_ws, skip_ws, starts_or_prefix
from ..core.scanner import marker_set
from ..events import Event
from ..rejections import Reason
from .gemma_args import GemmaArgsTracker
from .pyliteral import PyCallTracker
from .pyraw import RawCallScanner, read_raw_call_json
from .pyrequote import read_call_json

# ``NAME(``: a (dotted) Python name, then the opening parenthesis; gemma may wrap it in ``print(``.
CALL_HEAD: Final = re.compile(r"(?P<name>[^\W\d]\w*(?:[.-]\w+)*)[ \t]*\(")
PRINT_HEAD: Final = re.compile(r"(?:(?P<print>print[ \t]*\([ \t]*)(?=[^\W\d][\w.-]*[ \t]*\())?" + CALL_HEAD.pattern)
# What a head can look like before its ``(`` arrives (so holding for it is worth it): nothing yet, or a name's
# start (never a blank or a digit: a line of prose that begins so is text at once, not held for a word).
_MAYBE_HEAD: Final = re.compile(r"(?:print[ \t]*\([ \t]*)?(?:[^\W\d][\w.-]*[ \t]*)?")
# After gemma's ``print(``: what may still be the head of the call it wraps.
_MAYBE_WRAPPED: Final = re.compile(r"(?:print[ \t]*\([ \t]*)?[\w.-]*[ \t]*")
# A head (not gemma's) that only more input decides: what match_head answers None to (shorter than the
# look-ahead, no ``(`` yet), for FastPaths.wait_for: the engine keeps the chunks of a name arriving in pieces.
HEAD_UNDECIDED: Final = re.compile(rf"(?=[\s\S]{{0,{LOOKAHEAD - 1}}}\Z)(?:[^\W\d][\w.-]*[ \t]*)?")
GEMMA_PREFIX: Final = "default_api."

LIST: Final = "list"
LINES: Final = "lines"
FENCE: Final = "fence"
_HEAD: Final = 0
_BODY: Final = 1
_AFTER: Final = 2
_CLOSE: Final = 3
_RECOVER: Final = 4
_CLOSING_BRACKET: Final = re.compile(r"[)\]}]")


def feed_tracker(tracker: PyCallTracker | GemmaArgsTracker, buf: str, pos: int) -> tuple[int | None, bool]:
    """Feed ``buf[pos:]``; return (index just past the body's closer or None, broken).

    A tracker only breaks at a closing bracket, so the text is fed in pieces that end at closing brackets:
    a break is then known to end exactly at the end of its piece, whatever the chunking (chunking invariance).
    Every character is still fed once.
    """
    n = len(buf)
    i = pos
    while i < n:
        m = _CLOSING_BRACKET.search(buf, i)
        j = n if m is None else m.end()
        k = tracker.feed(buf[i:j])
        if k is not None:
            return i + k, False
        if tracker.broken:
            return j, True
        i = j
    return None, False


def match_head(buf: str, i: int, final: bool, gemma: bool = False) -> re.Match[str] | bool | None:
    """A call head at ``i``: the match, False when it cannot be one, None when more input must decide."""
    stop = min(len(buf), i + LOOKAHEAD)
    # (a head ends in ``(``: without one in the window, a line of prose skips the head's match)
    m = (PRINT_HEAD if gemma else CALL_HEAD).match(buf, i, stop) if buf.find("(", i, stop) >= 0 else None
    if m is not None:
        if gemma and m.group("print") is None and m.group("name") == "print" and not final:
            # ``print(`` may still turn out to wrap a call (``print(default_api.f(``): wait for its head.
            rest = buf[m.end() : i + LOOKAHEAD]
            if len(buf) - i < LOOKAHEAD and _MAYBE_WRAPPED.fullmatch(rest) and "(" not in rest:
                return None
        return m
    if final or len(buf) - i >= LOOKAHEAD:
        return False
    return None if _MAYBE_HEAD.fullmatch(buf, i) else False


def _ends_line(buf: str, i: int, final: bool) -> bool | None:
    """Only spaces or tabs, then a newline or the end of the output, from ``i`` (bounded)."""
    n = len(buf)
    stop = min(n, i + LOOKAHEAD)
    while i < stop and buf[i] in " \t\r":
        i += 1
    if i < n:
        return buf[i] == "\n"
    return True if final else (None if stop == n else False)


class PyCallsState(State):
    """The calls of one Python-style section, from just after its opener (``[`` for lists)."""

    __slots__ = (
        "fmt",
        "form",
        "closer",
        "gemma",
        "phase",
        "tracker",
        "parts",
        "printed",
        "held",
        "pending",
        "done",
        "committed",
        "line_end",
        "read",
        "raw",
        "scanner",
        "closers",
    )

    def __init__(
        self,
        fmt: str,
        form: str,
        closer: str | None,
        *,
        bare: bool = False,
        held: str = "",
        line_end: bool = False,
        raw_strings: bool = False,
    ) -> None:
        self.fmt = fmt
        # ``raw_strings``: argument strings are written as they are (a declared PythonName, strings="raw").
        self.read = read_raw_call_json if raw_strings else read_call_json
        self.raw = raw_strings
        self.scanner: RawCallScanner | None = None  # where a raw-strings call ends, read incrementally
        # (raw strings: the list's closer, found whole or held as a prefix by the shared scanner)
        self.closers = marker_set(frozenset((closer,))) if raw_strings and closer else None
        # ``line_end``: a list after prose is a call list only when it ends its line (prose is not a call).
        self.line_end = line_end
        self.form = form
        self.closer = closer
        # ``bare``: an unmarked list is text until the whole list is confirmed (start rule, prose is not a call).
        self.committed = not bare
        self.held: list[str] = [held] if held else []  # bare, not yet committed: consumed text
        # bare: the complete calls read so far (name, arguments JSON, raw markup up to their ``,`` or ``]``);
        # nothing is emitted before the list's end decides it is a call list (memory: the open list).
        self.pending: list[tuple[str, str, str]] = []
        self.done: tuple[str, str] | None = None  # bare: the call just closed, before its ``,`` or ``]``
        self.gemma = form == FENCE
        self.phase = _HEAD
        self.tracker: PyCallTracker | None = None
        self.parts: list[str] = []
        self.printed = False  # inside ``print(`` (gemma)

    # -- helpers ---------------------------------------------------------------------------------------

    def _consume(self, eng: Engine, end: int) -> None:
        if not self.committed:
            self.held.append(eng.buf[eng.pos : end])
        eng.pos = end

    def _decline(self, eng: Engine) -> bool:
        """A bare candidate that is not a call list after all: its text is plain text (start rule)."""
        eng.text("".join(raw for _, _, raw in self.pending) + "".join(self.held))
        self.pending, self.held, self.done = [], [], None
        eng.pop()
        return True

    def _settle(self, eng: Engine, end: int) -> None:
        """The bare list's current call is followed by ``,`` or ``]`` ending at ``end``: keep it pending
        with its raw markup (from ``[`` or the previous separator up to there)."""
        assert self.done is not None
        self._consume(eng, end)
        self.pending.append((*self.done, "".join(self.held)))
        self.held, self.done = [], None

    def _commit(self, eng: Engine) -> None:
        """The bare list is a call list: emit its calls now, each ending with the character that completed
        it (its raw markup runs from ``[`` or the previous separator to its ``,`` or ``]``)."""
        pending, self.pending = self.pending, []
        self.committed = True
        for name, args_json, raw in pending:
            cand = eng.begin_call(self.fmt, eng.pos)
            cand.raw_parts.append(raw)
            cand.raw_len += len(raw)
            eng.set_name(name)
            eng.args(args_json)
            eng.end_call(eng.pos)

    # -- the state ---------------------------------------------------------------------------------------

    def step(self, eng: Engine, final: bool) -> bool:
        phase = self.phase
        if phase == _HEAD:
            return self._head(eng, final)
        if phase == _BODY:
            return self._body(eng, final)
        if phase == _AFTER:
            return self._after(eng, final)
        if phase == _CLOSE:
            return self._close(eng, final)
        return self._recover(eng, final)

    def _head(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        j = skip_ws(buf, eng.pos)
        if j >= len(buf):
            if final or j - eng.pos >= LOOKAHEAD:
                return self._end_section(eng)
            return False
        if self.form == LIST and buf[j] == "]":  # ``[f(), ]``: a trailing comma
            if not self.committed:
                return self._bare_end(eng, j, final)
            self._consume(eng, j + 1)
            self.phase = _CLOSE
            return True
        if self.form != LIST and self.closer is not None:
            ok = starts_or_prefix(buf, j, self.closer)
            if ok is None and not final:
                eng.wait_for(self.closer, j)  # the closer arriving in pieces: kept until it is whole
                return False
            if ok:
                end = j + len(self.closer)
                if self.form == FENCE:
                    # The closing fence may be longer than three backticks: hold until the run ends
                    # (bounded, as in textscope), so every chunking closes the fence at the same place.
                    while end < len(buf) and buf[end] == "`" and end - j < 32:
                        end += 1
                    if end >= len(buf) and end - j < 32 and not final:
                        return False
                eng.pos = end
                eng.pop()
                return True
        m = match_head(buf, j, final, self.gemma)
        if m is None:
            if not self.gemma:  # (gemma's ``print(`` wrapper decides otherwise)
                eng.wait_for(HEAD_UNDECIDED, j)  # the next call's name arriving in pieces
            return False
        if m is False:
            return self._junk(eng, j)
        assert isinstance(m, re.Match)
        name_start = m.start("name")
        self.printed = self.gemma and m.group("print") is not None
        if not self.committed:
            self._consume(eng, name_start)
        else:
            eng.pos = name_start
            eng.begin_call(self.fmt, name_start)
            name = m.group("name")
            if self.gemma and name.startswith(GEMMA_PREFIX):
                name = name[len(GEMMA_PREFIX) :]
            eng.set_name(name)
        self.tracker = PyCallTracker("call")
        self.parts = []
        if self.raw:
            self.scanner = RawCallScanner()
        self.phase = _BODY
        return True

    def fast(self, eng: Engine, text: str) -> list[Event] | None:
        """A whole chunk inside a call's body (nothing held) with no closing bracket: the tracker closes or
        breaks only at one (a quote breaks it only before the call's ``(``, which it has read), so the chunk
        is only read into it and kept as the call's text and markup, as :meth:`_body` and the engine's
        ``_trim`` would, without running the states."""
        if self.phase != _BODY or self.raw or _CLOSING_BRACKET.search(text) is not None:
            return None
        tracker = self.tracker
        if tracker is None or not tracker.depth or eng.limit is not None:
            return None
        call = eng.call
        if call is not None and (call.closed or call.loose or call.pending):
            return None
        tracker.feed(text)
        self.parts.append(text)
        if not self.committed:
            self.held.append(text)
        if call is not None:
            call.raw_parts.append(text)
            call.raw_len += len(text)
        return []

    def _raw_end(self, eng: Engine, final: bool) -> tuple[int | None, bool]:
        """Raw strings (a declared PythonName): (where the call ends, broken), read by the call's
        :class:`~.pyraw.RawCallScanner` from where it stopped (never from the call's start again). The
        list's closer bounds the call: once it is in sight, the text before it is all there is, and a call
        not ended by then is broken there (a value does not hold the closer). A possible start of the
        closer at the end of the buffer (the shared scanner's held prefix) is not read yet, so the closer is
        always found whole in the buffer. None after consuming what was read."""
        buf, pos = eng.buf, eng.pos
        scanner = self.scanner
        assert scanner is not None
        stop = len(buf)
        if self.closers is not None:
            found = self.closers.search(buf, pos)
            if found is not None:
                at, _, whole = found
                if whole is not None:
                    end, _ = scanner.feed(buf[pos:at], True)
                    return (pos + end, False) if end is not None else (at, True)
                if not final:
                    stop = at
        end, read = scanner.feed(buf[pos:stop], final)
        if end is not None:
            return pos + end, False
        keep = pos + read
        self.parts.append(buf[pos:keep])
        self._consume(eng, keep)
        return None, False

    def _body(self, eng: Engine, final: bool) -> bool:
        tracker = self.tracker
        assert tracker is not None
        buf = eng.buf
        pos = eng.pos
        if self.raw:
            end, broken = self._raw_end(eng, final)
            if end is None:
                return False  # at the end of the stream the engine (or at_close) rejects it as truncated
        else:
            end, broken = feed_tracker(tracker, buf, pos)
        if broken:
            assert end is not None
            return self._bad_call(eng, "unbalanced brackets in the call", end, broken=True)
        if end is None:
            self.parts.append(buf[pos:])
            self._consume(eng, len(buf))
            return False  # at the end of the stream the engine (or at_close) rejects it as truncated
        self.parts.append(buf[pos:end])
        text = "".join(self.parts)
        self.parts = []
        self._consume(eng, end)
        self.phase = _AFTER
        try:
            name, args_json = self.read(text)
        except ValueError as exc:
            return self._bad_call(eng, f"not a call with literal keyword arguments: {exc}", end)
        if not self.committed:
            if self.gemma and name.startswith(GEMMA_PREFIX):
                name = name[len(GEMMA_PREFIX) :]
            self.done = (name, args_json)
            return True
        eng.args(args_json)
        eng.end_call(end)
        return True

    def _bad_call(self, eng: Engine, detail: str, end: int, broken: bool = False) -> bool:
        if not self.committed:  # ``[print(x) for x in y]``: prose, not a call list
            if end > eng.pos:
                self._consume(eng, end)
            return self._decline(eng)
        if end > eng.pos:
            eng.pos = end
        if broken:  # the rest of the section cannot be read: reject everything up to its closer
            call = eng.call
            if call is not None and call.reject is None:
                call.reject, call.detail = Reason.MALFORMED, detail
            self.phase = _RECOVER
            return True
        eng.fail_call(Reason.MALFORMED, detail, end)
        self.phase = _AFTER
        return True

    def _after(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        j = skip_ws(buf, eng.pos)
        if j >= len(buf):
            if final:
                return self._end_section(eng)
            return False
        if self.printed:
            self.printed = False
            if buf[j] == ")":
                self._consume(eng, j + 1)
                return True
        if self.form != LIST:
            self.phase = _HEAD
            return True
        c = buf[j]
        if c not in ",]":
            if not self.committed:
                return self._decline(eng)
            return self._junk(eng, j)
        if not self.committed:
            if c == "]":
                return self._bare_end(eng, j, final)
            self._settle(eng, j + 1)
            if not self.line_end:  # at the output start, the first confirmed call decides
                self._commit(eng)
            self.phase = _HEAD
            return True
        eng.pos = j + 1
        self.phase = _HEAD if c == "," else _CLOSE
        return True

    def _bare_end(self, eng: Engine, j: int, final: bool) -> bool:
        """``]`` at ``j`` ends a bare list: after prose only where it ends its line (``the docs say [a(x=1),
        b(y=2)] returns ...`` is prose); then every pending call is emitted."""
        ends = _ends_line(eng.buf, j + 1, final) if self.line_end else True
        if not ends or (self.done is None and not self.pending):
            return False if ends is None else self._decline(eng)
        if self.done is not None:
            self._settle(eng, j + 1)
        else:  # after a trailing comma: the ``]`` is the last call's markup
            self._consume(eng, j + 1)
            name, args_json, raw = self.pending[-1]
            self.pending[-1] = (name, args_json, raw + "".join(self.held))
            self.held = []
        self._commit(eng)
        self.phase = _CLOSE
        return True

    def _close(self, eng: Engine, final: bool) -> bool:
        """After ``]``: the wrapper's closer (optional, end-of-stream rule), then back to text."""
        if self.closer is None:
            eng.pop()
            return True
        buf = eng.buf
        j = after_ws(buf, eng.pos, final)
        if j is None:
            return False
        if j is False:
            eng.pop()
            return True
        ok = starts_or_prefix(buf, j, self.closer)
        if ok is None and not final:
            eng.wait_for(self.closer, j)  # the closer arriving in pieces: kept until it is whole
            return False
        if ok:
            eng.pos = j + len(self.closer)
        eng.pop()
        return True

    def _junk(self, eng: Engine, j: int) -> bool:
        """Something that is not a call where a call was expected."""
        if not self.committed:
            return self._decline(eng)
        if self.form == LINES:
            eng.pop()  # Olmo: text after the last call ends the section (its closer is optional, end-of-stream rule)
            return True
        eng.pos = j
        eng.begin_call(self.fmt, j)
        self.phase = _RECOVER
        return True

    def _recover(self, eng: Engine, final: bool) -> bool:
        """Swallow malformed markup up to the section's closer, so none of it leaks into the text."""
        closer = self.closer or "]"
        buf = eng.buf
        idx = buf.find(closer, eng.pos)
        if idx < 0:
            if final:
                eng.fail_call(Reason.MALFORMED, "not a list of calls", len(buf))
                eng.pos = len(buf)
                eng.pop()
                return True
            eng.pos = max(eng.pos, len(buf) - len(closer) + 1)
            return False
        end = idx + len(closer)
        if eng.call is None:
            eng.begin_call(self.fmt, eng.pos)
        eng.fail_call(Reason.MALFORMED, "not a list of calls", end)
        eng.pos = end
        eng.pop()
        return True

    def _end_section(self, eng: Engine) -> bool:
        if not self.committed:
            self._truncated(eng)
        eng.pop()
        return True

    def _truncated(self, eng: Engine) -> None:
        """end-of-stream rule: a bare list cut before its ``]``. Its calls that a ``,`` confirmed were complete
        and are kept; the rest (a call cut before its ``)``, or one closed but not followed by ``,``/``]``)
        is a truncated call."""
        if self.committed:
            return
        rest = "".join(self.held)
        if not self.pending and not rest:
            return
        self._commit(eng)
        self.held, self.done = [], None
        if rest.strip():
            cand = eng.begin_call(self.fmt, eng.pos)
            cand.raw_parts.append(rest)
            cand.raw_len += len(rest)
            eng.fail_call(Reason.TRUNCATED, "the stream ended inside the call list", eng.pos)

    def at_close(self, eng: Engine) -> None:
        if not self.committed:
            if eng.pos < len(eng.buf):
                self.held.append(eng.buf[eng.pos :])
                eng.pos = len(eng.buf)
            self._truncated(eng)
