"""``formats.declare`` + ``formats.register``: a format added by its markers and body kind behaves as the
built-in ones (every chunking, rejections, life cycle, snapshots), in ``formats=[...]`` and, opted in,
in ``formats="auto"``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from invariants import calls, check_stream, reasons

from streamparse import StreamParser, formats, parse
from streamparse.cli.main import main as cli_main

TOOLS = {"get_time": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}

SPECS: dict[str, dict[str, Any]] = {
    "acme_json": {"open": "<<call>>", "close": "<</call>>", "body": "json_object"},
    "acme_early": {"open": "[[ACME]]", "close": None, "body": "json_object"},
    "acme_args": {"open": "@@call ", "close": "@@end", "body": "json_args", "name_end": ":"},
    "acme_tags": {
        "open": "<acme:call name=",
        "close": "</acme:call>",
        "body": "tag_params",
        "param_open": "<acme:arg name=",
        "param_end": ">",
        "param_close": "</acme:arg>",
    },
}


@pytest.fixture
def registered() -> Iterator[dict[str, formats.FormatSpec]]:
    specs = {name: formats.register(formats.declare(name, **kw)) for name, kw in SPECS.items()}
    try:
        yield specs
    finally:
        for name in specs:
            formats.unregister(name)


@pytest.mark.parametrize("name", list(SPECS))
def test_a_declared_format_parses_its_example_under_every_chunking(
    registered: dict[str, formats.FormatSpec], name: str
) -> None:
    text = "Sure. " + registered[name].example + " Done."
    result = check_stream(text, formats=[name], tools=TOOLS)
    assert calls(result) == [("get_time", {"zone": "UTC"})]
    assert result.tool_calls[0].format == name
    assert result.text.startswith("Sure. ") and "Done." in result.text
    assert [s.status for s in result.snapshots] == ["complete"]


@pytest.mark.parametrize("name", list(SPECS))
def test_a_declared_format_rejects_like_the_built_in_ones(registered: dict[str, formats.FormatSpec], name: str) -> None:
    example = registered[name].example
    unknown = check_stream(example.replace("get_time", "rm_rf"), formats=[name], tools=TOOLS)
    assert reasons(unknown) == ["unknown_tool"] and not unknown.rejected[0].started
    cut = check_stream(example[: len(example) - 3], formats=[name], tools=TOOLS)
    assert reasons(cut) in (["truncated"], ["malformed"]) and not cut.tool_calls
    invalid = check_stream(example.replace("zone", "zone_x"), formats=[name], tools=TOOLS)
    assert reasons(invalid) == ["schema_violation"] and invalid.rejected[0].started


def test_a_registered_format_is_off_in_auto_unless_opted_in(registered: dict[str, formats.FormatSpec]) -> None:
    example = registered["acme_json"].example
    assert parse(example).tool_calls == []
    formats.unregister("acme_json")
    formats.register(formats.declare("acme_json", **SPECS["acme_json"]), auto=True)
    assert "acme_json" in formats.resolve("auto")
    assert calls(check_stream("Hi " + example, formats="auto")) == [("get_time", {"zone": "UTC"})]


def test_registering_twice_or_removing_a_built_in_is_refused(registered: dict[str, formats.FormatSpec]) -> None:
    with pytest.raises(ValueError, match="already"):
        formats.register(formats.declare("acme_json", open="<x>", close="</x>"))
    with pytest.raises(ValueError, match="already"):
        formats.register(formats.get("hermes"))
    with pytest.raises(ValueError, match="built-in"):
        formats.unregister("hermes")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"open": " ", "close": "</x>"}, "open"),
        ({"open": "<x>", "close": "<x>"}, "differ"),
        ({"open": "<x>", "close": None, "body": "tag_params"}, "close"),
        ({"open": "<x>", "close": "</x>", "body": "yaml"}, "body"),
    ],
)
def test_an_invalid_declaration_raises_at_once(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        formats.declare("acme_bad", **kwargs)
    with pytest.raises(ValueError, match="name"):
        formats.declare("Bad Name", open="<x>", close="</x>")


def test_a_declared_format_is_listed_and_described(
    registered: dict[str, formats.FormatSpec], capsys: pytest.CaptureFixture[str]
) -> None:
    assert "acme_tags" in formats.names()
    from streamparse.parser import describe

    assert describe("acme_tags")["parses_to"] == [{"name": "get_time", "arguments": {"zone": "UTC"}}]
    assert cli_main(["formats"]) == 0
    assert "acme_tags" in capsys.readouterr().out


def test_re_registering_a_name_uses_the_new_markers() -> None:
    first = formats.register(formats.declare("acme_swap", open="<<a>>", close="<</a>>"))
    try:
        assert parse(first.example, formats=["acme_swap"]).tool_calls
    finally:
        formats.unregister("acme_swap")
    second = formats.register(formats.declare("acme_swap", open="<<b>>", close="<</b>>"))
    try:
        assert parse(first.example, formats=["acme_swap"]).tool_calls == []
        assert StreamParser(formats=["acme_swap"]).formats == ("acme_swap",)
        assert parse(second.example, formats=["acme_swap"]).tool_calls
    finally:
        formats.unregister("acme_swap")
