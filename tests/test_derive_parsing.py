"""jinja2's parser with the environment set in one walk (streamparse.derive.parsing) returns jinja2's tree:
the same nodes, line numbers and environment on every node, for every template here (and every ``*.jinja``
under ``$STREAMPARSE_TEMPLATES`` when set)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from jinja2 import nodes
from jinja2.parser import Parser

from streamparse.derive.parsing import FastParser, set_environment
from streamparse.derive.render import Limits, _Budget, _environments

TEMPLATES = sorted((Path(__file__).parent / "data" / "invented").glob("*.jinja"))
if os.environ.get("STREAMPARSE_TEMPLATES"):
    TEMPLATES += sorted(Path(os.environ["STREAMPARSE_TEMPLATES"]).glob("**/*.jinja"))
EVERY_KIND = (Path(__file__).parent / "test_derive_codegen.py").read_text(encoding="utf-8")
EVERY_KIND = EVERY_KIND.split('EVERY_KIND = """\\\n')[1].split('"""')[0]


def _walk(node: nodes.Node) -> list[nodes.Node]:
    return [node, *(n for child in node.iter_child_nodes() for n in _walk(child))]


def _shape(tree: nodes.Node) -> list[Any]:
    return [(type(n).__name__, n.lineno, id(n.environment)) for n in _walk(tree)]


@pytest.mark.parametrize("source", [EVERY_KIND, *(p.read_text(encoding="utf-8") for p in TEMPLATES)])
def test_the_tree_is_jinja2s(source: str) -> None:
    env, _ = _environments([_Budget(Limits())])
    mine, theirs = FastParser(env, source).parse(), Parser(env, source).parse()
    assert mine == theirs
    assert _shape(mine) == _shape(theirs)
    assert all(n.environment is env for n in _walk(mine))
    assert env._parse(source, None, None) == theirs  # the environment parses with it


def test_every_node_below_gets_the_environment_as_set_environment_gives_it() -> None:
    env, _ = _environments([_Budget(Limits())])
    tree = Parser(env, EVERY_KIND).parse()
    other = object()
    set_environment(tree, other)
    assert all(n.environment is other for n in _walk(tree))
