"""Every structure of the declaration vocabulary, compiled onto the engine: parsed whole, per character,
per byte and in random chunks (tests/invariants.py), and failing closed (truncated, malformed, unknown
tool, schema violation)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from declared_examples import EXAMPLES, TOOLS, Example
from invariants import calls, check_stream, reasons, released_after_each_char

from streamparse import formats


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    for ex in EXAMPLES.values():
        formats.register(ex.decl)
    try:
        yield
    finally:
        for ex in EXAMPLES.values():
            formats.unregister(ex.decl.name)


def _check(ex: Example, text: str, **extra: object) -> object:
    options = {"formats": [ex.decl.name], "tools": TOOLS, **dict(ex.options), **extra}
    return check_stream(text, **options)


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_a_structure_parses_its_calls_under_every_chunking(key: str) -> None:
    ex = EXAMPLES[key]
    result = _check(ex, ex.output)
    assert calls(result) == ex.calls  # type: ignore[arg-type]
    assert result.text == ex.text  # type: ignore[attr-defined]
    assert result.reasoning == ex.reasoning  # type: ignore[attr-defined]
    assert not result.rejected  # type: ignore[attr-defined]
    assert all(c.format == ex.decl.name for c in result.tool_calls)  # type: ignore[attr-defined]
    assert [s.status for s in result.snapshots] == ["complete"] * len(ex.calls)  # type: ignore[attr-defined]


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_a_structure_parses_without_tools_too(key: str) -> None:
    ex = EXAMPLES[key]
    result = _check(ex, ex.output, tools=None)
    got = calls(result)  # type: ignore[arg-type]
    assert [name for name, _ in got] == [name for name, _ in ex.calls]
    # Untyped text values stay text without a schema (text-value rule); typed ones are read as typed.
    assert [{k: str(v) for k, v in a.items()} for _, a in got] == [
        {k: str(v) for k, v in a.items()} for _, a in ex.calls
    ]


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_an_unknown_tool_is_rejected(key: str) -> None:
    ex = EXAMPLES[key]
    result = _check(ex, ex.output.replace("get_weather", "rm_rf"))
    assert "unknown_tool" in reasons(result)  # type: ignore[arg-type]
    assert "rm_rf" not in result.text  # type: ignore[attr-defined]


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_a_schema_violation_is_rejected(key: str) -> None:
    ex = EXAMPLES[key]
    result = _check(ex, ex.output.replace("city", "town"))
    assert reasons(result)[0] == "schema_violation"  # type: ignore[arg-type]
    assert "town" not in result.text  # type: ignore[attr-defined]


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_a_call_cut_by_the_end_of_the_stream_is_never_returned(key: str) -> None:
    ex = EXAMPLES[key]
    first = ex.output.index("get_weather")
    for cut in range(first, ex.output.index("Paris") + 6, 3):  # all inside the first call
        result = _check(ex, ex.output[:cut])
        assert not result.tool_calls, cut  # type: ignore[attr-defined]
        assert "get_weather" not in result.text, cut  # type: ignore[attr-defined]


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_malformed_arguments_are_rejected_and_hidden(key: str) -> None:
    ex = EXAMPLES[key]
    first = ex.output.index("get_weather")
    # Break the first argument value or its key: JSON loses its quote, tags get stray text.
    if '"city": "Paris"' in ex.output:
        broken = ex.output.replace('"city": "Paris"', '"city": Paris"', 1)
    else:
        broken = ex.output[:first] + ex.output[first:].replace("days", "da<<ys", 1)
    result = _check(ex, broken)
    assert reasons(result)[:1] in (["malformed"], ["schema_violation"]), reasons(result)  # type: ignore[arg-type]
    assert "get_weather" not in result.text  # type: ignore[attr-defined]


def test_every_spelling_of_an_opener_is_read_the_same_way() -> None:
    ex = EXAMPLES["json_fields"]
    result = _check(ex, ex.output.replace("<<call>>", "<<fn>>"))
    assert calls(result) == ex.calls  # type: ignore[arg-type]
    sep = EXAMPLES["section_separator"]
    result = _check(sep, sep.output.replace("<cs>", "<calls>"))
    assert calls(result) == sep.calls  # type: ignore[arg-type]


def test_a_declared_json_list_holds_only_calls() -> None:
    ex = EXAMPLES["name_is_key"]
    two_keys = ex.output.replace('{"now": {}}', '{"now": {}, "later": {}}')
    result = _check(ex, two_keys)
    assert calls(result)[:1] == ex.calls[:1]  # type: ignore[index]
    assert reasons(result) == ["malformed"]  # type: ignore[arg-type]
    empty = _check(ex, ex.output.replace('{"now": {}}', "{}"))
    assert reasons(empty) == ["malformed"]  # type: ignore[arg-type]


@pytest.mark.parametrize("key", [k for k, ex in EXAMPLES.items() if ex.output.startswith("Sure. ")])
def test_text_before_a_declared_call_is_released_before_the_call_arrives(key: str) -> None:
    ex = EXAMPLES[key]
    released = released_after_each_char(ex.output, formats=[ex.decl.name], tools=TOOLS)
    # Once "Sure." is in, it is out: no declared opener starts with "Sure.".
    assert released[len("Sure.") - 1].startswith("Sure.")
