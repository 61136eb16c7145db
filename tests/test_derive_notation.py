"""Arguments written as an object with bare keys and the template's own string quote token (Gemma 4's
``{city:<|"|>Paris<|"|>}``): derived as ``JsonArgs(string_quote=...)`` from an invented model's template,
read under every chunking; what does not read back is refused with the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from invariants import calls, check_stream

from streamparse.derive import DeriveError, derive
from streamparse.formats import Call, HeaderName, JsonArgs

INVENTED = Path(__file__).parent / "data" / "invented"
TEMPLATE = (INVENTED / "quoted_object.jinja").read_text(encoding="utf-8")


def _tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": props}}}


TOOLS = [
    _tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}),
    _tool("set_flags", {"on": {"type": "boolean"}, "tags": {"type": "array"}, "opts": {"type": "object"}}),
]


def test_an_object_with_bare_keys_and_its_own_string_quotes_derives_json_args_with_that_quote() -> None:
    d = derive(TEMPLATE)
    assert all(c.ok for c in d.checks), d.checks
    call = d.declaration.call
    assert call.arguments == JsonArgs(string_quote="~~")
    assert isinstance(call.name, HeaderName) and call.name.end == ""  # the name runs to the object's `{`
    assert (call.open, call.close) == ("<act>run", "</act>")


def test_quoted_strings_keep_commas_colons_and_brackets_under_every_chunking() -> None:
    d = derive(TEMPLATE)
    out = (
        "Two things.<act>run get_weather{city:~~Paris, {FR}: [centre]~~,days:3}</act>"
        "<act>run set_flags{on:true,tags:[~~a~~,~~b~~],opts:{x:null}}</act></A>"
    )
    result = check_stream(out, formats=[d.name], tools=TOOLS)
    assert calls(result) == [
        ("get_weather", {"city": "Paris, {FR}: [centre]", "days": 3}),
        ("set_flags", {"on": True, "tags": ["a", "b"], "opts": {"x": None}}),
    ]
    assert result.text == "Two things." and not result.rejected


@pytest.mark.parametrize(
    "out, reason",
    [
        ("<act>run get_weather{city:~~Paris~~,days:3]</act>", "malformed"),  # unbalanced brackets
        ("<act>run get_weather{city:Paris}</act>", "malformed"),  # a bare word is no value
        ("<act>run get_weather{city:~~Par", "truncated"),
    ],
)
def test_a_broken_or_cut_object_is_rejected_never_returned(out: str, reason: str) -> None:
    d = derive(TEMPLATE)
    result = check_stream(out, formats=[d.name], tools=TOOLS)
    assert calls(result) == [] and [r.reason for r in result.rejected] == [reason]


PYTHON_LISTS = (
    "{% macro val(v) %}{% if v is string %}~~{{ v }}~~{% else %}{{ v }}{% endif %}{% endmacro %}"
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content or '' }}{% for c in m.tool_calls or [] %}"
    "<act>run {{ c.function.name }}{ {%- for k, x in c.function.arguments.items() -%}"
    "{{ k }}:{{ val(x) }}{{ ',' if not loop.last }}{%- endfor -%} }</act>"
    "{% endfor %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def test_typed_values_that_do_not_read_back_in_the_quoted_notation_are_refused() -> None:
    # Lists printed as Python writes them (['a', 'b']): not in the notation of the strings.
    with pytest.raises(DeriveError, match="typed values in an object with '~~' string quotes do not read back"):
        derive(PYTHON_LISTS)


def test_the_vocabulary_refuses_string_quotes_it_cannot_read() -> None:
    for quote in ('"', "<[q]>", "a,b"):
        with pytest.raises(ValueError, match="string_quote"):
            JsonArgs(string_quote=quote)
    with pytest.raises(ValueError, match="string_quote"):
        JsonArgs(string_quote="~~", fenced=True)
    with pytest.raises(ValueError, match="close: arguments in their own string quotes need a closer"):
        Call("<act>", None, HeaderName(end=":"), JsonArgs(string_quote="~~"))
