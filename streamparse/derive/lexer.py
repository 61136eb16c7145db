"""jinja2's lexer with a tag's tokens matched by one regular expression each, not one per rule.

jinja2's ``Lexer.tokeniter`` finds each token inside ``{% ... %}`` and ``{{ ... }}`` by trying its rules in
turn (the end of the tag, whitespace, float, integer, name, string, operator), a Python loop and up to seven
regular-expression calls per token, then ``Lexer.wrap`` turns every raw token into a :class:`Token` in a
second generator. For GigaChat 3.5's 40 KB template that is 18 ms of CPU, a quarter of jinja2's compile.

:class:`FastLexer` keeps jinja2's rules and joins a tag state's rules into one alternation, in jinja2's order
(Python's ``|`` takes the first alternative that matches, as the rule loop takes the first rule), each rule
with its own flags; the end-of-tag alternative is left out while a bracket is open, as jinja2 skips that rule
then. The text between tags and the comments are matched with jinja2's own expressions and the same
whitespace control. Tokens are made as ``wrap`` makes them, in one pass. Anything this path does not
handle (a ``{% raw %}`` block, a character no rule matches, an unbalanced bracket, a bad string escape or
identifier, a template that ends inside a tag, line statements, other delimiters or newline sequences) sends
the whole template to jinja2's own lexer, so every error, and its order against the parser's errors, is
jinja2's. ``tests/test_derive_lexer.py`` compares the token streams on every template it has and on
generated snippets.
"""

from __future__ import annotations

import re
from ast import literal_eval
from typing import Any

from jinja2 import __version__ as jinja2_version
from jinja2 import lexer as jl
from jinja2.lexer import Lexer, Token, TokenStream

__all__ = ["FastLexer", "FastToken", "fast_lexer", "SUPPORTED"]

SUPPORTED = jinja2_version.startswith("3.1.")
"""The text between tags, whitespace control and token conversion below are jinja2 3.1's ``tokeniter`` and
``wrap``: another jinja2 is lexed by its own lexer until this module is checked against it."""

_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))
_KNOWN_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE | re.UNICODE
_OPEN = {"{": "}", "(": ")", "[": "]"}
_CLOSE = frozenset(_OPEN.values())
_END = {jl.TOKEN_BLOCK_BEGIN: jl.TOKEN_BLOCK_END, jl.TOKEN_VARIABLE_BEGIN: jl.TOKEN_VARIABLE_END}


def _scoped(pattern: re.Pattern[str]) -> str | None:
    """``pattern`` as a group carrying its own flags, for use inside a larger expression (None: not safe)."""
    text = pattern.pattern
    if pattern.flags & ~_KNOWN_FLAGS or "(?P" in text or re.search(r"\\[1-9]|\(\?\(", text):
        return None  # named groups or back-references would change meaning once groups are renumbered
    letters = "".join(letter for flag, letter in _FLAG_LETTERS if pattern.flags & flag)
    # A verbose pattern may end in a comment: the newline ends it before the group closes.
    return f"(?{letters}:{text}\n)" if "x" in letters else f"(?{letters}:{text})"


def _joined(rules: list[Any]) -> re.Pattern[str] | None:
    """One expression for a tag state's rules after its whitespace rule, each alternative named by its token.

    Whitespace comes first in jinja2's order after the end of the tag, and neither the end of a tag nor any
    later rule can start with whitespace: so a run of whitespace is always one token of its own, followed by
    whatever the rules match at the next character. Here it is a possessive prefix of the next token's match
    (never given back), which saves a match per token; its newlines still count for the line numbers.
    """
    parts = []
    for rule in rules:
        scoped = _scoped(rule.pattern)
        if scoped is None:
            return None
        parts.append(f"(?P<{rule.tokens}>{scoped})")
    return re.compile(r"\s*+(?:" + "|".join(parts) + ")")


_PAIRS: dict[str, tuple[str, str] | None] = {}
"""Token expressions (``"name:endfor"``) split once: the parser tests the same few thousands of times."""


