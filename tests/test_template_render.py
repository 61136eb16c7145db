"""The renderer renders as transformers does: tojson without HTML escaping and with its options,
raise_exception, strftime_now, {% generation %}, trim_blocks / lstrip_blocks, loop controls."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from streamparse.derive.render import Renderer, RenderError, render


def test_tojson_keeps_markup_and_non_ascii_as_written() -> None:
    out = render("{{ x | tojson }}", x={"a": "<b> & 東京"})
    assert out == '{"a": "<b> & 東京"}'


def test_tojson_passes_indent_separators_and_sort_keys_through() -> None:
    x = {"b": 1, "a": [1, 2]}
    assert render("{{ x | tojson(indent=2) }}", x=x) == json.dumps(x, indent=2)
    assert render("{{ x | tojson(separators=(',', ':')) }}", x=x) == '{"b":1,"a":[1,2]}'
    assert render("{{ x | tojson(sort_keys=true) }}", x=x) == '{"a": [1, 2], "b": 1}'
    assert render("{{ x | tojson(ensure_ascii=true) }}", x="é") == '"\\u00e9"'


def test_raise_exception_becomes_a_render_error_with_the_message() -> None:
    with pytest.raises(RenderError, match="roles must alternate"):
        render("{{ raise_exception('roles must alternate') }}")


def test_strftime_now_formats_the_current_date() -> None:
    assert render("{{ strftime_now('%Y') }}") == str(datetime.now().year)


def test_generation_blocks_render_their_body() -> None:
    assert render("a{% generation %}b{% endgeneration %}c") == "abc"


def test_trim_and_lstrip_blocks_and_loop_controls_as_transformers_sets_them() -> None:
    src = "{% for i in xs %}\n  {% if i == 2 %}{% continue %}{% endif %}{{ i }}{% if i == 3 %}{% break %}{% endif %}\n{% endfor %}"
    assert render(src, xs=[1, 2, 3, 4]) == "13"  # no newline after a tag, no indent before one


def test_a_template_that_appends_to_a_list_is_rendered_in_the_mutable_sandbox() -> None:
    r = Renderer("{% set ns = namespace(ids=[]) %}{% set _ = ns.ids.append(1) %}{{ ns.ids }}")
    assert r.render() == "[1]"
    assert r.mutable


def test_the_immutable_sandbox_is_kept_when_asked() -> None:
    with pytest.raises(RenderError, match="unsafe"):
        Renderer("{% set xs = [] %}{{ xs.append(1) }}", mutable=False).render()


def test_a_dict_key_named_like_a_dict_method_reads_the_method_as_jinja2_does() -> None:
    # jinja2 tries the attribute before the item: a JSON schema's "items" key is not what ``schema.items`` reads.
    schema = {"items": {"type": "string"}, "type": "array"}
    assert render("{{ s.items is callable }}|{{ s.type }}|{{ s.missing is defined }}", s=schema) == "True|array|False"


def test_an_attribute_of_a_dict_subclass_is_read_before_its_item() -> None:
    class Note(dict[str, str]):
        note = "attribute"

    assert render("{{ d.note }}|{{ d['note'] }}", d=Note(note="item")) == "attribute|item"
