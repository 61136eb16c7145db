"""The plain-call path (``pyplain.plain_call_json``) against the general reader: a call it takes reads exactly
as ``parse_call`` + ``json.dumps`` read it, and whatever it declines the general reader decides."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse.formats.pyliteral import parse_call
from streamparse.formats.pyplain import plain_call_json
from streamparse.formats.pyrequote import read_call, read_call_json


def _outcome(read: Callable[[str], tuple[str, Any]], text: str) -> tuple[str, str] | str:
    """What a reader makes of ``text``: the name and the arguments as JSON text, or its error."""
    try:
        name, args = read(text)
    except ValueError as exc:
        return f"error: {exc}"
    return name, args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


def _general(text: str) -> tuple[str, str] | str:
    return _outcome(parse_call, text)


def _requoted(text: str) -> tuple[str, str] | str:
    return _outcome(read_call, text)


@pytest.mark.parametrize(
    "text",
    [
        'get_weather(city="Paris")',
        "set_alarm(label='standup', minutes=15)",
        ' lookup_order(order_id="A-1001")',
        "f()",
        "  ping( a = 1 , )  \n",
        "default_api.lookup_order(order_id='A-1001', urgent=True, note=None, n=-3, m=+4, z=0)",
        '查询(城市=\'東京\', mood="😀🎉", q=\'say "hi"\', t="it\'s")',
        'f(x=true, y=false, z=null, s="a\nb\tc")',
    ],
)
def test_the_commonest_calls_take_the_plain_path_and_read_as_the_general_reader_reads_them(text: str) -> None:
    plain = plain_call_json(text)
    assert plain is not None
    assert plain == _general(text)
    assert read_call_json(text) == plain


@pytest.mark.parametrize(
    "text",
    [
        'f(s="a\\nb")',  # an escape
        "f(s=r'raw')",  # a prefix
        "f(s='''triple''')",
        'f(s="a" "b")',  # adjacent literals concatenate
        "f(x=1.5)",
        "f(x=1_000)",
        "f(x=0x1F)",
        "f(x=07)",  # zero-padded: the general reader reads 7
        "f(x=[1, 2])",
        "f(x={'a': 1})",
        "f(x=1, x=2)",  # repeated: the general reader's error
        "f(x=1 y=2)",
        "f(,)",
        "f(1)",
        "f(x=foo)",
        "f(a.b=1)",
        "f(x=1",
        "f(x=1) g()",
        "f(x=12345678901234567890)",  # past the plain digits
        "f(x=Trueish)",
    ],
)
def test_anything_else_is_left_to_the_general_reader(text: str) -> None:
    assert plain_call_json(text) is None
    assert _outcome(read_call_json, text) == _requoted(text)


_WS = st.sampled_from(["", " ", "  ", "\n", "\t", " \n "])
_NAME = st.sampled_from(["f", "get_weather", "default_api.lookup", "a-b", "查询", "_x", "1f", "True", "print"])
_KEY = st.sampled_from(["a", "city", "x", "城市", "_k", "a.b", "1k", "True"])
_VALUE = st.one_of(
    st.sampled_from(
        [
            "0",
            "15",
            "-3",
            "+4",
            "007",
            "1.5",
            "1e3",
            "1_0",
            "0x10",
            "12345678901234567890",
            "True",
            "False",
            "None",
            "true",
            "null",
            "Trueish",
            "foo",
            "''",
            '""',
            "'''a'''",
            '"""b"""',
            "r'x'",
            "[1, 2]",
            "{'a': 1}",
            "'a' 'b'",
            "'it\\'s'",
            '"\\u00e9"',
            "'unterminated",
            "(1,)",
        ]
    ),
    st.text(alphabet=st.sampled_from("ab '\"\\\n,)=é😀"), max_size=8).map(lambda s: f"'{s}'"),
    st.text(alphabet=st.sampled_from("ab '\"\\\n,)=é😀"), max_size=8).map(lambda s: f'"{s}"'),
)
_SEP = st.sampled_from([",", ", ", " ,", "", ",,"])


@st.composite
def _calls(draw: st.DrawFn) -> str:
    parts = [draw(_WS), draw(_NAME), draw(_WS), "(", draw(_WS)]
    for k in range(draw(st.integers(0, 3))):
        if k:
            parts.append(draw(_SEP) + draw(_WS))
        parts += [draw(_KEY), draw(_WS), "=", draw(_WS), draw(_VALUE)]
    if draw(st.booleans()):
        parts.append(draw(_SEP))
    parts += [draw(_WS), draw(st.sampled_from([")", ")", ") x", ""])), draw(_WS)]
    return "".join(parts)


@settings(max_examples=1500, deadline=None)
@given(_calls())
def test_the_plain_path_agrees_with_the_general_reader_on_generated_calls(text: str) -> None:
    plain = plain_call_json(text)
    if plain is not None:
        assert plain == _general(text)
    assert _outcome(read_call_json, text) == _requoted(text)