class FastToken(Token):
    """jinja2's :class:`~jinja2.lexer.Token` (equal to it, field for field) whose ``test`` splits each token
    expression once: the parser calls it about twice per token, and jinja2 splits the expression each time."""

    __slots__ = ()

    def test(self, expr: str) -> bool:
        if self.type == expr:
            return True
        try:
            pair = _PAIRS[expr]
        except KeyError:
            if type(expr) is not str:
                return Token.test(self, expr)
            kind, colon, value = expr.partition(":")  # as expr.split(":", 1) when there is a colon
            pair = _PAIRS[expr] = (kind, value) if colon else None
        except TypeError:  # not hashable: not a token expression jinja2 writes, answered as jinja2 answers it
            return Token.test(self, expr)
        # expr.split(":", 1) == [type, value], compared in that order
        return pair is not None and self.type == pair[0] and self.value == pair[1]

    def test_any(self, *iterable: str) -> bool:
        for expr in iterable:  # noqa: SIM110 - any() over a generator is what costs here
            if self.test(expr):
                return True
        return False


class FastLexer(Lexer):
    """jinja2's :class:`~jinja2.lexer.Lexer` whose ``tokenize`` produces the same tokens in one pass."""

    def __init__(self, environment: Any) -> None:
        super().__init__(environment)
        self._tags: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {}
        self._fast = self._prepare(environment)

    def _prepare(self, environment: Any) -> bool:
        """Build the joined expressions; False when this environment's lexer is not the shape handled here."""
        if (
            not SUPPORTED
            or environment.line_statement_prefix is not None
            or environment.line_comment_prefix is not None
            or self.newline_sequence != "\n"
        ):
            return False
        root, rest = self.rules["root"]
        comment = self.rules[jl.TOKEN_COMMENT_BEGIN][0]
        if not isinstance(root.tokens, jl.OptionalLStrip) or rest.command is not None or comment.command != "#pop":
            return False
        self._root, self._rest, self._comment = root.pattern, rest.pattern, comment.pattern
        # The root expression's group for a tag is its delimiter followed by the whitespace control.
        self._begins = {
            jl.TOKEN_COMMENT_BEGIN: len(environment.comment_start_string),
            jl.TOKEN_BLOCK_BEGIN: len(environment.block_start_string),
            jl.TOKEN_VARIABLE_BEGIN: len(environment.variable_start_string),
        }
        expected = [jl.TOKEN_WHITESPACE, jl.TOKEN_FLOAT, jl.TOKEN_INTEGER, jl.TOKEN_NAME, jl.TOKEN_STRING]
        for state, end in _END.items():
            rules = self.rules[state]
            kinds = [rule.tokens for rule in rules]
            if kinds != [end, *expected, jl.TOKEN_OPERATOR] or rules[0].command != "#pop":
                return False
            if any(rule.command is not None for rule in rules[1:]):
                return False
            if rules[1].pattern is not jl.whitespace_re or jl.whitespace_re.pattern != r"\s+":
                return False
            with_end, without_end = _joined([rules[0], *rules[2:]]), _joined(rules[2:])
            if with_end is None or without_end is None:
                return False
            self._tags[state] = (with_end, without_end)
        return True

    def tokenize(
        self, source: str, name: str | None = None, filename: str | None = None, state: str | None = None
    ) -> TokenStream:
        if self._fast and state is None:
            tokens = self._tokens(source)
            if tokens is not None:
                return TokenStream(iter(tokens), name, filename)
        return super().tokenize(source, name, filename, state)

    def _tokens(self, source: str) -> list[Token] | None:
        """``wrap(tokeniter(source))`` as a list, or None where jinja2's own lexer must decide."""
        lines = jl.newline_re.split(source)[::2]
        if not self.keep_trailing_newline and lines[-1] == "":
            del lines[-1]
        source = "\n".join(lines)  # every newline is "\n" from here: wrap's newline normalising changes nothing
        out: list[Token] = []
        append = out.append
        root, rest, comment, tags, begins = self._root, self._rest, self._comment, self._tags, self._begins
        lstrip = self.lstrip_blocks
        whitespace = jl.whitespace_re
        operators = jl.operators
        new = tuple.__new__  # what FastToken(...) runs, without its Python-level __new__
        end_of = _END.__getitem__
        pos = 0
        lineno = 1
        line_starting = True
        while True:
            m = root.match(source, pos)
            if m is None:
                m = rest.match(source, pos)
                if m is not None:  # the text after the last tag
                    append(new(FastToken, (lineno, jl.TOKEN_DATA, m.group())))
                return out
            kind = m.lastgroup or ""
            size = begins.get(kind)
            if size is None:  # a raw block
                return None
            text = m.group(1)
            begin = m.group(kind)
            sign = begin[size:]  # the whitespace control after the delimiter: "-", "+" or ""
            newlines_stripped = 0
            if sign == "-":
                stripped = text.rstrip()
                newlines_stripped = text[len(stripped) :].count("\n")
                text = stripped
            elif sign != "+" and lstrip and kind != jl.TOKEN_VARIABLE_BEGIN:
                l_pos = text.rfind("\n") + 1
                if (l_pos > 0 or line_starting) and whitespace.fullmatch(text, l_pos):
                    text = text[:l_pos]
            if text:
                append(new(FastToken, (lineno, jl.TOKEN_DATA, text)))
            lineno += text.count("\n") + newlines_stripped
            lineno += begin.count("\n")
            pos = m.end()
            if kind == jl.TOKEN_COMMENT_BEGIN:
                m = comment.match(source, pos)
                if m is None:
                    return None  # "Missing end of comment tag"
                lineno += m.group(1).count("\n") + m.group(2).count("\n")
                line_starting = m.group()[-1:] == "\n"
                pos = m.end()
                continue
            state = tags.get(kind)
            if state is None:
                return None
            append(new(FastToken, (lineno, kind, begin)))
            with_end, without_end = state
            balancing: list[str] = []
            while True:
                m = (without_end if balancing else with_end).match(source, pos)
                if m is None:
                    return None  # a character no rule matches, or the template ends inside the tag
                token = m.lastgroup
                start, end = m.span(token)  # type: ignore[arg-type]
                if start != pos:  # the whitespace before the token
                    lineno += source.count("\n", pos, start)
                data = source[start:end]
                pos = end  # the token is the end of the match
                if token == jl.TOKEN_NAME:
                    if not data.isidentifier():
                        return None  # "Invalid character in identifier"
                    append(new(FastToken, (lineno, token, data)))
                elif token == jl.TOKEN_OPERATOR:
                    if data in _OPEN:
                        balancing.append(_OPEN[data])
                    elif data in _CLOSE and (not balancing or balancing.pop() != data):
                        return None  # "unexpected '}'"
                    append(new(FastToken, (lineno, operators[data], data)))
                elif token == jl.TOKEN_STRING:
                    try:
                        value = data[1:-1].encode("ascii", "backslashreplace").decode("unicode-escape")
                    except Exception:
                        return None
                    append(new(FastToken, (lineno, token, value)))
                    lineno += data.count("\n")
                elif token == jl.TOKEN_INTEGER:
                    try:
                        append(new(FastToken, (lineno, token, int(data.replace("_", ""), 0))))
                    except ValueError:
                        return None
                elif token == jl.TOKEN_FLOAT:
                    try:
                        append(new(FastToken, (lineno, token, literal_eval(data.replace("_", "")))))
                    except (ValueError, SyntaxError):
                        return None
                elif token == end_of(kind):
                    append(new(FastToken, (lineno, token, data)))
                    lineno += data.count("\n")
                    line_starting = data[-1:] == "\n"
                    break
                else:
                    return None


_LEXERS: dict[tuple[Any, ...], FastLexer] = {}


def fast_lexer(environment: Any) -> FastLexer:
    """The environment's lexer, one per lexing configuration (as jinja2's ``get_lexer`` keeps its own)."""
    key = (
        environment.block_start_string,
        environment.block_end_string,
        environment.variable_start_string,
        environment.variable_end_string,
        environment.comment_start_string,
        environment.comment_end_string,
        environment.line_statement_prefix,
        environment.line_comment_prefix,
        environment.trim_blocks,
        environment.lstrip_blocks,
        environment.newline_sequence,
        environment.keep_trailing_newline,
    )
    found = _LEXERS.get(key)
    if found is None:
        found = _LEXERS[key] = FastLexer(environment)
    return found
