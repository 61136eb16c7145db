"""Safe readers for Python-style tool calls: pythonic lists, gemma ``tool_code`` lines, Olmo 3 lines.

Model output is untrusted, so nothing here uses ``eval``, ``exec`` or ``ast`` (``ast`` also recurses and
can be driven out of memory). The grammar is the literal subset of Python a tool call needs: a (dotted)
name, keyword arguments only, and literal values. Parsing is iterative with an explicit stack and every
token is found by a compiled regex, so the cost is linear in the text and deep nesting cannot raise
``RecursionError``. The only exception raised on bad input is ``ValueError`` with a short reason.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any, Final, Literal

# Containers nested deeper than this are refused: the values go on to ``json.dumps``/``json.loads`` and
# schema validation, which recurse, and no real tool argument nests anywhere near this deep.
MAX_DEPTH: Final = 100
# Decimal digits allowed in an int: CPython's own default cap (``sys.int_info.default_max_str_digits``),
# fixed here so the quadratic int conversion stays cheap whatever the interpreter is configured with.
MAX_INT_DIGITS: Final = 4300

# String literals. Possessive quantifiers keep a failed (unterminated) match linear. ``'''`` always
# opens a triple-quoted string, as in Python's tokenizer, hence the ``(?!'')`` on single quotes. Raw
# newlines inside single-quoted strings are tolerated: models put them in code arguments, and the
# tracker below agrees on that.
STRING: Final = (
    r"'''(?:[^'\\]++|\\.|'(?!''))*+'''"
    r'|"""(?:[^"\\]++|\\.|"(?!""))*+"""'
    r"|'(?!'')[^'\\]*+(?:\\.[^'\\]*+)*+'"
    r'|"(?!"")[^"\\]*+(?:\\.[^"\\]*+)*+"'
)
_TOKEN: Final = re.compile(
    r"\s*+(?:"
    r"(?P<prefix>[rRuU]?)(?P<str>" + STRING + r")"
    r"|(?P<float>[+-]?(?:(?:[0-9][0-9_]*+\.[0-9_]*+|\.[0-9][0-9_]*+)(?:[eE][+-]?[0-9_]++)?"
    r"|[0-9][0-9_]*+[eE][+-]?[0-9_]++))"
    r"|(?P<int>[+-]?(?:0[xXoObB][0-9a-fA-F_]++|[0-9][0-9_]*+))"
    r"|(?P<name>[^\W\d]\w*+(?:[.-]\w++)*+)"  # dotted/hyphenated call names; values reject names anyway
    r"|(?P<punct>[()\[\]{},:=])"
    r"|(?P<end>\Z)"
    r")",
    re.S,
)
_IDENTIFIER: Final = re.compile(r"[^\W\d]\w*")
_CONSTANTS: Final[dict[str, Any]] = {
    "True": True,
    "False": False,
    "None": None,
    "true": True,
    "false": False,
    "null": None,
}

_ESCAPE: Final = re.compile(
    r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2})|([0-7]{1,3})"
    r"|N\{([^{}\n]{1,100})\}|(\r\n|\r|\n)|(.))",
    re.S,
)
_SIMPLE_ESCAPES: Final = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}
# (escapes for re, not surrogates in the literal: mypyc compiles no surrogate in a string literal)
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
_SURROGATE_PAIR: Final = re.compile(r"([\ud800-\udbff])([\udc00-\udfff])")

_ZERO_PADDED: Final = re.compile(r"[+-]?0[0-9_]+")
_PRINT_WRAPPER: Final = re.compile(r"print\s*+\(\s*+(?=[^\W\d][\w.-]*+\s*+\()")
_LINE_REST: Final = re.compile(r"[^\S\n]*+(?:\n|\Z)")
_SPACE: Final = re.compile(r"\s*+")

Token = tuple[str, Any, int, int]  # kind, value, end, start


def _unescape_one(m: re.Match[str]) -> str:
    u4, u8, x2, octal, named, newline, char = m.groups()
    digits = u4 or u8 or x2
    if digits:
        code = int(digits, 16)
        if code > 0x10FFFF:
            raise ValueError("escape out of Unicode range")
        return chr(code)
    if octal:
        return chr(int(octal, 8))
    if named is not None:
        try:
            return unicodedata.lookup(named)
        except KeyError:
            raise ValueError("unknown \\N{...} name") from None
    if newline is not None:
        return ""  # backslash-newline continues the string on the next line
    if char in "uUxN":
        raise ValueError(f"truncated \\{char} escape")
    return _SIMPLE_ESCAPES.get(char, "\\" + char)  # Python keeps unknown escapes as written


def _join_surrogates(m: re.Match[str]) -> str:
    high, low = m.group(1), m.group(2)
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def _decode_string(prefix: str, literal: str) -> str:
    quote_len = 3 if len(literal) >= 6 and literal[0] == literal[1] == literal[2] else 1
    body = literal[quote_len:-quote_len]
    if prefix in ("r", "R") or "\\" not in body:
        return body
    text = _ESCAPE.sub(_unescape_one, body)
    if _SURROGATE.search(text):
        # JSON-minded models write astral characters as \\ud83d\\ude00 pairs; a lone half cannot be encoded.
        text = _SURROGATE_PAIR.sub(_join_surrogates, text)
        if _SURROGATE.search(text):
            raise ValueError("lone surrogate in string")
    return text


def _number(tok: str, is_float: bool) -> int | float:
    if len(tok) > MAX_INT_DIGITS:
        raise ValueError("number too long")
    if is_float:
        value = float(tok)  # accepts Python's underscore rules, rejects misplaced underscores
        if not math.isfinite(value):
            raise ValueError("number out of range")
        return value
    try:
        return int(tok, 0)  # base 0: Python literal rules (prefixes, underscores)
    except ValueError:
        if _ZERO_PADDED.fullmatch(tok) is None:
            raise
        return int(tok, 10)  # ``month=07``: Python refuses leading zeros; the model means 7 (as vLLM reads it)


def _lex(text: str, pos: int) -> Token:
    """The next token after optional whitespace: ``(kind, value, end, start)``."""
    m = _TOKEN.match(text, pos)
    if m is None:
        start = _SPACE.match(text, pos).end()  # type: ignore[union-attr]  # \s*+ always matches
        char = text[start]
        if char in "'\"":
            raise ValueError(f"unterminated string at {start}")
        raise ValueError(f"unexpected {char!r} at {start}")
    kind: str = m.lastgroup  # type: ignore[assignment]  # every alternative is a named group
    start, end = m.span(kind)
    if kind == "punct":
        return text[start], None, end, start
    if kind == "name":
        return "name", text[start:end], end, start
    if kind == "int" or kind == "float":
        try:
            return "num", _number(text[start:end], kind == "float"), end, start
        except ValueError:
            raise ValueError(f"bad number at {start}") from None
    if kind == "str":
        return "str", _decode_string(m.group("prefix"), text[start:end]), end, m.start("prefix")
    return "end", None, end, end


def _describe(kind: str, value: Any) -> str:
    if kind == "name":
        return f"name {value!r}"
    if kind == "end":
        return "end of text"
    if kind in ("str", "num"):
        return "literal"
    return repr(kind)


def _string_run(first: str, text: str, pos: int) -> tuple[str, int]:
    """Adjacent string literals concatenate, as in Python (``"a" "b"``)."""
    parts = [first]
    while True:
        kind, value, end, _ = _lex(text, pos)
        if kind != "str":
            return "".join(parts), pos
        parts.append(value)
        pos = end


_NO_KEY: Final = object()


class _Frame:
    """One open container while reading a value."""

    __slots__ = ("close", "items", "obj", "key", "closable", "comma", "is_set")

    def __init__(self, opener: str) -> None:
        self.close = {"[": "]", "(": ")", "{": "}"}[opener]
        self.items: list[Any] = []
        self.obj: dict[str, Any] | None = {} if opener == "{" else None
        self.key: Any = _NO_KEY
        self.closable = True  # empty, or just after a comma: the closer may come now
        self.comma = False
        self.is_set = False

    def add(self, value: Any) -> None:
        if self.obj is not None:
            self.obj[self.key] = value
            self.key = _NO_KEY
        else:
            self.items.append(value)
        self.closable = False

    def finish(self) -> Any:
        if self.obj is not None:
            return self.obj
        if self.close == ")" and not self.comma and len(self.items) == 1:
            return self.items[0]  # ``(x)`` is a parenthesised value, not a tuple
        if self.is_set:  # a set holds each element once; the order is the one written
            return [v for i, v in enumerate(self.items) if not any(_same(v, w) for w in self.items[:i])]
        return self.items  # tuples become lists: JSON has only arrays


def _same(a: Any, b: Any) -> bool:
    """Equal as set elements (``1`` and ``True`` are equal in Python; in JSON they differ, so they stay apart)."""
    return type(a) is type(b) and a == b


def _read_value(text: str, pos: int) -> tuple[Any, int]:
    """Read one literal value starting at ``pos``; return it and the position just past it."""
    stack: list[_Frame] = []
    while True:
        kind, tok, pos, start = _lex(text, pos)
        top = stack[-1] if stack else None
        value: Any
        if top is not None and kind == top.close and top.closable and top.key is _NO_KEY:
            value = top.finish()
            stack.pop()
        elif top is not None and top.obj is not None and top.key is _NO_KEY:
            key: str | None = None
            if kind == "str":
                key, pos = _string_run(tok, text, pos)
                first: Any = key
            elif kind == "num":
                first = tok
                key = str(tok) if isinstance(tok, int) else None  # JSON keys are strings: an int keeps its spelling
            elif kind == "name" and tok in _CONSTANTS:
                first = _CONSTANTS[tok]
            else:
                raise ValueError(f"dict key must be a string or int at {start}")
            colon, _, after, at = _lex(text, pos)
            if colon == ":" and key is not None:
                top.key, pos = key, after
                continue
            if colon not in (",", "}") or top.obj:
                raise ValueError(f"expected ':' at {at}")
            top.obj, top.is_set = None, True  # ``{a, b}``: a set literal, read as a list (JSON has no sets)
            value = first
        elif kind in ("[", "(", "{"):
            if len(stack) >= MAX_DEPTH:
                raise ValueError(f"nesting deeper than {MAX_DEPTH}")
            stack.append(_Frame(kind))
            continue
        elif kind == "str":
            value, pos = _string_run(tok, text, pos)
        elif kind == "num":
            value = tok
        elif kind == "name" and tok in _CONSTANTS:
            value = _CONSTANTS[tok]
        else:
            raise ValueError(f"expected a literal value at {start}, got {_describe(kind, tok)}")
        # A value is complete: attach it to its container, then read what follows it.
        while stack:
            top = stack[-1]
            top.add(value)
            kind, tok, pos, start = _lex(text, pos)
            if kind == ",":
                top.closable = top.comma = True
                break
            if kind != top.close:
                raise ValueError(f"expected ',' or {top.close!r} at {start}, got {_describe(kind, tok)}")
            value = top.finish()
            stack.pop()
        else:
            return value, pos


def _read_call(text: str, pos: int) -> tuple[str, dict[str, Any], int]:
    """Read ``NAME(k=v, ...)`` starting at ``pos``; return name, arguments and the position past ``)``."""
    kind, name, pos, start = _lex(text, pos)
    if kind != "name":
        raise ValueError(f"expected a call at {start}, got {_describe(kind, name)}")
    kind, _, pos, start = _lex(text, pos)
    if kind != "(":
        raise ValueError(f"expected '(' after {name!r} at {start}")
    args: dict[str, Any] = {}
    while True:
        kind, key, pos, start = _lex(text, pos)
        if kind == ")":
            return name, args, pos  # empty call, or a trailing comma
        if kind != "name" or not _IDENTIFIER.fullmatch(key):
            raise ValueError(f"expected a keyword argument at {start}, got {_describe(kind, key)}")
        kind, _, pos, start = _lex(text, pos)
        if kind != "=":
            raise ValueError(f"expected '=' after {key!r} at {start} (only keyword arguments)")
        if key in args:
            raise ValueError(f"keyword argument {key!r} repeated")
        args[key], pos = _read_value(text, pos)
        kind, tok, pos, start = _lex(text, pos)
        if kind == ")":
            return name, args, pos
        if kind != ",":
            raise ValueError(f"expected ',' or ')' at {start}, got {_describe(kind, tok)}")


def _expect_end(text: str, pos: int) -> None:
    kind, tok, _, start = _lex(text, pos)
    if kind != "end":
        raise ValueError(f"unexpected {_describe(kind, tok)} at {start} after the call")


def parse_call(text: str) -> tuple[str, dict[str, Any]]:
    """One call ``NAME(k=v, ...)`` (surrounding whitespace allowed); the name is returned as written."""
    name, args, pos = _read_call(text, 0)
    _expect_end(text, pos)
    return name, args


def parse_call_list(text: str) -> list[tuple[str, dict[str, Any]]]:
    """``[NAME(...), NAME2(...)]`` → calls; ``[]`` → ``[]``. Anything else in the list is a ValueError."""
    kind, _, pos, start = _lex(text, 0)
    if kind != "[":
        raise ValueError(f"expected '[' at {start}")
    calls: list[tuple[str, dict[str, Any]]] = []
    while True:
        kind, _, end, _ = _lex(text, pos)
        if kind == "]":
            break  # empty list, or a trailing comma
        name, args, pos = _read_call(text, pos)
        calls.append((name, args))
        kind, tok, end, start = _lex(text, pos)
        if kind == "]":
            break
        if kind != ",":
            raise ValueError(f"expected ',' or ']' at {start}, got {_describe(kind, tok)}")
        pos = end
    _expect_end(text, end)
    return calls


def parse_call_lines(text: str) -> list[tuple[str, dict[str, Any]]]:
    """One call per line (Olmo 3, gemma ``tool_code``), optionally wrapped as ``print(NAME(...))``.

    A call may span lines (a multi-line string or argument list); after it only blanks may follow on
    its last line. Blank lines are skipped; an empty text gives ``[]``.
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    pos = 0
    while True:
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]  # \s*+ always matches
        if pos >= len(text):
            return calls
        wrapper = _PRINT_WRAPPER.match(text, pos)
        if wrapper is not None:
            pos = wrapper.end()
        name, args, pos = _read_call(text, pos)
        if wrapper is not None:
            kind, tok, pos, start = _lex(text, pos)
            if kind != ")":
                raise ValueError(f"expected ')' closing print( at {start}, got {_describe(kind, tok)}")
        rest = _LINE_REST.match(text, pos)
        if rest is None:
            raise ValueError(f"expected a line break after the call at {pos}")
        calls.append((name, args))
        pos = rest.end()


