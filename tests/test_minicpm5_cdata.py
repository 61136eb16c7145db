"""MiniCPM5 values in XML CDATA sections (issue 17): the inner text is the value, markers inside it are text;
trimmed as vLLM's MiniCPM5 XML parser trims every value; the same under every chunking."""

from __future__ import annotations

import pytest
from invariants import calls, check_stream, reasons

from streamparse.formats import Declaration, Values, declaration_of

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write",
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string"}, "n": {"type": "integer"}},
            },
        },
    }
]


def _call(value: str, tail: str = "") -> str:
    return f'<function name="write">\n<param name="code">{value}</param>\n<param name="n">3</param>\n</function>{tail}'


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (
            '<![CDATA[a </param> <param name="x">1</param> </function> b]]>',
            'a </param> <param name="x">1</param> </function> b',
        ),
        ("\n<![CDATA[\nif a < b && c > d:\n    pass\n]]>\n", "if a < b && c > d:\n    pass"),
        ("<![CDATA[x ]] ]> ]]]>", "x ]] ]> ]"),
        ("<![CDATA[a]]>b<![CDATA[<c>]]>", "ab<c>"),
        ("<![CDATA[]]>", ""),
        ("plain &amp; text", "plain &amp; text"),
    ],
)
def test_a_cdata_value_is_its_inner_text(value: str, code: str) -> None:
    result = check_stream(_call(value, "\nDone."), formats=["minicpm5"], tools=TOOLS)
    assert calls(result) == [("write", {"code": code, "n": 3})] and result.rejected == []
    assert result.text == "Done."


def test_a_call_cut_inside_a_cdata_section_is_truncated() -> None:
    text = '<function name="write">\n<param name="code"><![CDATA[a </param></function> b ]]'
    result = check_stream(text, formats=["minicpm5"], tools=TOOLS)
    assert calls(result) == [] and reasons(result) == ["truncated"] and result.text == ""


def test_cdata_is_declared_and_round_trips() -> None:
    decl = declaration_of("minicpm5")
    assert decl is not None and decl.to_dict()["call"]["arguments"]["values"]["cdata"] is True
    assert Declaration.from_dict(decl.to_dict()) == decl
    with pytest.raises(ValueError, match="cdata"):
        Values(cdata="yes")  # type: ignore[arg-type]


def test_without_cdata_declared_the_section_is_plain_value_text() -> None:
    decl = declaration_of("minicpm5")
    assert decl is not None
    d = decl.to_dict()
    d["name"] = "minicpm5_plain"
    del d["call"]["arguments"]["values"]["cdata"]
    from streamparse import formats

    formats.register(Declaration.from_dict(d))
    try:
        result = check_stream(_call("<![CDATA[a]]>"), formats=["minicpm5_plain"], tools=TOOLS)
        assert calls(result) == [("write", {"code": "<![CDATA[a]]>", "n": 3})]
    finally:
        formats.unregister("minicpm5_plain")
