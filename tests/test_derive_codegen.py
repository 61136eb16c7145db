"""jinja2's code generator with its tree walks answered from one walk (streamparse.derive.codegen) writes
jinja2's Python source character for character (on every template here, and every ``*.jinja`` under
``$STREAMPARSE_TEMPLATES`` when set), leaves the parsed tree as it found it, and gives jinja2's visitors
their own ``visit`` back when the generation ends."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, cast

import pytest
from jinja2 import compiler, idtracking, nodes
from jinja2.compiler import CodeGenerator, generate
from jinja2.visitor import NodeVisitor

from streamparse.derive.codegen import PreparedCodeGenerator, flat_walks, prepare
from streamparse.derive.render import Limits, _Budget, _environments

INVENTED = sorted((Path(__file__).parent / "data" / "invented").glob("*.jinja"))
if os.environ.get("STREAMPARSE_TEMPLATES"):
    INVENTED += sorted(Path(os.environ["STREAMPARSE_TEMPLATES"]).glob("**/*.jinja"))
WALKERS = (compiler.UndeclaredNameVisitor, compiler.DependencyFinderVisitor, idtracking.FrameSymbolVisitor)

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
    kinds = (nodes.Name, nodes.Block, (nodes.If, nodes.For))
    expected = {kind: [list(n.find_all(kind)) for n in every] for kind in kinds}
    only_body = [list(n.iter_child_nodes(only=("body",))) for n in every]
    other = env.parse(EVERY_KIND)  # not prepared
    other_names = [list(n.find_all(nodes.Name)) for n in _walk(other)]
    original = (nodes.Node.iter_child_nodes, nodes.Node.find_all)
    undo = prepare(tree)
    with flat_walks():
        assert (nodes.Node.iter_child_nodes, nodes.Node.find_all) != original
        assert _walk(tree) == every
        for kind, found in expected.items():
            assert [list(n.find_all(kind)) for n in every] == found
        assert [list(n.iter_child_nodes(only=("body",))) for n in every] == only_body
        assert [list(n.find_all(nodes.Name)) for n in _walk(other)] == other_names  # jinja2's own answers
        # The answers come from the walk: a child added afterwards is not seen (jinja2's walk would see it).
        output = next(n for n in every if isinstance(n, nodes.Output))
        output.nodes.append(nodes.Name("late", "load"))
        assert nodes.Name("late", "load") not in list(output.iter_child_nodes())
        output.nodes.pop()
    undo()
    assert (nodes.Node.iter_child_nodes, nodes.Node.find_all) == original
    assert [dict(vars(n)) for n in every] == before


def test_nodes_without_a_dict_are_left_to_jinja2s_own_walks() -> None:
    slotted = cast(nodes.Node, type("Slotted", (), {"__slots__": ("fields",)})())
    prepare(slotted)()  # nothing to give such a node: no error, and nothing to undo
    assert not hasattr(slotted, "__dict__")


def _walks(tree: nodes.Node) -> list[Any]:
    """What jinja2's three visitors find for every node of the tree (names read, filters and tests used,
    symbols stored and loaded), through whichever ``visit`` their classes have now."""
    every = _walk(tree)
    names = sorted({n.name for n in tree.find_all(nodes.Name)} | {"loop", "caller", "varargs", "kwargs"})
    found: list[Any] = []
    for node in every:
        found.append(sorted(compiler.find_undeclared([node], names)))
        deps = compiler.DependencyFinderVisitor()
        deps.visit(node)
        found.append((sorted(deps.filters), sorted(deps.tests)))
        symbols = idtracking.Symbols()
        idtracking.FrameSymbolVisitor(symbols).visit(node)
        found.append((sorted(symbols.stores), sorted(symbols.loads.items())))
    return found


def test_flat_walks_find_what_jinja2s_visitors_find_and_are_undone() -> None:
    env, _ = _environments([_Budget(Limits())])
    tree = env.parse(EVERY_KIND)
    expected = _walks(tree)
    undo = prepare(tree)
    with flat_walks():
        assert all(cls.visit is not NodeVisitor.visit for cls in WALKERS)
        assert _walks(tree) == expected  # prepared: the flat walk
        assert _walks(env.parse(EVERY_KIND)) == expected  # not prepared: jinja2's own visit
        with flat_walks():  # nested (another generation meanwhile): still on after the inner one ends
            pass
        assert all(cls.visit is not NodeVisitor.visit for cls in WALKERS)
    undo()
    assert all(cls.visit is NodeVisitor.visit for cls in WALKERS)
    _source(EVERY_KIND, PreparedCodeGenerator)
    assert all(cls.visit is NodeVisitor.visit for cls in WALKERS)  # a generation leaves them as it found them


def test_a_prepared_subtree_is_walked_without_recursion() -> None:
    """The flat walk is what runs on a prepared tree: an expression nested deeper than the recursion limit
    allows jinja2's recursive visit to go is walked all the same (and jinja2's own visit fails on it)."""
    expr: nodes.Expr = nodes.Name("y", "load")
    for _ in range(150):  # x + (x + (... + y)), built as the parser would (parsing it would recurse too)
        expr = nodes.Add(nodes.Name("x", "load"), expr)
    undo = prepare(expr)
    limit = sys.getrecursionlimit()
    try:
        with flat_walks():
            sys.setrecursionlimit(120)
            assert compiler.find_undeclared([expr], ("y", "z")) == {"y"}
            sys.setrecursionlimit(limit)
        sys.setrecursionlimit(120)
        with pytest.raises(RecursionError):
            compiler.find_undeclared([expr], ("y", "z"))
    finally:
        sys.setrecursionlimit(limit)
        undo()


def _cyclic_garbage(env: Any, template: str) -> int:
    """Objects a compile leaves to the cyclic collector (unreachable, but kept alive by reference cycles)."""
    import gc

    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        env.compile(template)
        gc.collect()
        return len(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("path", INVENTED[:3], ids=lambda p: p.stem)
def test_a_generation_leaves_no_cycles_behind_as_jinja2s_leaves_none(path: Path) -> None:
    """The tree and the generator are freed by reference counting when the compile ends, as with jinja2's
    own generator: nothing waits for the cyclic collector (paused during the compile)."""
    env, _ = _environments([_Budget(Limits())])
    template = path.read_text(encoding="utf-8")
    assert _cyclic_garbage(env, template) == 0
    env.code_generator_class = CodeGenerator
    assert _cyclic_garbage(env, template) == 0


def test_generations_in_threads_write_what_they_write_alone_and_leave_jinja2_as_it_was() -> None:
    """flat_walks is entered and left by overlapping generations (a count, under a lock), and a template
    compiled meanwhile with jinja2's own generator is walked by jinja2's own methods: every source is what
    it is when compiled alone, and jinja2's classes are as they were once all are done."""
    from concurrent.futures import ThreadPoolExecutor

    templates = [EVERY_KIND, *(p.read_text(encoding="utf-8") for p in INVENTED[:6])]
    alone = [(_source(t, PreparedCodeGenerator), _source(t, CodeGenerator)) for t in templates]
    original = (nodes.Node.iter_child_nodes, nodes.Node.find_all, *(cls.visit for cls in WALKERS))

    def both(template: str) -> tuple[str, str]:
        return _source(template, PreparedCodeGenerator), _source(template, CodeGenerator)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns every few bytecodes: generations overlap
    try:
        with ThreadPoolExecutor(4) as pool:
            for _ in range(5):
                assert list(pool.map(both, templates)) == alone
    finally:
        sys.setswitchinterval(interval)
    assert (nodes.Node.iter_child_nodes, nodes.Node.find_all, *(cls.visit for cls in WALKERS)) == original
