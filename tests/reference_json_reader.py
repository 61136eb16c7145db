"""The JSON reader's ``feed`` as it was before it read with locals (streamparse 8f76361): the reference
``tests/test_json_reader_locals.py`` compares the current reader with, token by token."""

from __future__ import annotations

import contextlib
import importlib.util
import json
from pathlib import Path

import streamparse

# The reader's module loaded from its source, as Python (a module of its own): with the core compiled
# (make test-compiled) the reference is still Python, and subclassing it needs no compiled base.
_SOURCE = Path(streamparse.__file__).resolve().parent / "core" / "json_reader.py"
_spec = importlib.util.spec_from_file_location("reference_json_reader_source", _SOURCE)
assert _spec is not None and _spec.loader is not None
_source = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_source)
_ESCAPED_CONTROL = _source._ESCAPED_CONTROL
_LITERALS = _source._LITERALS
_NUMBER = _source._NUMBER
_NUMBER_CHARS = _source._NUMBER_CHARS
_SQ_SPECIAL = _source._SQ_SPECIAL
_WORD = _source._WORD
_WS = _source._WS
AFTER, COLON, DONE, KEY, STRING, VALUE = (
    _source.AFTER,
    _source.COLON,
    _source.DONE,
    _source.KEY,
    _source.STRING,
    _source.VALUE,
)
DEPTH_MAX, KEY_MAX, LITERAL_MAX, NUMBER_MAX = (
    _source.DEPTH_MAX,
    _source.KEY_MAX,
    _source.LITERAL_MAX,
    _source.NUMBER_MAX,
)
DQ_RUN = _source.DQ_RUN
PYTHON_LITERAL, RAW_CONTROL_CHAR = _source.PYTHON_LITERAL, _source.RAW_CONTROL_CHAR
SINGLE_QUOTES, TRAILING_COMMA = _source.SINGLE_QUOTES, _source.TRAILING_COMMA
JsonReader = _source.JsonReader

__all__ = ["ReferenceReader"]


class ReferenceReader(JsonReader):
    """:class:`JsonReader` with its former ``feed``."""

    __slots__ = ()

    def feed(self, buf: str, pos: int, final: bool = False) -> int:
        """Consume from ``buf[pos:]`` until the value is complete, fails, or needs more input.

        Returns the position reached; text from there on was not consumed (it is held, or follows the value).
        """
        n = len(buf)
        out = self.out
        while pos < n:
            state = self.state
            if state >= DONE:  # (DONE or ERROR)
                return pos
            if state == STRING:
                q = self.quote
                if q == '"':
                    run_end = DQ_RUN.match(buf, pos).end()  # type: ignore[union-attr]  # always matches
                    if run_end > pos:
                        piece = buf[pos:run_end]
                        out.append(piece)
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
                        out.append(buf[pos:])
                        if self.is_key:
                            self._key(buf[pos:])
                        return n
                    j = m.start()
                    if j > pos:
                        piece = buf[pos:j]
                        out.append(piece)
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
                    out.append(piece)
                    if self.is_key:
                        self._key(piece)
                    pos = j + 2
                elif c == q:
                    out.append('"')
                    pos = j + 1
                    if self.is_key:
                        self.is_key = False
                        self.state = COLON
                        sink = self.sink
                        if sink is not None and len(self.stack) <= self.watch:
                            key = "".join(self.keyparts)
                            if "\\" in key:  # (without escapes the text is the key)
                                with contextlib.suppress(ValueError):
                                    key = json.loads('"' + key + '"')
                            sink.key(len(self.stack), key)
                        self.keyparts.clear()
                    else:
                        self._end_value(pos)
                elif c == '"':  # a double quote inside a single-quoted string
                    out.append('\\"')
                    if self.is_key:
                        self._key('\\"')
                    pos = j + 1
                else:  # raw newline / CR / tab inside a string
                    self._repair(RAW_CONTROL_CHAR)
                    esc = _ESCAPED_CONTROL[c]
                    out.append(esc)
                    if self.is_key:
                        self._key(esc)
                    pos = j + 1
                continue

            # Outside strings: whitespace first.
            end = _WS.match(buf, pos).end()  # type: ignore[union-attr]  # always matches
            if end > pos:
                if self.pending is not None:
                    self.pending.append(buf[pos:end])
                else:
                    out.append(buf[pos:end])
                pos = end
                if pos >= n:
                    return n
            c = buf[pos]
            if state == AFTER:
                top = self.stack[-1]
                if c == ",":
                    self.pending = [","]
                    pos += 1
                    if top == "{":
                        self.state = KEY
                    else:
                        self.state = VALUE
                        self.may_close = True
                elif (c == "}" and top == "{") or (c == "]" and top == "["):
                    out.append(c)
                    self.stack.pop()
                    pos += 1
                    self._end_value(pos)
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
                    out.append('"')
                    self.state = STRING
                    pos += 1
                elif c == "}":
                    if self.pending is not None:
                        self._repair(TRAILING_COMMA)
                        self.pending = None
                    out.append("}")
                    self.stack.pop()
                    pos += 1
                    self._end_value(pos)
                else:
                    self._fail(f"expected a quoted key, got {c!r}")
                    return pos
            elif state == COLON:
                if c == ":":
                    out.append(":")
                    self.state = VALUE
                    self.may_close = False
                    pos += 1
                else:
                    self._fail(f"expected ':', got {c!r}")
                    return pos
            else:  # VALUE
                if (c == "{" or c == "[") and len(self.stack) >= DEPTH_MAX:
                    self._fail(f"nested deeper than {DEPTH_MAX} levels")
                    return pos
                if c == "{":
                    self._start("{", pos)
                    out.append("{")
                    self.stack.append("{")
                    self.state = KEY
                    pos += 1
                elif c == "[":
                    self._start("[", pos)
                    out.append("[")
                    self.stack.append("[")
                    self.state = VALUE
                    self.may_close = True
                    pos += 1
                elif c == '"' or c == "'":
                    self._start('"', pos)
                    if c == "'":
                        self._repair(SINGLE_QUOTES)
                    self.quote = c
                    self.is_key = False
                    out.append('"')
                    self.state = STRING
                    pos += 1
                elif c == "]" and self.may_close and self.stack and self.stack[-1] == "[":
                    if self.pending is not None:
                        self._repair(TRAILING_COMMA)
                        self.pending = None
                    out.append("]")
                    self.stack.pop()
                    pos += 1
                    self._end_value(pos)
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
                    out.append(buf[pos:end])
                    pos = end
                    self._end_value(pos)
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
                    out.append(lit)
                    pos = end
                    self._end_value(pos)
                else:
                    self._fail(f"unexpected {c!r}")
                    return pos
        return pos
