"""Values wrapped in ``<![CDATA[...]]>`` (``Values(cdata=True)``; MiniCPM5's template wraps text holding
``<``, ``&`` or a newline): the wrapper is removed and its content is the value, every character of it,
under every chunking; without the declaration the wrapper is text of the value."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import byte_pieces, random_pieces

from streamparse import StreamParser, formats
from streamparse.events import Event, ParseResult, merge_events
from streamparse.formats import Declaration, Values

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}, "n": {"type": "integer"}, "tags": {"type": "array"}},
            },
        },
    }
]


def events(text: str, pieces: list[Any]) -> list[Event]:
    parser = StreamParser(formats=["minicpm5"], tools=TOOLS)
    out: list[Event] = []
    for piece in pieces:
        out.extend(parser.feed(piece))
    return out + parser.close()


def arguments(value: str, key: str = "text") -> dict[str, Any]:
    text = f'Sure.\n<function name="write"><param name="{key}">{value}</param></function>'
    whole = events(text, [text])
    chunkings: list[list[Any]] = [list(text), byte_pieces(text), *(random_pieces(text, seed) for seed in range(6))]
    for chunks in chunkings:
        assert merge_events(events(text, chunks)) == merge_events(whole), chunks
    result = ParseResult.from_events(whole)
    assert result.text == "Sure."
    return result.tool_calls[0].arguments


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ('<![CDATA[line one\nshe said "hi" & <b>left</b>]]>', 'line one\nshe said "hi" & <b>left</b>'),
        ("<![CDATA[  padded  ]]>", "  padded  "),  # inside the wrapper every character is the value's
        ("\n<![CDATA[a]b]]c]]>\n", "a]b]]c"),  # blanks around the wrapper are the template's
        ("<![CDATA[]]>", ""),
        ("  plain  ", "plain"),  # no wrapper: the declared whitespace rule (strip)
        ("<![CD", "<![CD"),  # a prefix of the opener that never completes is text
        ("x<![CDATA[y]]>", "x<![CDATA[y]]>"),  # not at the start: text
    ],
)
def test_a_cdata_wrapper_is_removed_and_its_content_kept(written: str, value: str) -> None:
    assert arguments(written) == {"text": value}


def test_a_wrapped_value_is_still_typed_by_the_schema() -> None:
    assert arguments("<![CDATA[42]]>", key="n") == {"n": 42}
    assert arguments('<![CDATA[["a", "<b>"]]]>', key="tags") == {"tags": ["a", "<b>"]}


def test_without_the_declaration_the_wrapper_is_text() -> None:
    text = '<function name="write"><param name="text"><![CDATA[a]]></param></function>'
    decl = Declaration.from_dict(
        {
            "name": "x_nocdata",
            "call": {
                "open": "<function",
                "close": "</function>",
                "name": {"kind": "header", "end": ">", "attribute": "name"},
                "arguments": {
                    "kind": "tagged",
                    "open": "<param",
                    "key_end": ">",
                    "close": "</param>",
                    "key_attribute": "name",
                    "values": {"whitespace": "strip"},
                },
            },
        }
    )
    formats.register(decl)
    try:
        parser = StreamParser(formats=["x_nocdata"])
        result = ParseResult.from_events(parser.feed(text) + parser.close())
        assert result.tool_calls[0].arguments == {"text": "<![CDATA[a]]>"}
    finally:
        formats.unregister("x_nocdata")


def test_the_cdata_field_round_trips_and_is_checked() -> None:
    values = Values(whitespace="strip", cdata=True)
    assert values.to_dict() == {"whitespace": "strip", "cdata": True}
    with pytest.raises(ValueError, match="cdata"):
        Values(cdata="yes")  # type: ignore[arg-type]
