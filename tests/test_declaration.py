"""The declaration vocabulary as data: frozen, hashable, JSON round trips (``to_dict`` / ``from_dict``,
``formats.load`` / ``formats.dump``), strict validation with the failing field named."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from declared_examples import EXAMPLES

from streamparse import formats
from streamparse.formats import (
    Call,
    Declaration,
    HeaderName,
    IdSpec,
    JsonArgs,
    JsonName,
    Reasoning,
    Section,
    TaggedArgs,
)


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_every_structure_round_trips_through_json(key: str) -> None:
    decl = EXAMPLES[key].decl
    data = decl.to_dict()
    assert json.loads(json.dumps(data)) == data  # plain JSON data
    assert Declaration.from_dict(data) == decl
    assert formats.load(formats.dump(decl)) == decl
    assert formats.load(data) == decl
    assert hash(formats.load(data)) == hash(decl)


def test_a_declaration_is_frozen_and_comparable() -> None:
    decl = EXAMPLES["header_json"].decl
    with pytest.raises(dataclasses.FrozenInstanceError):
        decl.name = "other"  # type: ignore[misc]
    assert decl == dataclasses.replace(decl)
    assert decl != dataclasses.replace(decl, name="x_other")


def test_defaults_are_left_out_of_the_json_form() -> None:
    data = Declaration("x_min", Call("<c>", "</c>")).to_dict()
    assert data == {"name": "x_min", "call": {"open": "<c>", "close": "</c>"}}


def test_load_reads_a_path_and_dump_writes_one(tmp_path: Path) -> None:
    decl = EXAMPLES["token_framing"].decl
    path = tmp_path / "k.json"
    text = formats.dump(decl, path)
    assert path.read_text(encoding="utf-8").strip() == text
    assert formats.load(path) == decl
    assert formats.load(str(path)) == decl


def _tagged(**arguments: str) -> dict[str, Any]:
    """A declaration whose tagged arguments (``<k>K</k>V</v>``) also take ``arguments``."""
    args = {"kind": "tagged", "open": "<k>", "key_end": "</k>", "close": "</v>", **arguments}
    return {
        "name": "x",
        "call": {"open": "<c>", "close": "</c>", "name": {"kind": "header", "end": ""}, "arguments": args},
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "Bad", "call": {"open": "<c>", "close": "</c>"}}, r"^name: must match"),
        ({"name": "x", "call": {"open": " <c>", "close": "</c>"}}, r"^call\.open: must not start with whitespace"),
        ({"name": "x", "call": {"open": "<c>", "close": "<c>"}}, r"^call\.close: open and close must differ"),
        ({"name": "x", "call": {"open": "<c>", "close": "</c>", "colour": 1}}, r"^call\.colour: unknown field"),
        ({"name": "x", "call": {"open": "<c>"}}, r"^call\.close: is required"),
        ({"name": "x", "call": {"open": "<c>", "close": "</c>", "name": {"kind": "yaml"}}}, r"call\.name\.kind"),
        (
            {
                "name": "x",
                "call": {
                    "open": "<c>",
                    "close": None,
                    "name": {"kind": "header", "end": ">"},
                    "arguments": {"kind": "tagged", "open": "<p=", "key_end": ">", "close": "</p>"},
                },
            },
            r"^call\.close: a call with tagged arguments needs a closer",
        ),
        (
            {
                "name": "x",
                "call": {
                    "open": "<c",
                    "close": None,
                    "name": {"kind": "header", "end": ">", "attribute": "name"},
                    "arguments": {"kind": "elements"},
                },
            },
            r"^call\.close: a call with element-tree arguments needs a closer",
        ),
        (
            {
                "name": "x",
                "call": {
                    "open": "<c",
                    "close": "</c>",
                    "name": {"kind": "header", "end": ">"},
                    "arguments": {"kind": "elements", "noise": " ~"},
                },
            },
            r"^call\.arguments\.noise: must not start with whitespace",
        ),
        (
            {
                "name": "x",
                "call": {"open": "<c", "close": "</c>", "name": {"kind": "header", "end": ">", "namespaced": 1}},
            },
            r"^call\.name\.namespaced",
        ),
        (
            {
                "name": "x",
                "call": {
                    "open": "<c>",
                    "close": "</c>",
                    "name": {"kind": "header", "end": ">"},
                    "arguments": {
                        "kind": "tagged",
                        "open": "<p",
                        "key_end": ">",
                        "close": "</p>",
                        "type_attribute": "type",
                    },
                },
            },
            r"type and string attributes need key_attribute",
        ),
        (_tagged(type_open="<t>"), r"type_close: type_open and type_close are declared together"),
        (
            _tagged(type_open="<t>", type_close="</t>"),
            r"type_open: a type element sits between a key element and value_open",
        ),
        (
            {"name": "x", "call": {"open": "", "close": None}},
            r"^call\.open: a call without an opener needs a section",
        ),
        (
            {"name": "x", "call": {"open": "<c>", "close": "</c>"}, "reasoning": [{"open": "<c>", "close": "</t>"}]},
            r"^reasoning\[0\]\.open: '<c>' is also call\.open",
        ),
        (
            {
                "name": "x",
                "call": {"open": "<c>", "close": "</c>"},
                "reasoning": [{"open": "<t>", "close": "</t>"}],
                "content": {"open": "</t>", "close": None},
            },
            r"^content\.open: '</t>' is also reasoning\[0\]\.close",
        ),
        (
            {
                "name": "x",
                "call": {"open": "<c>", "close": "</c>", "name": {"kind": "header", "end": ">", "suffix_pattern": "("}},
            },
            r"suffix_pattern: is not a regular expression",
        ),
        ({"name": "x", "call": {"open": "<c>", "close": "</c>"}, "auto": "yes"}, r"^auto: must be true or false"),
        (
            {"name": "x", "call": {"open": "<py>", "close": None, "name": {"kind": "python"}}},
            r"call\.name: a Python call list is written between an opener and a closer",
        ),
        (
            {"name": "x", "call": {"open": "<py>", "close": "</py>", "name": {"kind": "python", "strings": "json"}}},
            r"call\.name\.strings: must be one of",
        ),
        (
            {
                "name": "x",
                "call": {"open": "<py>", "close": "</py>", "name": {"kind": "python"}},
                "section": {"open": "<calls>", "close": "</calls>"},
            },
            r"^call\.name: a Python call list is its own section",
        ),
        ("[1, 2]", r"must be an object"),
    ],
)
def test_an_invalid_declaration_names_the_failing_field(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        formats.load(data if isinstance(data, (dict, str)) else data)


def test_load_refuses_text_that_is_not_json_or_a_file() -> None:
    with pytest.raises(ValueError, match="not valid JSON"):
        formats.load("{nope")
    with pytest.raises(ValueError, match="cannot read declaration"):
        formats.load("/nonexistent/decl.json")


def test_the_parts_validate_when_built_directly() -> None:
    with pytest.raises(ValueError, match="must be one of"):
        TaggedArgs("<p", ">", "</p>", key_attribute="name", attribute_escapes="html")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a JSON call object holds its own arguments"):
        Call("<c>", "</c>", JsonName(), JsonArgs("<a>", "</a>"))
    with pytest.raises(ValueError, match="at most one reasoning delimiter pair is primed"):
        Declaration(
            "x",
            Call("<c>", "</c>"),
            reasoning=(Reasoning("<a>", "</a>", primed=True), Reasoning("<b>", "</b>", primed=True)),
        )
    with pytest.raises(ValueError, match="open and close must differ"):
        Section("<s>", "<s>")
    with pytest.raises(ValueError, match="applies to an attribute value only"):
        HeaderName(">", escapes="xml")
    # A name without its own end needs something else to end it: the arguments' opener (a marker, or the
    # `{` of JSON written without one) and the call's closer; a fence is no such opener.
    with pytest.raises(ValueError, match=r"name\.end: empty only when the arguments have an opener"):
        Call("<c>", "</c>", HeaderName(""), JsonArgs(fenced=True))
    with pytest.raises(ValueError, match=r"name\.end: empty only when the arguments have an opener"):
        Call("<c>", None, HeaderName(""), JsonArgs())
    assert Call("<c>", "</c>", HeaderName(""), JsonArgs()).name == HeaderName("")
    with pytest.raises(ValueError, match="a call with tagged arguments needs a closer"):
        Call("<c>", None, HeaderName(""), TaggedArgs("<k>", "</k>", "</v>"))
    with pytest.raises(ValueError, match="an attribute header needs an end marker|must be a non-blank string"):
        Call("<c", "</c>", HeaderName("", attribute="name"), TaggedArgs("<k>", "</k>", "</v>"))
    assert Call("<c>", "</c>", HeaderName(""), JsonArgs("<a>", "</a>")).name == HeaderName("")


def test_declare_takes_a_declaration_its_dict_or_the_keyword_form() -> None:
    decl = EXAMPLES["header_json"].decl
    spec = formats.declare(decl)
    assert spec.name == decl.name and spec.declaration == decl
    assert formats.declare(decl.to_dict()).declaration == decl
    keyword = formats.declare("x_kw", open="<x>", close="</x>", body="json_args", name_end=":")
    assert keyword.declaration == Declaration(
        "x_kw", Call("<x>", "</x>", HeaderName(":"), JsonArgs()), notes="declared format (json_args)"
    )
    with pytest.raises(ValueError, match="not both"):
        formats.declare(decl, open="<y>")


def test_register_takes_a_declaration_and_reads_its_auto_flag() -> None:
    decl = dataclasses.replace(EXAMPLES["header_json"].decl, name="x_auto", auto=True)
    spec = formats.register(decl)
    try:
        assert not spec.opt_in and "x_auto" in formats.resolve("auto")
        assert formats.declaration_of("x_auto") == decl
    finally:
        formats.unregister("x_auto")
    assert formats.declaration_of("hermes") is None


def test_an_id_ends_with_its_own_marker() -> None:
    with pytest.raises(ValueError, match=r"^id\.end: must differ from name\.end"):
        Call("<c>", "</c>", HeaderName("|"), JsonArgs(), id=IdSpec("before_name", "|"))
