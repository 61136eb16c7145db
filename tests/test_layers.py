"""The package's shape, as docs/ENGINE.md ("Layers") states it: no import cycle, small modules.

The layer order itself is an import-linter contract in pyproject.toml, run by ``make lint``; these tests
pin what a contract cannot: cycles inside a layer and module size.
"""

from __future__ import annotations

import re
from pathlib import Path

import grimp

import streamparse

PACKAGE = Path(streamparse.__file__).parent
MAX_LINES = 500


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_counting_every_import() -> None:
    # grimp reads every import statement: top level, inside functions and under TYPE_CHECKING.
    graph = grimp.build_graph("streamparse", include_external_packages=False)
    assert _cycles(graph) == []


def test_the_cycle_finder_sees_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.a")
    graph.add_import(importer="p.b", imported="p.c")
    assert _cycles(graph) == [["p.a", "p.b"]]


def test_every_module_is_under_500_lines() -> None:
    sizes = {str(p.relative_to(PACKAGE)): len(p.read_text("utf-8").splitlines()) for p in PACKAGE.rglob("*.py")}
    assert {name: n for name, n in sizes.items() if n >= MAX_LINES} == {}


REPO = PACKAGE.parent
_OUTSIDE = re.compile(r"\.\./shared|\bseed 00\d|project workspace")
# In code, the catalog and the contract are named by their path in the repo (docs/...).
_BARE_DOC = re.compile(r"(?<![/\w])(?:FORMATS|API)\.md")
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _texts() -> list[Path]:
    found = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    for folder in ("streamparse", "tests", "benchmarks", "examples"):
        found += sorted((REPO / folder).rglob("*.py"))
    return [p for p in found if p.exists()]


def test_docs_and_comments_point_only_inside_the_repo() -> None:
    offenders = [
        f"{p.relative_to(REPO)}:{n}: {line.strip()}"
        for p in _texts()
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if p.name != "test_layers.py" and (_OUTSIDE.search(line) or (p.suffix == ".py" and _BARE_DOC.search(line)))
    ]
    assert offenders == []


def test_relative_links_in_the_docs_resolve() -> None:
    broken = []
    for p in _texts():
        if p.suffix != ".md":
            continue
        for target in _LINK.findall(p.read_text("utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (p.parent / target).exists():
                broken.append(f"{p.relative_to(REPO)} -> {target}")
    assert broken == []
