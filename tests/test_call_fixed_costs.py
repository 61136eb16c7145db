"""The shortcuts of a call's fixed costs (issue 19, small calls) agree with the general paths they skip:
a raw markup of one shared stretch, the compiled pre-check kept on its validator, the separators' markup,
the repairs list made at the first repair, and logging asked at every call."""

from __future__ import annotations

import json
import logging
from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse import StreamParser
from streamparse.core.parts import SMALL_JOIN, Parts, RawText
from streamparse.events import ToolCallEnd
from streamparse.tools import ToolSet

TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}]


def _raw_text(pieces: list[tuple[str, str, bool]]) -> tuple[RawText, str]:
    """A RawText of ``(markup, shared argument text, escaped)`` steps, and the markup it stands for."""
    args = Parts()
    raw = RawText(args)
    expected = []
    for markup, shared, escaped in pieces:
        if markup:
            raw.append(markup)
            expected.append(markup)
        if shared:
            raw.share(escaped)
            value = json.dumps(shared)[1:-1] if escaped else shared
            args.append(value)
            expected.append(shared if escaped else value)
    return raw, "".join(expected)


@settings(max_examples=150, deadline=None)
@given(
    before=st.text(max_size=40),
    shared=st.text(min_size=1, max_size=40),
    after=st.text(max_size=40),
    escaped=st.booleans(),
    long_markup=st.booleans(),
)
def test_raw_markup_of_one_shared_stretch_is_the_general_join(
    before: str, shared: str, after: str, escaped: bool, long_markup: bool
) -> None:
    """One stretch (a small call's commonest markup) is cut around in one step; the literal text past
    SMALL_JOIN takes the general path: both give the markup, with or without the arguments' text given."""
    if long_markup:
        before += "x" * (SMALL_JOIN + 1)
    raw, expected = _raw_text([(before, shared, escaped), (after, "", False)])
    assert raw.join() == expected
    assert len(raw.spans) == 4  # (the stretch closed by the join)
    assert raw.join(raw.args.join()) == expected


@pytest.mark.parametrize("escaped", [False, True])
def test_raw_markup_of_several_stretches_is_unchanged(escaped: bool) -> None:
    steps = [("<a>", 'x"1', escaped), ("<b>", "y\n2", not escaped), ("</c>", "", False)]
    raw, expected = _raw_text(steps)
    assert raw.join() == expected and len(raw.spans) == 8


def test_parts_make_their_levels_at_the_first_carry() -> None:
    parts = Parts()
    assert parts.levels == () and not parts and parts.pieces() == [] and parts.join() == ""
    pieces = [str(i) for i in range(100)]
    for piece in pieces:
        parts.append(piece)
    assert isinstance(parts.levels, list) and isinstance(parts.sizes, list)
    assert parts and parts.join() == "".join(pieces)


def test_the_compiled_pre_check_is_looked_up_once_per_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    import streamparse.schema_fast as schema_fast

    looked_up = []
    original = schema_fast.compiled_for

    def counting(validator: object) -> object:
        looked_up.append(validator)
        return original(validator)

    monkeypatch.setattr(schema_fast, "compiled_for", counting)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "title": "fixed costs, once"}}}
    tools = ToolSet([{"name": "f", "parameters": schema}, {"name": "g", "parameters": schema}])
    for _ in range(3):
        assert tools.validate("f", {"n": 1}) is None
        assert tools.validate("g", {"n": 2}) is None
        assert tools.validate("f", {"n": "x"}) == "$.n: 'x' is not of type 'integer'"
    assert len(looked_up) == 1  # (the two tools share one validator)


@pytest.mark.parametrize(
    "schema, compiled",
    [
        ({"type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}}}, False),
        ({"type": "object", "properties": {"n": {"type": "integer", "multipleOf": -2}}}, False),  # a bad schema
        ({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}, True),
    ],
)
def test_validation_with_or_without_a_compiled_pre_check_is_jsonschemas(
    schema: dict[str, object], compiled: bool
) -> None:
    tools = ToolSet([{"name": "f", "parameters": schema}])
    validator: Any = tools._validators["f"]
    arguments: list[dict[str, object]] = [{}, {"n": 4}, {"n": "x"}, {"a": 1}]
    validator.fast = False  # no pre-check: jsonschema alone
    expected = [tools.validate("f", a) for a in arguments]
    validator.fast = None  # looked up again at the next call, then kept
    assert [tools.validate("f", a) for a in arguments] == expected
    assert (validator.fast is not False) == compiled
    assert [tools.validate("f", a) for a in arguments] == expected


_CHANNEL_SLOTS = ("lead", "held", "long", "released", "join", "gap", "idle")


@pytest.mark.parametrize(
    "held, long, idle, lead", list(product(["", " ", "\n\t"], [False, True], [False, True], [False, True]))
)
def test_the_separators_markup_is_each_channels_markup(held: str, long: bool, idle: bool, lead: bool) -> None:
    from streamparse.states.separators import Separators, _Channel

    def prime(channel: _Channel, gap: str) -> None:
        channel.held, channel.long, channel.idle, channel.lead, channel.gap = held, long, idle, lead, gap

    fast, slow = Separators(), Separators()
    for seps, gap in product((fast, slow), ("", " ")):
        prime(seps, gap)
        prime(seps._reasoning, gap)
    fast.markup()
    _Channel.markup(slow)
    _Channel.markup(slow._reasoning)
    for a, b in ((fast, slow), (fast._reasoning, slow._reasoning)):
        assert [getattr(a, s) for s in _CHANNEL_SLOTS] == [getattr(b, s) for s in _CHANNEL_SLOTS]


def test_repairs_are_a_fresh_list_on_every_call() -> None:
    parser = StreamParser(formats=["hermes"], tools=TOOLS)
    text = (
        '<tool_call>\n{"name": "f", "arguments": {"a": 1,}}\n</tool_call>\n'
        + '<tool_call>\n{"name": "f", "arguments": {"a": 2}}\n</tool_call>\n'
    )
    events = parser.feed(text) + parser.close()
    calls = [e.call for e in events if isinstance(e, ToolCallEnd)]
    assert [type(c.repairs) for c in calls] == [list, list]
    assert calls[0].repairs and calls[1].repairs == []
    assert calls[0].repairs is not calls[1].repairs
    assert parser.stats.repairs == {kind: 1 for kind in calls[0].repairs}


def test_telemetry_lines_are_logged_when_debug_logging_is_switched_on_later(caplog: pytest.LogCaptureFixture) -> None:
    """The logger is asked at every call: switching debug logging on mid-stream logs the next verdicts."""
    parser = StreamParser(formats=["hermes"], tools=TOOLS)
    call = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\n'
    with caplog.at_level(logging.INFO, logger="streamparse"):
        parser.feed(call)
    assert not [r for r in caplog.records if "accepted" in r.getMessage()]
    with caplog.at_level(logging.DEBUG, logger="streamparse"):
        parser.feed(call)
        parser.feed('<tool_call>\n{"name": "f", "arguments": {"a": "x"}}\n</tool_call>\n')
        parser.close()
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert lines == [
        "call f accepted: format=hermes fallback_used=False repairs=[] validation=pass",
        "call 'f' rejected: reason=schema_violation format=hermes fallback_used=False "
        "detail=$.a: 'x' is not of type 'integer'",
    ]
