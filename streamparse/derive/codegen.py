"""jinja2's code generator with its repeated walks of the template's tree answered from one walk.

jinja2 turns a template's tree into Python source in a pass that walks subtrees again and again: every
macro, loop and assignment asks which names its body reads (``find_undeclared``), which symbols each frame
declares (``idtracking``), which filters and tests the template uses, and ``find_all`` for blocks, names and
namespace references, each through ``Node.iter_child_nodes``, a generator over the node's fields that
rebuilds the same list of children every time. For GigaChat 3.5's 3,490 nodes that is 57,000 calls and
about a third of the generation.

:class:`PreparedCodeGenerator` is jinja2's ``CodeGenerator`` with one step in front: one walk of the tree
gives each node its children (as ``iter_child_nodes`` computes them) and its place in a pre-order list, so
``iter_child_nodes()`` returns the stored children and ``find_all`` the matching slice of the list, in the
order jinja2's recursion yields them; the walk's additions are removed when the generation ends. Nothing
the generator decides changes, so the Python source it writes is jinja2's, character for character
(``tests/test_derive_codegen.py`` compares both on every template it has).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame

__all__ = ["PreparedCodeGenerator", "prepare"]

_ORIGINAL_CHILDREN = nodes.Node.iter_child_nodes
_MISSING = object()
_ADDED = ("iter_child_nodes", "find_all")


def _children(node: nodes.Node) -> list[nodes.Node]:
    """``node.iter_child_nodes()`` as a list: fields in order, a list field's nodes, a node field."""
    found: list[nodes.Node] = []
    attrs = vars(node)
    for name in node.fields:
        item = attrs.get(name, _MISSING)  # an unset field is skipped, as iter_fields skips it
        if isinstance(item, list):
            found.extend(n for n in item if isinstance(n, nodes.Node))
        elif isinstance(item, nodes.Node):
            found.append(item)
    return found


def _answers(node: nodes.Node, kids: tuple[nodes.Node, ...], order: list[nodes.Node], lo: int, hi: int) -> None:
    def iter_child_nodes(exclude: Any = None, only: Any = None) -> Iterator[nodes.Node]:
        if exclude is None and only is None:
            return iter(kids)
        return _ORIGINAL_CHILDREN(node, exclude, only)  # a subset of fields: jinja2's own answer

    def find_all(node_type: Any) -> Iterator[Any]:
        # The subtree below ``node`` is order[lo:hi], in the order jinja2's recursive find_all visits it.
        return iter([n for n in order[lo:hi] if isinstance(n, node_type)])

    attrs = vars(node)
    attrs["iter_child_nodes"] = iter_child_nodes
    attrs["find_all"] = find_all


def prepare(root: nodes.Node) -> Callable[[], None]:
    """Give every node of ``root``'s tree its stored children and subtree; returns the undo."""
    order: list[nodes.Node] = []
    # (node, None) enters a node; (node, (its index, its children)) closes it once its subtree is listed.
    stack: list[tuple[nodes.Node, tuple[int, tuple[nodes.Node, ...]] | None]] = [(root, None)]
    while stack:
        node, entered = stack.pop()
        if entered is not None:
            index, kids = entered
            _answers(node, kids, order, index + 1, len(order))
            continue
        kids = tuple(_children(node))
        stack.append((node, (len(order), kids)))
        order.append(node)
        stack.extend((kid, None) for kid in reversed(kids))

    def undo() -> None:
        for node in order:
            attrs = vars(node)
            for name in _ADDED:
                attrs.pop(name, None)

    return undo


class PreparedCodeGenerator(CodeGenerator):
    """jinja2's code generator, with the tree prepared by :func:`prepare` before the generation."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._visitors: dict[type, Callable[..., Any]] = {}

    def visit(self, node: nodes.Node, *args: Any, **kwargs: Any) -> Any:
        # jinja2 finds the visit method by formatting its name for every node; kept per node class here.
        visitor = self._visitors.get(type(node))
        if visitor is None:
            visitor = self._visitors[type(node)] = self.get_visitor(node) or self.generic_visit
        return visitor(node, *args, **kwargs)

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:  # noqa: N802 - jinja2's name
        undo = prepare(node)
        try:
            super().visit_Template(node, frame)
        finally:
            undo()  # the tree is left as the parser made it (and the closures' cycles broken)