# Incremental end detection ------------------------------------------------------------------------------

_OUTSIDE: Final = re.compile(r"[()\[\]{}'\"]")
# String content up to (not including) the closing quote, a backslash ending the piece, or the end. Escape
# pairs are consumed inside the regex, so a string full of escapes costs no Python loop per escape.
_SINGLE_BODY: Final = {q: re.compile(rf"[^{q}\\]*+(?:\\.[^{q}\\]*+)*+", re.S) for q in "'\""}
# Triple-quoted content: a quote is content unless it starts the closing run, or starts a run of one or
# two quotes that ends the piece (it may become the closing run when the next piece arrives).
_TRIPLE_BODY: Final = {q: re.compile(rf"(?:[^{q}\\]++|\\.|{q}(?!{q}{q}|{q}?\Z))*+", re.S) for q in "'\""}
_CLOSER: Final = {"(": ")", "[": "]", "{": "}"}
_OUT: Final = 0
_OPENING: Final = 1
_IN: Final = 2


class PyCallTracker:
    """Incremental end detector: where a bracketed call list / a single call closes, in linear total time.

    Feed the candidate from its first character (``[`` in mode ``"list"``, the call name in mode
    ``"call"``). Strings are tracked with Python's tokenizer rules (either quote, backslash escapes, triple
    quotes), including a quote run or an escape split across pieces, so brackets inside strings do not
    count. Between interesting characters a compiled regex jumps ahead, so long strings cost no Python
    loop per character.
    """

    __slots__ = ("_opener", "_stack", "_state", "_quote", "_triple", "_escape", "_run", "_broken", "_closed")

    def __init__(self, mode: Literal["list", "call"]) -> None:
        if mode not in ("list", "call"):
            raise ValueError(f"mode must be 'list' or 'call', not {mode!r}")
        self._opener = "[" if mode == "list" else "("
        self._stack: list[str] = []  # the closer each open bracket expects
        self._state = _OUT
        self._quote = ""
        self._triple = False
        self._escape = False  # a backslash inside a string ended the previous piece
        self._run = 0  # quotes seen in a pending opening run (outside) or closing run (triple string)
        self._broken = False
        self._closed = False

    @property
    def depth(self) -> int:
        return len(self._stack)

    @property
    def broken(self) -> bool:
        """A bracket that does not match (or a quote before the first opener): never a valid candidate."""
        return self._broken

    @property
    def closed(self) -> bool:
        return self._closed

    def feed(self, text: str) -> int | None:
        """Consume the next piece; return the offset in it just past the outermost closer, else None.

        After the candidate closed or broke, further pieces are ignored (None).
        """
        if self._broken or self._closed:
            return None
        i, n = 0, len(text)
        while i < n:
            state = self._state
            if state == _OUT:
                m = _OUTSIDE.search(text, i)
                if m is None:
                    return None
                char = m.group()
                i = m.end()
                if char in "'\"":
                    if not self._stack:
                        self._broken = True
                        return None
                    self._quote, self._run, self._state = char, 1, _OPENING
                elif char in _CLOSER:
                    if not self._stack and char != self._opener:
                        self._broken = True
                        return None
                    self._stack.append(_CLOSER[char])
                elif not self._stack or self._stack.pop() != char:
                    self._broken = True
                    return None
                elif not self._stack:
                    self._closed = True
                    return i
            elif state == _OPENING:  # one or two quotes seen: single-quoted, empty, or triple?
                if text[i] == self._quote:
                    i += 1
                    self._run += 1
                    if self._run == 3:
                        self._state, self._triple, self._run = _IN, True, 0
                elif self._run == 2:
                    self._state, self._run = _OUT, 0  # ``''``: an empty string, already closed
                else:
                    self._state, self._triple, self._run = _IN, False, 0
            elif self._escape:
                i += 1
                self._escape = False
            elif self._run:  # inside a closing run of a triple-quoted string
                if text[i] == self._quote:
                    i += 1
                    self._run += 1
                    if self._run == 3:
                        self._state, self._run = _OUT, 0
                else:
                    self._run = 0
            else:
                body = _TRIPLE_BODY if self._triple else _SINGLE_BODY
                i = body[self._quote].match(text, i).end()  # type: ignore[union-attr]  # matches empty
                if i == n:
                    return None
                if text[i] == "\\":  # a backslash ending the piece escapes the next piece's first char
                    self._escape = True
                elif self._triple:
                    self._run = 1
                else:
                    self._state = _OUT
                i += 1
        return None
