"""jinja2's code generator with its tree walks answered from one walk (streamparse.derive.codegen) writes
jinja2's Python source character for character, and leaves the parsed tree as it found it."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, generate

from streamparse.derive.codegen import PreparedCodeGenerator, prepare
from streamparse.derive.render import Limits, _Budget, _environments

INVENTED = sorted((Path(__file__).parent / "data" / "invented").glob("*.jinja"))

EVERY_KIND = """\
{%- extends "base" if layout else none -%}
{%- import "helpers" as helpers -%}{%- from "helpers" import one as uno, two -%}
{%- macro row(cells, sep=", ") -%}{{ cells | join(sep) }}{{ caller() if caller else "" }}{{ varargs }}{{ kwargs }}{%- endmacro -%}
{%- set ns = namespace(seen=[], n=0) -%}
{%- set block_text -%}{% for k, v in (mapping or {}) | dictsort %}{{ k }}={{ v | tojson }}{% endfor %}{%- endset -%}
{%- block head scoped %}{{ self.head_extra() if self else "" }}{% endblock -%}
{%- block head_extra %}{{ super() if super else "" }}{% endblock -%}
{%- for m in messages if m.role != "system" recursive -%}
  {%- if loop.first and not loop.last %}{{ loop.index0 }}/{{ loop.length }}{% elif loop.previtem %}{{ loop.cycle("a", "b") }}{% endif -%}
  {%- set ns.n = ns.n + 1 -%}{%- set ns.seen = ns.seen + [m.role] -%}
  {%- with who = m.role | upper, n = ns.n %}{{ who }}{{ n * 2 - 1 // 3 % 2 ** 2 }}{% endwith -%}
  {%- call(x) row([m.content, m["name"] | default("-", true)], sep="|") %}{{ x }}{% endcall -%}
  {%- filter trim %}  {{ m.content[1:3] ~ m.content[::-1] }}  {% endfilter -%}
  {%- if m.children is defined and m.children is iterable %}{{ loop(m.children) }}{% endif -%}
  {%- if m.tool_calls %}{% for c in m.tool_calls %}{% if c is mapping %}{{ c.function.name }}{% continue %}{% endif %}{% break %}{% endfor %}{% endif -%}
  {%- generation %}{% set inner = 1 %}{{ inner }}{% endgeneration -%}
{%- else -%}none
{%- endfor -%}
{%- autoescape false %}{{ "<b>" | safe }}{% endautoescape -%}
{%- include ["a", "b"] ignore missing with context -%}
{{ uno() }}{{ two }}{{ helpers.x }}{{ block_text }}{{ [1, 2][0] }}{{ (1, "a") }}{{ {"k": none} }}{{ -1 }}{{ not true }}
{{ 1 if true else 2 }}{{ 3 in [3] and 4 not in [3] or 5 < 6 <= 7 }}{{ "%s" | format("x") }}{{ range(3) | list | length }}
"""


def _source(template: str, generator: type[CodeGenerator]) -> str:
    env, _ = _environments([_Budget(Limits())])
    env.code_generator_class = generator
    source = generate(env.parse(template), env, "t", "t.jinja", defer_init=False, optimized=False)
    assert source is not None  # generate writes to a stream only when given one
    return source


@pytest.mark.parametrize("path", INVENTED, ids=lambda p: p.stem)
def test_the_generated_source_is_jinja2s_for_every_invented_template(path: Path) -> None:
    template = path.read_text(encoding="utf-8")
    assert _source(template, PreparedCodeGenerator) == _source(template, CodeGenerator)


def test_the_generated_source_is_jinja2s_for_every_kind_of_node() -> None:
    assert _source(EVERY_KIND, PreparedCodeGenerator) == _source(EVERY_KIND, CodeGenerator)


def _walk(node: nodes.Node) -> list[nodes.Node]:
    return [node, *(n for child in node.iter_child_nodes() for n in _walk(child))]


def test_prepared_nodes_answer_as_jinja2_does_and_undo_leaves_the_tree_as_parsed() -> None:
    env, _ = _environments([_Budget(Limits())])
    tree = env.parse(EVERY_KIND)
    every = _walk(tree)
    before = [dict(vars(n)) for n in every]
    expected = {
        kind: [list(type(n).find_all(n, kind)) for n in every]
        for kind in (nodes.Name, nodes.Block, (nodes.If, nodes.For))
    }
    only_body = [list(type(n).iter_child_nodes(n, only=("body",))) for n in every]
    undo = prepare(tree)
    assert _walk(tree) == every
    for kind, found in expected.items():
        assert [list(n.find_all(kind)) for n in every] == found
    assert [list(n.iter_child_nodes(only=("body",))) for n in every] == only_body
    undo()
    assert [dict(vars(n)) for n in every] == before


def test_nodes_without_a_dict_are_left_to_jinja2s_own_walks() -> None:
    slotted = cast(nodes.Node, type("Slotted", (), {"__slots__": ("fields",)})())
    prepare(slotted)()  # nothing to give such a node: no error, and nothing to undo
    assert not hasattr(slotted, "__dict__")
