"""Python-literal tool calls (pythonic, gemma tool_code, Olmo 3) and the incremental end tracker."""

from __future__ import annotations

import ast
import contextlib
import json
import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse.formats.pyliteral import MAX_DEPTH, PyCallTracker, parse_call, parse_call_lines, parse_call_list
from streamparse.formats.pyrequote import read_call

# --- literal kinds ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("'single'", "single"),
        ('"double"', "double"),
        ("'''triple single'''", "triple single"),
        ('"""triple double"""', "triple double"),
        ("''", ""),
        ('""', ""),
        ("''''''", ""),
        ("r'\\d+\\.'", "\\d+\\."),
        ("u'x'", "x"),
        ("'a' \"b\" '''c'''", "abc"),
        ("42", 42),
        ("-7", -7),
        ("+7", 7),
        ("1_000_000", 1000000),
        ("0", 0),
        ("0x1F", 31),
        ("0o17", 15),
        ("0b101", 5),
        ("3.25", 3.25),
        ("-0.5", -0.5),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e3", 1000.0),
        ("2.5E-2", 0.025),
        ("1_0.0_1", 10.01),
        ("True", True),
        ("False", False),
        ("None", None),
        ("true", True),
        ("false", False),
        ("null", None),
        ("[]", []),
        ("[1, 'a', None]", [1, "a", None]),
        ("[1, 2,]", [1, 2]),
        ("()", []),
        ("(1,)", [1]),
        ("(1, 2)", [1, 2]),
        ("(7)", 7),
        ("{}", {}),
        ("{'a': 1, \"b\": [True]}", {"a": 1, "b": [True]}),
        ("{'a': 1,}", {"a": 1}),
        ("{1: 'one', -2: 'minus two'}", {"1": "one", "-2": "minus two"}),
        ("{'k': 1, 'k': 2}", {"k": 2}),
    ],
)
def test_literal_value_is_read_as_python_would(literal: str, expected: Any) -> None:
    name, args = parse_call(f"f(x={literal})")
    assert name == "f"
    assert args == {"x": expected}
    assert type(args["x"]) is type(expected)


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        (r"'a\nb'", "a\nb"),
        (r"'a\tb'", "a\tb"),
        (r"'a\\b'", "a\\b"),
        (r"'it\'s'", "it's"),
        (r'"say \"hi\""', 'say "hi"'),
        (r"'\u00e9'", "é"),
        (r"'\U0001F600'", "😀"),
        (r"'\ud83d\ude00'", "😀"),
        (r"'\x41'", "A"),
        (r"'\101'", "A"),
        (r"'\0'", "\0"),
        (r"'\N{BLACK STAR}'", "★"),
        (r"'\r\a\b\f\v'", "\r\a\b\f\v"),
        (r"'\d'", "\\d"),
        ("'line\\\ncontinued'", "linecontinued"),
        ("'''two\nlines'''", "two\nlines"),
        ("'raw\nnewline'", "raw\nnewline"),
        ('"it\'s"', "it's"),
        ("'say \"hi\"'", 'say "hi"'),
        ("'''it's \"quoted\" '' here'''", "it's \"quoted\" '' here"),
    ],
)
def test_string_escapes_and_quotes_decode_like_python(literal: str, expected: str) -> None:
    assert parse_call(f"f(s={literal})") == ("f", {"s": expected})


def test_cjk_and_emoji_survive_unchanged() -> None:
    assert parse_call("查询(城市='東京', mood=\"😀🎉\", note='''한국어''')") == (
        "查询",
        {"城市": "東京", "mood": "😀🎉", "note": "한국어"},
    )


def test_nested_structures_become_json_values() -> None:
    name, args = parse_call("f(a={'x': [1, (2, 3), {'y': ({'z': None},)}]}, b=[[[]]])")
    assert args == {"a": {"x": [1, [2, 3], {"y": [{"z": None}]}]}, "b": [[[]]]}
    assert json.loads(json.dumps(args)) == args


def test_zero_argument_call_and_trailing_comma() -> None:
    assert parse_call("ping()") == ("ping", {})
    assert parse_call("  ping( a = 1 , )  \n") == ("ping", {"a": 1})


