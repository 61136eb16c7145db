"""jinja2's parser, with the environment given to the parsed tree in one walk over the nodes' fields.

jinja2's ``Parser.parse`` ends with ``Template.set_environment``, a breadth-first walk through
``Node.iter_child_nodes`` (a generator per node, and ``iter_fields`` under it): 2 ms of GigaChat 3.5's
compile. :class:`FastParser` gives every node reachable the same ``environment`` attribute, walking the same
children (a field holding a node, or a list holding nodes), so the tree it returns is the one jinja2 returns.
``tests/test_derive_lexer.py`` compares the trees on every template.
"""

from __future__ import annotations

from typing import Any

from jinja2 import nodes
from jinja2.parser import Parser

__all__ = ["FastParser", "set_environment"]

_Node = nodes.Node


def set_environment(root: nodes.Node, environment: Any) -> None:
    """``root.set_environment(environment)``: every node below ``root`` (and ``root``) gets ``environment``."""
    todo = [root]
    pop, push = todo.pop, todo.append
    while todo:
        node = pop()
        node.environment = environment
        for name in node.fields:
            item = getattr(node, name, None)
            if type(item) is list:
                for child in item:
                    if isinstance(child, _Node):
                        push(child)
            elif isinstance(item, _Node):
                push(item)
            elif isinstance(item, list):  # a list subclass: as iter_child_nodes takes it
                todo.extend(child for child in item if isinstance(child, _Node))


class FastParser(Parser):
    """jinja2's :class:`~jinja2.parser.Parser` whose ``parse`` sets the environment with :func:`set_environment`."""

    def parse(self) -> nodes.Template:
        result = nodes.Template(self.subparse(), lineno=1)
        set_environment(result, self.environment)
        return result
