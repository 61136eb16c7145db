"""Calls written as bare JSON with no marker (Llama 3.x, xLAM): derived as a standalone call, read only at
the start of the output or of a line, with the template's own field names; what stays outside is named.
And JSON objects on lines of their own inside a section (MiniMax-M1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from invariants import calls, check_stream

from streamparse import formats
from streamparse.derive import DeriveError, derive
from streamparse.formats import Call, Declaration, JsonName, Section

INVENTED = Path(__file__).parent / "data" / "invented"


def _tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": props}}}


TOOLS = [_tool("get_weather", {"city": {"type": "string"}}), _tool("get_time", {"timezone": {"type": "string"}})]


def _derive(key: str) -> Any:
    return derive((INVENTED / f"{key}.jinja").read_text(encoding="utf-8"))


def test_bare_json_objects_on_their_own_lines_derive_a_standalone_call_with_the_templates_fields() -> None:
    d = _derive("bare_json_lines")
    assert all(c.ok for c in d.checks), d.checks
    call = d.declaration.call
    assert call.standalone and call.open == "" and call.close is None and d.declaration.section is None
    assert call.name == JsonName(field="tool", arguments_field="input", alt_arguments_fields=())


def test_a_bare_json_list_derives_a_standalone_list_with_its_nesting() -> None:
    d = _derive("bare_json_list")
    assert all(c.ok for c in d.checks), d.checks
    name = d.declaration.call.name
    assert isinstance(name, JsonName) and name.list and name.nested == "function" and name.arguments_field == "args"
    out = (
        '[{"type": "function", "function": {"name": "get_weather", "args": {"city": "Paris"}}}, '
        '{"type": "function", "function": {"name": "get_time", "args": {}}}][eot]'
    )
    result = check_stream(out, formats=[d.name], tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert result.text == "" and not result.rejected


def test_standalone_calls_after_text_and_each_other_parse_under_every_chunking() -> None:
    d = _derive("bare_json_lines")
    out = 'Checking both.\n{"tool": "get_weather", "input": {"city": "Paris"}}\n{"tool": "get_time", "input": {}}\n'
    result = check_stream(out, formats=[d.name], tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": "Paris"}), ("get_time", {})]
    assert result.text.strip() == "Checking both."


@pytest.mark.parametrize(
    "prose",
    [
        'The reply is {"tool": "get_time", "input": {}} as written.',  # inside a sentence: never a candidate
        '{"version": 1, "tool": "get_time"}',  # at the start, but its first key is not a call's
        '{"name": "get_time", "arguments": {}}',  # a call shape with other field names than the template's
    ],
)
def test_json_that_is_not_a_standalone_call_of_the_template_stays_text(prose: str) -> None:
    d = _derive("bare_json_lines")
    result = check_stream(prose, formats=[d.name], tools=TOOLS)
    assert calls(result) == [] and not result.rejected
    assert result.text == prose


def test_a_standalone_call_cut_by_the_end_of_the_stream_is_rejected_not_returned() -> None:
    d = _derive("bare_json_lines")
    result = check_stream('{"tool": "get_weather", "input": {"city": "Par', formats=[d.name], tools=TOOLS)
    assert calls(result) == [] and [r.reason for r in result.rejected] == ["truncated"]


NAME_AS_KEY = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% for c in m.tool_calls or [] %}"
    "\n{{ {c.function.name: c.function.arguments} | tojson }}"
    "{% endfor %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def test_bare_name_as_key_objects_are_refused_as_indistinguishable_from_data() -> None:
    with pytest.raises(DeriveError, match="cannot be told from data"):
        derive(NAME_AS_KEY)


def test_the_vocabulary_keeps_a_standalone_call_bare() -> None:
    with pytest.raises(ValueError, match="standalone: a standalone call has no opener"):
        Call("<c>", None, JsonName(), standalone=True)
    with pytest.raises(ValueError, match="standalone: a bare"):
        Call("", None, JsonName(name_is_key=True, alt_arguments_fields=()), standalone=True)
    with pytest.raises(ValueError, match="call.standalone"):
        Declaration("x_bare", Call("", None, JsonName(), standalone=True), section=Section("<s>"))
    with pytest.raises(ValueError, match="call.open"):
        Declaration("x_bare", Call("", None, JsonName()))
    decl = Declaration("x_bare", Call("", None, JsonName(list=True), standalone=True))
    assert formats.load(decl.to_json()) == decl


LINES_IN_SECTION = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content or '' }}{% if m.tool_calls %}<calls>\n"
    '{% for c in m.tool_calls %}{"name": "{{ c.function.name }}", "arguments": {{ c.function.arguments | tojson }}}\n'
    "{% endfor %}</calls>{% endif %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def test_json_objects_on_lines_of_their_own_inside_a_section_are_each_a_call() -> None:
    d = derive(LINES_IN_SECTION)
    assert all(c.ok for c in d.checks), d.checks
    assert d.declaration.section is not None and d.declaration.call.open == ""
    out = '<calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "get_time", "arguments": {}}\n</calls>'
    result = check_stream(out, formats=[d.name], tools=TOOLS)
    assert calls(result) == [("get_weather", {"city": "Paris"}), ("get_time", {})] and not result.rejected