def test_dotted_and_hyphenated_names_are_returned_as_written() -> None:
    assert parse_call("default_api.lookup_order(order_id='A-1001')") == (
        "default_api.lookup_order",
        {"order_id": "A-1001"},
    )
    assert parse_call("get-weather(city='Oslo')")[0] == "get-weather"


# --- rejection ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "f(1)",  # positional
        "f('x', a=1)",
        "f(a=1, 2)",
        "f(a=b)",  # a name as a value
        "f(a=x.y)",  # attribute access
        "f(a=1+2)",
        "f(a=-x)",
        "f(a=g(1))",
        "f(a=[x for x in y])",
        "f(a={1.5: 'x'})",  # float key
        "f(a={True: 'x'})",  # bool key
        "f(a={None: 'x'})",
        "f(a={(1,): 'x'})",
        "f(a=1, a=2)",  # repeated keyword
        "f(**kw)",
        "f(a=b'bytes')",
        "f(a=f'{x}')",
        "f(a=1j)",
        "f(a=1__0)",
        "f(a=1e999)",  # overflows to inf: not JSON
        "f(a=nan)",
        "f(a=inf)",
        "f(a='unterminated)",
        "f(a='''unterminated')",
        "f(a=1",
        "f(a=[1, 2)",
        "f(a=[1 2])",
        "f(a=[,])",
        "f(a=(,))",
        "f(a={'k': })",
        "f(a=)",
        "f a=1",
        "f(a=1) extra",
        "f(a=1) f(b=2)",
        "f(a=1); g()",
        "f(a='\\u12')",
        "f(a='\\x4')",
        "f(a='\\N{NO SUCH CHARACTER NAME}')",
        "f(a='\\ud83d')",  # lone surrogate
        "f(a='\\U00110000')",
        "f(a=1 if x else 2)",
        "f(a=lambda: 1)",
        "f(1=2)",
        "",
        "(a=1)",
        "f(a=1)#comment",
        "f(a=" + "9" * 5000 + ")",
    ],
)
def test_anything_but_keyword_literals_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_call(text)


@pytest.mark.parametrize(
    "text",
    [
        "[print(x) for x in y]",
        "[Draft]",
        "[1, 2]",
        "['a', 'b']",
        "[f(a=1) g(b=2)]",
        "[f(a=1),, g(b=2)]",
        "[,]",
        "[f(a=1)",
        "[f(a=1)] trailing",
        "f(a=1)",
        "[f(1)]",
        "[f(a=1), Draft]",
        "[x.y]",
        "",
    ],
)
def test_call_list_rejects_non_call_lists(text: str) -> None:
    with pytest.raises(ValueError):
        parse_call_list(text)


# --- call lists and call lines ---------------------------------------------------------------------------


def test_call_list_reads_every_call_in_order() -> None:
    text = "[set_alarm(label='standup', minutes=15), lookup_order(order_id=\"A-1001\")]"
    assert parse_call_list(text) == [
        ("set_alarm", {"label": "standup", "minutes": 15}),
        ("lookup_order", {"order_id": "A-1001"}),
    ]


def test_call_list_allows_whitespace_newlines_and_a_trailing_comma() -> None:
    text = "\n [\n  a.b(x=1),\n\n  c(y=[1,\n 2]) ,\n]\n"
    assert parse_call_list(text) == [("a.b", {"x": 1}), ("c", {"y": [1, 2]})]


def test_empty_call_list_is_no_calls() -> None:
    assert parse_call_list("[]") == []
    assert parse_call_list(" [ ] ") == []


def test_call_lines_read_one_call_per_line_with_print_wrappers() -> None:
    text = "lookup_order(order_id='A-1')\n\nprint(default_api.set_alarm(minutes=15))\n  print( x(a=[1, 2]) )  \n"
    assert parse_call_lines(text) == [
        ("lookup_order", {"order_id": "A-1"}),
        ("default_api.set_alarm", {"minutes": 15}),
        ("x", {"a": [1, 2]}),
    ]


