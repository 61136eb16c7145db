"""The one-expression-per-tag lexer (streamparse.derive.lexer) gives jinja2's token stream, token for token,
and jinja2's error wherever jinja2 raises one: on every template here (and every ``*.jinja`` under
``$STREAMPARSE_TEMPLATES`` when set: the real templates are never committed), on a snippet with every kind of
token and whitespace control, and on template snippets drawn by hypothesis."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from jinja2.exceptions import TemplateSyntaxError
from jinja2.lexer import Lexer, Token

from streamparse.derive.lexer import SUPPORTED, FastLexer, FastToken, fast_lexer
from streamparse.derive.render import Limits, _Budget, _environments

HERE = Path(__file__).parent
TEMPLATES = sorted((HERE / "data" / "invented").glob("*.jinja"))
if os.environ.get("STREAMPARSE_TEMPLATES"):
    TEMPLATES += sorted(Path(os.environ["STREAMPARSE_TEMPLATES"]).glob("**/*.jinja"))

EVERY_TOKEN = """\
{#- a comment
over lines -#}   {# kept #}
  {%- set x = 1_000 + 0x1F - 0o17 * 0b101 / 2.5e-3 // 1_0.5 % 3 ** 2 ~ 'a\\'b\\n\\u00e9' ~ "c\\"d" -%}
\t{% if x is defined and not (x in [1, 2]) or {'k': (1,)} != x >= 3 <= 4 < 5 > 6 == 7 %}
    {{- x | default("-") }}{{ {'a': {'b': 1}} }}{{ x.y[0]['z'] }}{{+ x +}}
  {%+ endif %}
{% for a, b in items | dictsort if a recursive %}{{ loop.index }}{% else %}none{% endfor +%}
  {%- macro m(p=none, q=true, r=False) -%}{{ caller() }}{%- endmacro %}  \r\n\ttext\r{{ "é" ~ 'ünïcode' ~ naïve }}
{{ x -}}   \n  {%- raw -%} not {{ lexed }} {%- endraw %}{{ 'after raw' }}
"""


def _tokens(tokenize: Any, source: str) -> list[Any] | tuple[str, str, int | None]:
    """The whole token stream, or the error jinja2's parser would see at that point."""
    try:
        return list(tokenize(source, None, None))
    except TemplateSyntaxError as exc:
        return ("error", exc.message or "", exc.lineno)


def _lexer() -> FastLexer:
    env, _ = _environments([_Budget(Limits())])
    lexer = env.lexer
    assert isinstance(lexer, FastLexer)  # the environment uses it
    assert lexer._fast == SUPPORTED  # on its fast path with the jinja2 it was written against
    return lexer


LEXER = _lexer()


def _same(source: str) -> list[Any] | tuple[str, str, int | None]:
    mine = _tokens(LEXER.tokenize, source)
    assert mine == _tokens(lambda *a: Lexer.tokenize(LEXER, *a), source)
    return mine


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_every_template_lexes_to_jinja2s_tokens_on_the_fast_path(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    if SUPPORTED:
        assert LEXER._tokens(source) is not None  # no fallback: the fast path itself is what is compared
    assert _same(source)


def test_every_kind_of_token_and_whitespace_control() -> None:
    body = EVERY_TOKEN.split("{%- raw")[0]
    assert (LEXER._tokens(body) is not None) == SUPPORTED
    tokens = _same(body)
    kinds = {t.type for t in tokens}  # type: ignore[union-attr]
    for kind in ("data", "name", "string", "integer", "float", "block_begin", "variable_end", "lbrace", "pow"):
        assert kind in kinds
    # A raw block goes to jinja2's own lexer, whose tokens the stream then is.
    assert LEXER._tokens(EVERY_TOKEN) is None
    assert _same(EVERY_TOKEN)


@pytest.mark.parametrize(
    "source",
    [
        "{{ x }",  # ends inside the tag
        "{{ x ) }}",  # an unbalanced bracket
        "{{ (x] }}",  # the wrong closing bracket
        "{{ x $ }}",  # a character no rule matches
        "{# never closed",
        "{{ 'bad \\N{nope}' }}",  # a string escape Python refuses
        "{{ a·b }}{{ ·x }}",  # name characters that are not an identifier
        "{% raw %} never closed",
        "{{ {'a': 1}}}{{ [1]}}}",  # closing braces right before the end of the tag
        "x\n" * 3 + "{{\n'a\nb'\n}}\n{%\n-%}",  # line numbers across newlines in tags and strings
    ],
)
def test_errors_and_edge_cases_are_jinja2s(source: str) -> None:
    _same(source)


def test_an_environment_configured_otherwise_or_another_jinja2_is_left_to_jinja2(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from jinja2 import Environment

    from streamparse.derive import lexer as module

    monkeypatch.setattr(module, "SUPPORTED", False)  # a jinja2 other than the 3.1 this lexer follows
    other = FastLexer(_environments([_Budget(Limits())])[0])
    assert not other._fast
    assert list(other.tokenize(EVERY_TOKEN)) == list(Lexer.tokenize(other, EVERY_TOKEN))

    for options in ({"line_statement_prefix": "#"}, {"newline_sequence": "\r\n"}):
        lexer = fast_lexer(Environment(**options))  # type: ignore[arg-type]
        assert not lexer._fast
        source = "# if x\n{{ x }}\r\n# endif\n"
        assert list(lexer.tokenize(source)) == list(Lexer.tokenize(lexer, source))


FRAGMENTS = st.sampled_from(
    [
        "{{", "}}", "{%", "%}", "{#", "#}", "-", "+", " ", "  ", "\n", "\r\n", "\r", "\t", "\u00a0", "\x0b",
        "x", "if", "endif", "for", "in", "set", "raw", "endraw", "é", "·", "_a1", "1", "0", "1_0", "0x1f", "0b2",
        "1.5", ".5", "1e3", "2.5e-3", "'s'", '"d"', "'\\n'", "'\\'", "\"\\u00e9\"", "'", '"', "(", ")", "[", "]",
        "{", "}", ",", ":", ".", "|", "~", "*", "**", "/", "//", "%", "=", "==", "!=", "<", "<=", ">", ">=", ";",
        "$", "?", "@", "abc\n", "text ",
    ]
)  # fmt: skip


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FRAGMENTS, max_size=40).map("".join))
@example("{%- if x -%}\n  {{ y }}\n{% endif %}")
@example("  {% x %}\n  {%+ y %}  {#- c #}\n\t{{- z +}}")
def test_generated_snippets_lex_as_jinja2_lexes_them(source: str) -> None:
    _same(source)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["{{", "{{-", "{{+", "{%", "{%-", "{%+", "{#", "{#-"]),
            st.lists(FRAGMENTS.filter(lambda f: not f.startswith(("{", "}", "%", "#"))), max_size=8).map("".join),
            st.sampled_from(["}}", "-}}", "+}}", "%}", "-%}", "+%}", "#}", "-#}"]),
            st.text(st.sampled_from(" \t\nab\u00a0"), max_size=6),
        ).map("".join),
        max_size=8,
    ).map("".join)
)
def test_generated_tags_lex_as_jinja2_lexes_them(source: str) -> None:
    _same(source)


EXPRESSIONS = st.one_of(
    st.sampled_from(["name", "name:endif", "name:in", "block_end", "integer:1", "string:a:b", ":", "name:", ""]),
    st.text(st.sampled_from("name:ifx1"), max_size=8),
    st.tuples(st.sampled_from(["name:in", ":"])),  # jinja2's parser passes a tuple once (is_tuple_end)
)


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(["name", "string", "integer", "block_end", "data", ":", "name:in"]),
    st.one_of(st.sampled_from(["endif", "in", "1", "a:b", ""]), st.integers(0, 2), st.floats(allow_nan=True)),
    st.lists(EXPRESSIONS, max_size=4),
)
def test_token_tests_answer_as_jinja2s(kind: str, value: Any, expressions: list[Any]) -> None:
    fast, token = FastToken(1, kind, value), Token(1, kind, value)
    assert fast == token

    def outcome(test: Any, *exprs: Any) -> Any:
        try:
            return test(*exprs)
        except Exception as exc:  # (":",) makes jinja2's own test raise: the same error then
            return type(exc)

    for expr in expressions:
        assert outcome(fast.test, expr) == outcome(token.test, expr)
    assert outcome(fast.test_any, *expressions) == outcome(token.test_any, *expressions)
