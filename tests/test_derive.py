"""Zero-config derivation on templates of invented models, one structure each: the declaration comes from
the renders, not from a table of known formats, and parses that model's output under every chunking."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from invariants import calls, check_stream

import streamparse.derive as derive_module
from streamparse import ParseResult, StreamParser, formats
from streamparse.derive import DeriveError, clear_cache, derive
from streamparse.derive.render import Renderer
from streamparse.formats import ElementArgs, HeaderName, JsonName, PythonName, TaggedArgs

INVENTED = Path(__file__).parent / "data" / "invented"
SPECIAL = ["CALLS_BEGIN", "CALLS_END", "CALL_NAME", "CALL_ARGS", "CALL_END", "CALL_NEXT", "<bos_turn>", "<eos_turn>"]


def _tool(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": props}}}


TOOLS = [
    _tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}),
    _tool("get_time", {"timezone": {"type": "string"}}),
    _tool("write_file", {"path": {"type": "string"}, "content": {"type": "string"}}),
    _tool(
        "set_flags",
        {"on": {"type": "boolean"}, "note": {"type": ["string", "null"]}, "tags": {"type": "array"}},
    ),
    _tool("label", {'a&"b': {"type": "string"}, "<k>": {"type": "string"}}),
]

CASES: dict[str, tuple[str, list[tuple[str, dict[str, Any]]], str, str]] = {
    # template: (model output, calls, visible text, reasoning)
    "json_markers": (
        '<reflect>Need the weather.</reflect>\nLet me look.\n<<fn>>{"tool": "get_weather", "input": '
        '{"city": "Paris", "days": 3}}<</fn>>',
        [("get_weather", {"city": "Paris", "days": 3})],
        "Let me look.",
        "Need the weather.",
    ),
    "name_attribute_json": (
        'Checking both.\n<calls>\n<call name="get_weather">{"city": "Paris"}</call>\n'
        '<call name="get_time">{"timezone": "Europe/Paris"}</call>\n</calls>',
        [("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "Europe/Paris"})],
        "Checking both.",
        "",
    ),
    "key_value_markers": (
        "The user wants the weather.</think>Sure.\n<invocation>get_weather\n<key>city</key><val>Paris</val>\n"
        "<key>days</key><val>3</val>\n</invocation>",
        [("get_weather", {"city": "Paris", "days": 3})],
        "Sure.",
        "The user wants the weather.",
    ),
    "element_per_parameter": (
        'Writing it.\n<actions>\n<action tool="write_file">\n<arg key="path">\nnotes.txt\n</arg>\n'
        '<arg key="content">\nline one\nline two\n</arg>\n</action>\n</actions>',
        [("write_file", {"path": "notes.txt", "content": "line one\nline two"})],
        "Writing it.",
        "",
    ),
    "json_list_fields": (
        'Two calls.[[TOOLS]][{"function": "get_weather", "params": {"city": "Paris"}}, '
        '{"function": "get_time", "params": {}}][[/TOOLS]]',
        [("get_weather", {"city": "Paris"}), ("get_time", {})],
        "Two calls.",
        "",
    ),
    "special_tokens": (
        'Plan the calls.◁/think▷Sure.CALLS_BEGINCALL_NAMEget_weatherCALL_ARGS{"city": "Paris"}CALL_END'
        "CALL_NEXTCALL_NAMEget_timeCALL_ARGS{}CALL_ENDCALLS_END",
        [("get_weather", {"city": "Paris"}), ("get_time", {})],
        "Sure.",
        "Plan the calls.",
    ),
    "name_then_pairs": (
        "Setting them.<act>set_flags<p>on</p><v>True</v><p>note</p><v>None</v><p>tags</p><v>['a', 'b']</v></act>"
        "<act>get_time</act>",
        [("set_flags", {"on": True, "note": None, "tags": ["a", "b"]}), ("get_time", {})],
        "Setting them.",
        "",
    ),
    "escaped_attributes": (
        'Labelling.<op fn="label"><in k="a&amp;&quot;b">x &amp; y</in><in k="&lt;k&gt;">1 < 2</in></op>',
        [("label", {'a&"b': "x &amp; y", "<k>": "1 < 2"})],
        "Labelling.",
        "",
    ),
    "namespaced_elements": (
        'Setting them.~@~<actions>~@~<action tool="set_flags">~@~<on>true~@~</on>~@~<tags>~@~<item>a~@~</item>'
        '~@~<item>b~@~</item>~@~</tags>~@~</action>~@~<action tool="get_weather">~@~<city>Paris~@~</city>~@~<days>3'
        "~@~</days>~@~</action>~@~</actions>",
        [("set_flags", {"on": True, "tags": ["a", "b"]}), ("get_weather", {"city": "Paris", "days": 3})],
        "Setting them.",
        "",
    ),
    "python_call_list": (
        "Writing it.<<py>>[write_file(path='C:\\tmp\\notes.txt', content='she said 'hi'\n'), "
        "set_flags(on=True, note=None, tags=['a', 'b'])]<</py>>",
        [
            ("write_file", {"path": "C:\\tmp\\notes.txt", "content": "she said 'hi'\n"}),
            ("set_flags", {"on": True, "note": None, "tags": ["a", "b"]}),
        ],
        "Writing it.",
        "",
    ),
}


def _template(key: str) -> str:
    return (INVENTED / f"{key}.jinja").read_text(encoding="utf-8")


@pytest.mark.parametrize("key", list(CASES))
def test_an_invented_models_output_parses_with_the_format_derived_from_its_template(key: str) -> None:
    output, want_calls, text, reasoning = CASES[key]
    derivation = derive(_template(key), special_tokens=SPECIAL if key == "special_tokens" else None)
    assert all(c.ok for c in derivation.checks), derivation.checks
    result = check_stream(output, formats=[derivation.name], tools=TOOLS, start_in_reasoning=derivation.primed)
    assert calls(result) == want_calls
    assert result.text.strip() == text
    assert result.reasoning.strip() == reasoning
    assert not result.rejected


def test_each_invented_structure_is_read_as_its_own_kind_of_declaration() -> None:
    decl = {k: derive(_template(k), special_tokens=SPECIAL).declaration for k in CASES}
    assert decl["json_markers"].call.name == JsonName(field="tool", arguments_field="input", alt_arguments_fields=())
    assert (decl["json_markers"].call.open, decl["json_markers"].call.close) == ("<<fn>>", "<</fn>>")
    assert isinstance(decl["name_attribute_json"].call.name, HeaderName)
    assert decl["name_attribute_json"].call.name.attribute == "name"
    assert decl["name_attribute_json"].section is not None and decl["name_attribute_json"].section.open == "<calls>"
    kv = decl["key_value_markers"].call.arguments
    assert isinstance(kv, TaggedArgs) and (kv.open, kv.key_end, kv.value_open, kv.close) == (
        "<key>",
        "</key>",
        "<val>",
        "</val>",
    )
    assert decl["key_value_markers"].reasoning[0].primed  # the prompt writes <think>
    el = decl["element_per_parameter"].call.arguments
    assert isinstance(el, TaggedArgs) and el.key_attribute == "key" and el.values.whitespace == "one_newline"
    listed = decl["json_list_fields"].call.name
    assert isinstance(listed, JsonName) and listed.list and listed.field == "function"
    framed = decl["special_tokens"]
    assert framed.section is not None and framed.section.separators == ("CALL_NEXT",)
    assert framed.reasoning[0].open == "◁think▷" and framed.reasoning[0].primed
    glued = decl["name_then_pairs"].call
    assert isinstance(glued.name, HeaderName) and glued.name.end == ""  # the name ends at the first <p>
    assert isinstance(glued.arguments, TaggedArgs) and glued.arguments.values.others == "python"
    escaped = decl["escaped_attributes"].call
    assert isinstance(escaped.name, HeaderName) and escaped.name.escapes == "xml"
    assert isinstance(escaped.arguments, TaggedArgs) and escaped.arguments.attribute_escapes == "xml"
    listed_py = decl["python_call_list"].call
    assert listed_py.name == PythonName(strings="raw") and (listed_py.open, listed_py.close) == ("<<py>>", "<</py>>")
    tree = decl["namespaced_elements"]
    assert tree.call.arguments == ElementArgs(noise="~@~") and tree.call.open == "~@~<action"
    assert tree.section is not None and (tree.section.open, tree.section.close) == ("~@~<actions>", "~@~</actions>")


def test_a_python_call_list_whose_strings_are_python_literals_decodes_their_escapes() -> None:
    """The same list, each string written as Python's repr of it: escapes are the template's, so read as such."""
    literal = _template("python_call_list").replace('{{ "\'" + v + "\'" }}', "{{ v | pprint }}")
    decl = derive(literal).declaration
    assert decl.call.name == PythonName(strings="python")
    out = "<<py>>[write_file(path='C:\\\\tmp', content=\"it's\\n\")]<</py>>"
    parser = StreamParser.from_chat_template(literal)
    events = parser.feed(out) + parser.close()
    assert calls(ParseResult.from_events(events)) == [("write_file", {"path": "C:\\tmp", "content": "it's\n"})]


def test_a_python_call_list_whose_strings_are_quoted_without_a_rule_is_refused() -> None:
    """Double quotes around the text as it is: neither raw single quotes nor a Python literal (a value
    holding a double quote would end early), so nothing is derived rather than a misreading."""
    doubled = _template("python_call_list").replace('{{ "\'" + v + "\'" }}', "{{ '\"' + v + '\"' }}")
    with pytest.raises(DeriveError, match="arguments: a string argument holding ' and a backslash is written as"):
        derive(doubled)


@pytest.mark.parametrize("value", ["it's fine", "C:\\dir\\", "she said 'x') ok"])
def test_a_raw_string_is_read_as_written_whatever_quotes_and_backslashes_it_holds(value: str) -> None:
    """An odd number of quotes, a backslash before the closing quote, a quote and ``)`` inside the value: the
    template writes them as they are, and the call ends at the quote its next argument or ``)`` + ``]``
    follows, under every chunking (Python's string rules would end it early or never)."""
    out = f"<<py>>[write_file(path='{value}', content='x'), get_time(timezone='UTC')]<</py>> Done."
    want = [("write_file", {"path": value, "content": "x"}), ("get_time", {"timezone": "UTC"})]
    result = check_stream(out, formats=[derive(_template("python_call_list")).name], tools=TOOLS)
    assert calls(result) == want and result.text.strip() == "Done." and not result.rejected


def test_a_bare_python_call_list_is_still_named_as_the_pythonic_familys() -> None:
    bare = _template("python_call_list").replace("<<py>>[", "[").replace("]<</py>>", "]")
    with pytest.raises(DeriveError, match="no opener and closer around the list"):
        derive(bare)


def test_a_template_that_writes_attributes_as_they_are_is_not_unescaped() -> None:
    plain = _template("escaped_attributes").replace("attr(c.function.name)", "c.function.name")
    decl = derive(plain.replace("attr(k)", "k")).declaration
    assert isinstance(decl.call.name, HeaderName) and decl.call.name.escapes == "none"
    assert isinstance(decl.call.arguments, TaggedArgs) and decl.call.arguments.attribute_escapes == "none"


def test_a_template_that_entity_escapes_values_is_refused_not_misread() -> None:
    escaping = _template("escaped_attributes").replace("{{ v if v is string else v | tojson }}", "{{ attr(v) }}")
    with pytest.raises(DeriveError, match="values: the template XML-escapes argument values"):
        derive(escaping)


def test_a_template_that_wraps_values_in_cdata_derives_cdata_values() -> None:
    """MiniCPM5's way: a value holding markup is written in ``<![CDATA[...]]>``; the inner text is the value."""
    cdata = "{{ '<![CDATA[' + v + ']]>' if v is string and '<' in v else v }}"
    wrapping = _template("escaped_attributes").replace("{{ v if v is string else v | tojson }}", cdata)
    decl = derive(wrapping).declaration
    assert isinstance(decl.call.arguments, TaggedArgs) and decl.call.arguments.values.cdata
    out = '<op fn="run"><in k="code"><![CDATA[if a < b: print("</in>")]]></in></op>'
    for chunks in ([out], list(out)):
        parser = StreamParser.from_chat_template(wrapping)
        events = [e for chunk in chunks for e in parser.feed(chunk)] + parser.close()
        assert calls(ParseResult.from_events(events)) == [("run", {"code": 'if a < b: print("</in>")'})]


FLAT_CALLS = (
    "{% for m in messages %}<<{{ m.role }}>>{{ m.content }}"
    "{% if m.tool_calls %}<<act>>[{% for c in m.tool_calls %}"
    '{"tool_name": "{{ c.name }}", "parameters": {{ c.arguments | tojson }}}{{ ", " if not loop.last }}'
    "{% endfor %}]{% endif %}<<end>>{% endfor %}{% if add_generation_prompt %}<<assistant>>{% endif %}"
)
FUNCTIONS_VARIABLE = (
    "{% set system = 'Functions: ' + functions + ' Today is ' + datetime %}<<system>>{{ system }}<<end>>"
    "{% for m in messages %}<<{{ m.role }}>>{{ m.content }}{% if m.tool_calls %} fncalls["
    "{% for c in m.tool_calls %}{{ c.function | tojson }}{{ ', ' if not loop.last }}{% endfor %}]{% endif %}"
    "<<end>>{% endfor %}{% if add_generation_prompt %}<<assistant>>{% endif %}"
)
ID_BEFORE_NAME = (
    "{% for m in messages %}<<{{ m.role }}>>{{ m.content }}{% if m.tool_calls %}<|calls|>"
    "{% for c in m.tool_calls %}<|c|>{{ c.id or raise_exception('a call needs its id') }}<|n|>{{ c.function.name }}"
    "<|a|>{{ c.function.arguments | tojson }}<|e|>{% endfor %}<|/calls|>{% endif %}<<end>>{% endfor %}"
    "{% if add_generation_prompt %}<<assistant>>{% endif %}"
)


@pytest.mark.parametrize(
    ("template", "output"),
    [
        (ID_BEFORE_NAME, 'Sure.<|calls|><|c|>call_7<|n|>get_time<|a|>{"timezone": "UTC"}<|e|><|/calls|>'),
        (FLAT_CALLS, 'Sure.<<act>>[{"tool_name": "get_time", "parameters": {"timezone": "UTC"}}]'),
        (FUNCTIONS_VARIABLE, 'Sure. fncalls[{"name": "get_time", "arguments": {"timezone": "UTC"}}]'),
    ],
    ids=["call_id_before_the_name", "calls_without_the_function_envelope", "tools_as_a_functions_variable"],
)
def test_templates_that_read_calls_or_tools_in_other_shapes_still_render(template: str, output: str) -> None:
    derivation = derive(template)
    assert all(c.ok for c in derivation.checks), derivation.checks
    result = check_stream(output, formats=[derivation.name], tools=TOOLS)
    assert calls(result) == [("get_time", {"timezone": "UTC"})]
    assert result.text.strip() == "Sure."
    assert derivation.flat_calls == (template is FLAT_CALLS)
    assert ("functions" in derivation.template_variables) == (template is FUNCTIONS_VARIABLE)
    if template is ID_BEFORE_NAME:
        assert derivation.declaration.call.id is not None and derivation.declaration.call.id.position == "before_name"
        assert [c.id for c in result.tool_calls] == ["call_7"]


def test_python_reprs_are_typed_without_a_warning() -> None:
    derivation = derive(_template("name_then_pairs"))
    assert derivation.warnings == ()
    assert all(c.ok for c in derivation.checks)


def test_the_tokenizers_special_tokens_put_every_boundary_between_whole_tokens() -> None:
    with_tokens = derive(_template("special_tokens"), special_tokens=SPECIAL).declaration
    assert with_tokens.section is not None
    used = [with_tokens.call.open, with_tokens.call.close, with_tokens.section.open, with_tokens.section.close]
    assert all(marker in SPECIAL for marker in [*used, *with_tokens.section.separators])
    # Without them CALL_END and CALLS_END look like text, and the shared letters are split anywhere.
    without = derive(_template("special_tokens")).declaration
    assert without.call.close not in SPECIAL


def test_the_derived_declaration_loads_back_from_its_json() -> None:
    decl = derive(_template("key_value_markers")).declaration
    assert formats.load(formats.dump(decl)) == decl


def test_from_chat_template_builds_a_parser_that_starts_in_reasoning_only_when_the_prompt_opens_it() -> None:
    parser = StreamParser.from_chat_template(_template("key_value_markers"), tools=TOOLS)
    assert parser.derivation.primed
    events = parser.feed("Thinking.</think>Done.") + parser.close()
    assert [e.type for e in events][:1] == ["reasoning"]
    off = StreamParser.from_chat_template(
        _template("key_value_markers"), chat_template_kwargs={"enable_thinking": False}
    )
    assert not off.derivation.primed


def test_derivation_is_cached_per_template_text() -> None:
    src = _template("json_markers")
    assert derive(src) is derive(src)
    assert derive(src + "\n") is not derive(src)


def test_a_model_folder_a_preset_knows_keeps_its_preset_unless_the_template_is_asked_first(tmp_path: Path) -> None:
    folder = tmp_path / "Qwen3-8B"
    folder.mkdir()
    (folder / "chat_template.jinja").write_text(_template("name_attribute_json"), encoding="utf-8")
    assert StreamParser.for_model(str(folder)).derivation is None  # the preset (qwen3) wins
    assert StreamParser.for_model(str(folder), template_first=True).derivation is not None


def test_a_model_downloaded_to_the_hugging_face_cache_is_derived_by_its_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = tmp_path / "models--acme--brand-new-7b" / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    (snapshot / "tokenizer_config.json").write_text(
        '{"chat_template": ' + __import__("json").dumps(_template("json_markers")) + ', "eos_token": "<<end>>"}',
        encoding="utf-8",
    )
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    parser = StreamParser.for_model("acme/brand-new-7b")
    assert parser.derivation is not None
    assert parser.derivation.declaration.call.open == "<<fn>>"
    assert StreamParser.for_model("acme/not-downloaded").derivation is None


def test_a_tokenizer_config_gives_the_default_named_template_and_its_special_tokens(tmp_path: Path) -> None:
    from streamparse.derive.model_dir import read_template

    config = {
        "chat_template": [{"name": "default", "template": "{{ 1 }}"}, {"name": "rag", "template": "{{ 2 }}"}],
        "eos_token": {"content": "<|e|>", "special": True},
        "added_tokens_decoder": {"7": {"content": "<|u|>", "special": True}},
    }
    (tmp_path / "tokenizer_config.json").write_text(__import__("json").dumps(config), encoding="utf-8")
    found = read_template(tmp_path)
    assert found is not None and found.template == "{{ 1 }}"
    assert found.special_tokens["eos_token"] == {"content": "<|e|>", "special": True}
    (tmp_path / "chat_template.jinja").write_text("{{ 3 }}", encoding="utf-8")
    assert read_template(tmp_path).template == "{{ 3 }}"  # type: ignore[union-attr]  # the .jinja file wins


def test_no_probe_is_rendered_twice_with_the_same_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    class Counting(Renderer):
        def render(self, **variables: Any) -> str:
            seen.append(json.dumps(variables, sort_keys=True, default=str))
            return super().render(**variables)

    clear_cache(unregister=True)
    monkeypatch.setattr(derive_module, "Renderer", Counting)
    derive((INVENTED / "json_markers.jinja").read_text(encoding="utf-8"))
    clear_cache(unregister=True)
    assert len(seen) >= 12 and len(set(seen)) == len(seen)