def test_a_tool_named_print_with_keywords_is_a_call_not_a_wrapper() -> None:
    assert parse_call_lines("print(text='hi')") == [("print", {"text": "hi"})]


def test_call_lines_allow_a_call_spanning_lines() -> None:
    text = "write_file(\n    path='a.py',\n    body='''line 1\nline 2''',\n)\nrun(cmd='ls')"
    assert parse_call_lines(text) == [
        ("write_file", {"path": "a.py", "body": "line 1\nline 2"}),
        ("run", {"cmd": "ls"}),
    ]


def test_blank_call_lines_are_no_calls() -> None:
    assert parse_call_lines("") == []
    assert parse_call_lines(" \n\t\n") == []


@pytest.mark.parametrize(
    "text",
    [
        "f(a=1) g(b=2)",
        "f(a=1); g(b=2)",
        "print(f(a=1)",
        "print(f(a=1), g(b=2))",
        "print(f(1))",
        "x = f(a=1)",
        "Sure, here you go",
        "f(a=1)\nnot a call",
    ],
)
def test_call_lines_reject_anything_but_calls(text: str) -> None:
    with pytest.raises(ValueError):
        parse_call_lines(text)


# --- depth, size -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("opener", ["[", "(", "{'k': "])
def test_deep_nesting_is_a_value_error_not_a_recursion_error(opener: str) -> None:
    closer = {"[": "]", "(": ")", "{'k': ": "}"}[opener]
    text = "f(a=" + opener * 100_000 + "1" + closer * 100_000 + ")"
    with pytest.raises(ValueError, match="nesting"):
        parse_call(text)
    with pytest.raises(ValueError):
        parse_call_list("[" + text + "]")
    with pytest.raises(ValueError):
        parse_call_list("[" * 100_000)


def test_nesting_up_to_the_limit_is_read() -> None:
    text = "f(a=" + "[" * MAX_DEPTH + "]" * MAX_DEPTH + ")"
    value = parse_call(text)[1]["a"]
    depth = 0
    while value:
        value = value[0]
        depth += 1
    assert depth == MAX_DEPTH - 1  # the innermost list is empty


def test_megabyte_string_argument_is_read_whole() -> None:
    body = "abc \\n 'quoted' \\\\ é😀 " * 50_000
    text = f'[write(path="big.txt", body="{body}")]'
    ((name, args),) = parse_call_list(text)
    assert args["body"] == ast.literal_eval(f'"{body}"')
    assert len(text) > 1_000_000


# --- differential: generated literals against ast.literal_eval (a test-only oracle) ---------------------

_json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_identifiers, _json_values, max_size=5))
def test_repr_of_any_json_value_round_trips(args: dict[str, Any]) -> None:
    text = "tool(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"
    name, parsed = parse_call(text)
    assert name == "tool"
    assert parsed == args
    assert parsed == {k: ast.literal_eval(repr(v)) for k, v in args.items()}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="()[]{},:=' \"\\nrxTu1_.-+e#\n", max_size=40))
