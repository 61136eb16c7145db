"""Incremental reader of one JSON value, applying the repair rules repairs while it streams.

Why not ijson or jiter: both parse complete tokens only (a 100 KB string arrives as one event when it
closes) and neither applies the repairs models need (single quotes, trailing commas, Python literals, raw
newlines in strings). This reader consumes any piece of input, writes the repaired JSON text of what it
consumed to ``out`` at once (string contents included, so arguments stream), and holds back only a token
that could still change (a number or word at the end of the piece, a lone backslash, a comma that may turn
out to be trailing). Skipping inside strings is done by ``re`` in C; Python only runs per structural token.
The container stack is a list, so nesting depth is bounded by memory, never by recursion.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Final, Protocol

# Repair names reported in ToolCall.repairs.
SINGLE_QUOTES: Final = "single_quotes"
TRAILING_COMMA: Final = "trailing_comma"
PYTHON_LITERAL: Final = "python_literal"
RAW_CONTROL_CHAR: Final = "raw_control_char"

VALUE: Final = 0
KEY: Final = 1
COLON: Final = 2
AFTER: Final = 3
STRING: Final = 4
DONE: Final = 5
ERROR: Final = 6

_WS: Final = re.compile(r"[ \t\r\n]*")
_WS_MATCH: Final = _WS.match
_WS_CHARS: Final = " \t\r\n"
# Characters json.dumps would escape in a string (a text fragment without them is already valid JSON content).
NEEDS_ESCAPE: Final = re.compile(r'["\\\x00-\x1f\x7f\u2028\u2029]')
DQ_SPECIAL: Final = re.compile(r'[\\"\n\r\t]')
# A run of double-quoted string content that needs no work: plain characters and complete escapes.
DQ_RUN: Final = re.compile(r'[^\\"\n\r\t]*(?:\\[^\n\r\t][^\\"\n\r\t]*)*')
_DQ_MATCH: Final = DQ_RUN.match
_SQ_SPECIAL: Final = re.compile(r'[\\\'"\n\r\t]')
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_NUMBER_CHARS: Final = re.compile(r"[-+0-9.eE]*")
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
KEY_MAX: Final = 256  # characters of a key kept for the sink
LITERAL_MAX: Final = 5  # longest bare word that can be a literal (``false``, ``False``)
# Longer numbers are rejected rather than held: ``json.loads`` refuses integers past this many digits
# (sys.int_max_str_digits), and holding an unbounded token would make every feed rescan it.
NUMBER_MAX: Final = 4300
# Deeper nesting is malformed: ``json.loads`` cannot load it (RecursionError near 1000 levels), and failing
# early keeps the container stack, and the work on a hopeless call, bounded.
DEPTH_MAX: Final = 512


# ``json.dumps(value, ensure_ascii=False)`` without building an encoder per call (0.5 µs of a 1.5 µs dumps; a
# string skips the encoder entirely): the arguments' JSON text is written this way value by value.
dump_json: Final = json.JSONEncoder(ensure_ascii=False).encode

_LITERALS: Final = {"true": "true", "false": "false", "null": "null", "True": "true", "False": "false", "None": "null"}
_ESCAPED_CONTROL: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


class JsonSink(Protocol):
    """Structural callbacks for values at depth <= ``watch`` (0 = the top-level value)."""

    def value_start(self, depth: int, kind: str, pos: int) -> None: ...
    def value_end(self, depth: int, pos: int) -> None: ...
    def key(self, depth: int, key: str) -> None: ...


class JsonReader:
    """Reads one JSON value from successive pieces; see the module docstring."""

    __slots__ = (
        "stack",
        "state",
        "out",
        "repairs",
        "pending",
        "quote",
        "is_key",
        "keyparts",
        "keylen",
        "sink",
        "watch",
        "error",
        "may_close",
        "hold",
    )

    def __init__(self, sink: JsonSink | None = None, watch: int = -1) -> None:
        self.stack: list[str] = []
        self.state = VALUE
        self.out: list[str] = []
        self.repairs: list[str] = []
        self.pending: list[str] | None = None  # a comma (and whitespace) that may turn out to be trailing
        self.quote = '"'
        self.is_key = False
        self.keyparts: list[str] = []
        self.keylen = 0
        self.sink = sink
        self.watch = watch
        self.error: str | None = None
        self.may_close = False  # in an array right after '[' or ',' ... a ']' is allowed here
        self.hold = -1  # >= 0: ``drain`` releases only ``out[:hold]`` (a value a sink converts when it ends)

    @property
    def done(self) -> bool:
        return self.state == DONE

    @property
    def failed(self) -> bool:
        return self.state == ERROR

    @property
    def depth(self) -> int:
        return len(self.stack)

    def drain(self) -> str:
        """Take the repaired text produced so far."""
        out = self.out
        if not out:
            return ""
        hold = self.hold
        if hold >= 0:
            text = "".join(out[:hold])
            del out[:hold]
            self.hold = 0
            return text
        text = out[0] if len(out) == 1 else "".join(out)
        out.clear()
        return text

    def _key(self, piece: str) -> None:
        """Collect a key for the sink; only a bounded prefix (the keys sinks look for are short), so a
        huge key costs no memory."""
        if self.keylen < KEY_MAX:
            self.keyparts.append(piece)
            self.keylen += len(piece)

    def _repair(self, name: str) -> None:
        if name not in self.repairs:
            self.repairs.append(name)

    def _fail(self, detail: str) -> None:
        self.state = ERROR
        self.error = detail

    def _start(self, kind: str, pos: int) -> None:
        if self.pending is not None:
            self.out.extend(self.pending)
            self.pending = None
        sink = self.sink
        if sink is not None and len(self.stack) <= self.watch:
            sink.value_start(len(self.stack), kind, pos)

    def _end_value(self, pos: int) -> None:
        """A scalar or container just ended at depth len(stack); ``pos`` is just past it."""
        sink = self.sink
        if sink is not None and len(self.stack) <= self.watch:
            sink.value_end(len(self.stack), pos)
        self.state = AFTER if self.stack else DONE

    def feed(self, buf: str, pos: int, final: bool = False) -> int:
        """Consume from ``buf[pos:]`` until the value is complete, fails, or needs more input.

        Returns the position reached; text from there on was not consumed (it is held, or follows the value).
        """
        # Locals for what every token reads (the state is written back at once whenever it changes, so a
        # sink sees the reader as before); ``_start``/``_end_value`` inlined, whitespace matched only where
        # there is some: this loop runs once per structural token of every JSON call.
        n = len(buf)
        out = self.out
        append = out.append
        stack = self.stack
        sink = self.sink
        state = self.state
        while pos < n:
            if state >= DONE:  # (DONE or ERROR)
                return pos
            if state == STRING:
                q = self.quote
                if q == '"':
                    run_end = _DQ_MATCH(buf, pos).end()  # type: ignore[union-attr]  # always matches
                    if run_end > pos:
                        piece = buf[pos:run_end]
                        append(piece)
                        if self.is_key and self.keylen < KEY_MAX:  # (_key, inlined)
                            self.keyparts.append(piece)
                            self.keylen += len(piece)
                        pos = run_end
                        if pos >= n:
                            return n
                    j = pos  # a run stops only at a DQ_SPECIAL character: no search for it
                else:
                    m = _SQ_SPECIAL.search(buf, pos)
                    if m is None:
                        append(buf[pos:])
                        if self.is_key:
                            self._key(buf[pos:])
                        return n
                    j = m.start()
                    if j > pos:
                        piece = buf[pos:j]
                        append(piece)
                        if self.is_key:
                            self._key(piece)
                c = buf[j]
                if c == "\\":
                    if j + 1 >= n:
                        if final:
                            self._fail("unterminated escape")
                        return j
                    nxt = buf[j + 1]
                    piece = "'" if (nxt == "'" and q == "'") else buf[j : j + 2]
                    append(piece)
                    if self.is_key:
                        self._key(piece)
                    pos = j + 2
                elif c == q:
                    append('"')
                    pos = j + 1
                    if self.is_key:
                        self.is_key = False
                        state = self.state = COLON
                        if sink is not None and len(stack) <= self.watch:
                            key = "".join(self.keyparts)
                            if "\\" in key:  # (without escapes the text is the key)
                                with contextlib.suppress(ValueError):
                                    key = json.loads('"' + key + '"')
                            sink.key(len(stack), key)
                        self.keyparts.clear()
                    else:  # (_end_value, inlined)
                        if sink is not None and len(stack) <= self.watch:
                            sink.value_end(len(stack), pos)
                        state = self.state = AFTER if stack else DONE
                elif c == '"':  # a double quote inside a single-quoted string
                    append('\\"')
                    if self.is_key:
                        self._key('\\"')
                    pos = j + 1
                else:  # raw newline / CR / tab inside a string
                    self._repair(RAW_CONTROL_CHAR)
                    esc = _ESCAPED_CONTROL[c]
                    append(esc)
                    if self.is_key:
                        self._key(esc)
                    pos = j + 1
                continue

            # Outside strings: whitespace first.
            c = buf[pos]
            if c in _WS_CHARS:
                end = _WS_MATCH(buf, pos).end()  # type: ignore[union-attr]  # always matches
                if self.pending is not None:
                    self.pending.append(buf[pos:end])
                else:
                    append(buf[pos:end])
                pos = end
                if pos >= n:
                    return n
                c = buf[pos]
            if state == AFTER:
                top = stack[-1]
                if c == ",":
                    self.pending = [","]
                    pos += 1
                    if top == "{":
                        state = self.state = KEY
                    else:
                        state = self.state = VALUE
                        self.may_close = True
                elif (c == "}" and top == "{") or (c == "]" and top == "["):
                    append(c)
                    stack.pop()
                    pos += 1
                    if sink is not None and len(stack) <= self.watch:  # (_end_value, inlined)
                        sink.value_end(len(stack), pos)
                    state = self.state = AFTER if stack else DONE
                else:
                    self._fail(f"unexpected {c!r} after a value")
                    return pos
            elif state == KEY:
                if c == '"' or c == "'":
                    if self.pending is not None:
                        out.extend(self.pending)
                        self.pending = None
                    if c == "'":
                        self._repair(SINGLE_QUOTES)
                    self.quote = c
                    self.is_key = True
                    self.keyparts.clear()
                    self.keylen = 0
                    append('"')
                    state = self.state = STRING
                    pos += 1
                elif c == "}":
                    if self.pending is not None:
                        self._repair(TRAILING_COMMA)
                        self.pending = None
                    append("}")
                    stack.pop()
                    pos += 1
                    if sink is not None and len(stack) <= self.watch:  # (_end_value, inlined)
                        sink.value_end(len(stack), pos)
                    state = self.state = AFTER if stack else DONE
                else:
                    self._fail(f"expected a quoted key, got {c!r}")
                    return pos
            elif state == COLON:
                if c == ":":
                    append(":")
                    state = self.state = VALUE
                    self.may_close = False
                    pos += 1
                else:
                    self._fail(f"expected ':', got {c!r}")
                    return pos
            else:  # VALUE
                if c == '"' or c == "'":
                    if self.pending is not None or (sink is not None and len(stack) <= self.watch):
                        self._start('"', pos)
                    if c == "'":
                        self._repair(SINGLE_QUOTES)
                    self.quote = c
                    self.is_key = False
                    append('"')
                    state = self.state = STRING
                    pos += 1
                elif c == "{" or c == "[":
                    if len(stack) >= DEPTH_MAX:
                        self._fail(f"nested deeper than {DEPTH_MAX} levels")
                        return pos
                    if self.pending is not None or (sink is not None and len(stack) <= self.watch):
                        self._start(c, pos)
                    append(c)
                    stack.append(c)
                    if c == "{":
                        state = self.state = KEY
                    else:
                        state = self.state = VALUE
                        self.may_close = True
                    pos += 1
                elif c == "]" and self.may_close and stack and stack[-1] == "[":
                    if self.pending is not None:
                        self._repair(TRAILING_COMMA)
                        self.pending = None
                    append("]")
                    stack.pop()
                    pos += 1
                    self._end_value(pos)
                    state = self.state
                elif c == "-" or c.isdigit():
                    end = _NUMBER_CHARS.match(buf, pos).end()  # type: ignore[union-attr]  # always matches
                    if end - pos > NUMBER_MAX:
                        self._fail("number too long")
                        return pos
                    if end >= n and not final:
                        return pos
                    num = _NUMBER.fullmatch(buf, pos, end)
                    if num is None:
                        self._fail(f"bad number {buf[pos:end]!r}")
                        return pos
                    self._start("n", pos)
                    append(buf[pos:end])
                    pos = end
                    self._end_value(pos)
                    state = self.state
                elif c.isascii() and (c.isalpha() or c == "_"):  # str.isalpha alone is unicode-wide
                    end = _WORD.match(buf, pos).end()  # type: ignore[union-attr]  # c is a word start
                    if end >= n and not final and end - pos <= LITERAL_MAX:
                        return pos
                    word = buf[pos:end]
                    lit = _LITERALS.get(word)
                    if lit is None:
                        self._fail(f"unexpected word {word[: LITERAL_MAX + 1]!r}")  # the same for every chunking
                        return pos
                    if lit != word:
                        self._repair(PYTHON_LITERAL)
                    self._start("n", pos)
                    append(lit)
                    pos = end
                    self._end_value(pos)
                    state = self.state
                else:
                    self._fail(f"unexpected {c!r}")
                    return pos
        return pos