def test_arbitrary_text_gives_a_value_or_a_value_error(text: str) -> None:
    for parse in (parse_call, parse_call_list, parse_call_lines):
        with contextlib.suppress(ValueError):
            parse(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789_.eExXoObB+-jJ", min_size=1, max_size=12))
def test_numbers_match_python_or_are_rejected(number: str) -> None:
    try:
        expected = ast.literal_eval(number)
    except (ValueError, SyntaxError, TypeError, MemoryError):
        expected = None
    if not isinstance(expected, int | float) or isinstance(expected, complex):
        expected = None
    if isinstance(expected, float) and not math.isfinite(expected):
        expected = None
    if expected is None and re.fullmatch(r"[+-]?0[0-9_]+", number):
        with contextlib.suppress(ValueError):  # zero-padded (``07``): read as the decimal the model means
            expected = int(number, 10)
    try:
        got: Any = parse_call(f"f(n={number})")[1]["n"]
    except ValueError:
        got = None
    assert got == expected


# --- PyCallTracker ----------------------------------------------------------------------------------------


def _feed_pieces(mode: str, pieces: list[str]) -> tuple[int | None, bool, int]:
    """Feed pieces; return (global offset just past the close or None, broken, depth)."""
    tracker = PyCallTracker(mode)  # type: ignore[arg-type]
    done = 0
    for piece in pieces:
        at = tracker.feed(piece)
        if at is not None:
            return done + at, tracker.broken, tracker.depth
        done += len(piece)
    return None, tracker.broken, tracker.depth


def _one_char_pieces(text: str) -> list[str]:
    return list(text)


@pytest.mark.parametrize(
    ("mode", "text", "close"),
    [
        ("list", "[f(a=1)] after", 8),
        ("list", "[f(a='])')] after", 11),
        ("list", '[f(a="])\\"")]x', 13),
        ("list", "[f(a='it\\'s ]')]x", 16),
        ("list", "[f(a='''x'' ]) ''')]x", 20),
        ("list", '[f(a="""x"" ]) """)]x', 20),
        ("list", "[f(a='')]x", 9),
        ("list", "[f(a='''''')]x", 13),
        ("list", "[f(a='''x'''')')]x", 17),
        ("list", "[f(a='a\\\\')]x", 12),
        ("list", "[f(a={'k': [1, (2,)]})]x", 23),
        ("list", "[f(a='東京😀]')]x", 13),
        ("list", "[]", 2),
        ("call", "f(a=1) then", 6),
        ("call", "print(f(a=')'))\n", 15),
        ("call", 'f(a="(")x', 8),
    ],
)
def test_tracker_finds_the_close_outside_strings(mode: str, text: str, close: int) -> None:
    assert _feed_pieces(mode, [text])[0] == close
    assert _feed_pieces(mode, _one_char_pieces(text))[0] == close


@pytest.mark.parametrize(
    ("mode", "text"),
    [
        ("list", "[f(a=1])"),
        ("list", "[f(a=1)}"),
        ("list", "]"),
        ("list", "(f(a=1))"),
        ("call", "f(a=[1)]"),
        ("call", "f)"),
        ("call", "f[a]"),
        ("call", "'f'(a=1)"),
    ],
)
def test_tracker_marks_mismatched_brackets_broken(mode: str, text: str) -> None:
    for pieces in ([text], _one_char_pieces(text)):
        close, broken, _ = _feed_pieces(mode, pieces)
        assert close is None
        assert broken


def test_tracker_reports_depth_and_waits_while_open() -> None:
    tracker = PyCallTracker("list")
    assert tracker.feed("[f(a=[{'k': (") is None
    assert tracker.depth == 5
    assert tracker.feed("'))))'") is None  # inside a string: no change
    assert tracker.depth == 5
    assert tracker.feed(")}])") is None
    assert tracker.depth == 1
    assert not tracker.broken
    assert tracker.feed(", g()]tail") == 6
    assert tracker.closed
    assert tracker.feed("]") is None  # ignored after the close


def test_tracker_handles_a_quote_run_split_across_pieces() -> None:
    tracker = PyCallTracker("list")
    results = [tracker.feed(p) for p in ["[f(a=''", "'x ]) '", "'", "' )", "]"]]
    assert results == [None, None, None, None, 1]
    tracker = PyCallTracker("list")
    assert [tracker.feed(p) for p in ["[f(a='", "'", ")]"]] == [None, None, 2]


def test_tracker_handles_an_escape_split_across_pieces() -> None:
    tracker = PyCallTracker("list")
    assert [tracker.feed(p) for p in ["[f(a='\\", "')]", "')]x"]] == [None, None, 3]


def test_tracker_survives_100k_nesting_linearly() -> None:
    text = "[f(a=" + "[" * 100_000 + "]" * 100_000 + ")]"
    tracker = PyCallTracker("list")
    assert tracker.feed(text[:50_000]) is None
    assert tracker.depth == 50_000 - 5 + 2
    assert tracker.feed(text[50_000:]) == len(text) - 50_000


def test_tracker_rejects_an_unknown_mode() -> None:
    with pytest.raises(ValueError):
        PyCallTracker("tuple")  # type: ignore[arg-type]


@st.composite
def _splits(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@settings(max_examples=300, deadline=None)
@given(st.data(), st.text(alphabet="()[]{}'\"\\ a\n", max_size=40), st.sampled_from(["list", "call"]))
def test_tracker_agrees_on_any_split_of_any_text(data: st.DataObject, text: str, mode: str) -> None:
    whole = _feed_pieces(mode, [text])
    assert _feed_pieces(mode, _one_char_pieces(text)) == whole
    assert _feed_pieces(mode, data.draw(_splits(text))) == whole


@settings(max_examples=200, deadline=None)
@given(st.data(), st.lists(st.dictionaries(_identifiers, _json_values, max_size=3), max_size=3))
def test_tracker_closes_exactly_at_the_end_of_a_generated_call_list(
    data: st.DataObject, calls: list[dict[str, Any]]
) -> None:
    text = "[" + ", ".join("t(" + ", ".join(f"{k}={v!r}" for k, v in c.items()) + ")" for c in calls) + "]"
    tail = data.draw(st.sampled_from(["", " text", "]", "')"]))
    close, broken, _ = _feed_pieces("list", data.draw(_splits(text + tail)))
    assert (close, broken) == (len(text), False)
    assert [args for _, args in parse_call_list(text[:close])] == calls


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.sampled_from(["", "f(a=", "[f(a=", "print(f(a="]))
def test_arbitrary_unicode_gives_a_value_or_a_value_error(text: str, prefix: str) -> None:
    for parse in (parse_call, parse_call_list, parse_call_lines):
        with contextlib.suppress(ValueError):
            parse(prefix + text)
    tracker = PyCallTracker("list")
    for char in prefix + text:
        tracker.feed(char)


# --- what models write that Python does not read (vLLM's LFM2 tests) --------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("set_date(month=07, day=05)", {"month": 7, "day": 5}),
        ("f(a=-007, b=0_9)", {"a": -7, "b": 9}),
        ("f(a=00, b=0)", {"a": 0, "b": 0}),  # valid Python stays as it was
    ],
)
def test_zero_padded_integers_are_read_as_decimal(text: str, expected: dict[str, Any]) -> None:
    assert parse_call(text) == (text.split("(")[0], expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')",
            {"command": "sed -n '360,450p' /testbed/sympy/matrices/common.py"},
        ),
        (
            "bash(command='cd /t && python3 -c \"from s import l\nprint(l(3*x, sym='\\,'))\"')",
            {"command": "cd /t && python3 -c \"from s import l\nprint(l(3*x, sym='\\,'))\""},
        ),
        ('f(a=\'it\'s\', b="say "hi" now")', {"a": "it's", "b": 'say "hi" now'}),
        ("f(a='x 'y' z', b=[1, 'q'])", {"a": "x 'y' z", "b": [1, "q"]}),
    ],
)
def test_an_argument_string_with_unescaped_quotes_of_its_kind_ends_where_an_argument_can_end(
    text: str, expected: dict[str, Any]
) -> None:
    assert read_call(text)[1] == expected


@pytest.mark.parametrize(
    "text",
    [
        "f(a='it's)",  # no quote of its kind can end the string
        "f(a='x' y)",  # the quote before `)` is the first one: nothing to mend
        "f(a=['it's'])",  # inside a list: only an argument's own string is mended
        "f(a='''x''' y)",
        "f(a=r'it's')",  # raw: an escaping backslash would stay in the value
    ],
)
def test_quotes_that_no_argument_boundary_follows_stay_malformed(text: str) -> None:
    with pytest.raises(ValueError):
        read_call(text)


@pytest.mark.parametrize(
    "text",
    ["f(a='x' 'y')", "f(a='it\\'s', b=\"q\")", "f(a='x', b='y')", "f(a='a, b=c')"],
)
def test_valid_python_is_read_as_python(text: str) -> None:
    call = ast.parse(text, mode="eval").body
    assert isinstance(call, ast.Call)
    assert read_call(text)[1] == {k.arg: ast.literal_eval(k.value) for k in call.keywords}
