"""The README and docs/FORMATS.md list every family with its status (issue 17, "tests and evidence"): the
blocks `scripts/conformance.py --write-docs` writes name every catalog format, the catalog table at the top
of docs/FORMATS.md links every format, and every format has its own section."""

from __future__ import annotations

import re
from pathlib import Path

from streamparse import formats

ROOT = Path(__file__).resolve().parent.parent
CATALOG_DOC = ROOT / "docs/FORMATS.md"
START, END = "<!-- conformance:start -->", "<!-- conformance:end -->"


def _block(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text[text.index(START) : text.index(END)]


def test_the_formats_status_table_has_one_row_per_catalog_format() -> None:
    rows = re.findall(r"^\| \[([a-z0-9_]+)\]\(#", _block(CATALOG_DOC), re.M)
    assert rows == formats.names()


def test_the_readme_status_lists_name_every_catalog_format_once() -> None:
    block = _block(ROOT / "README.md")
    listed = [name.strip() for line in block.splitlines() if ": " in line for name in line.split(": ", 1)[1].split(",")]
    assert sorted(n.rstrip(".") for n in listed) == sorted(formats.names())


def test_every_catalog_format_is_in_the_catalog_table_and_has_a_section() -> None:
    doc = CATALOG_DOC.read_text(encoding="utf-8")
    glance = doc[doc.index("## All formats at a glance") : doc.index("## Status of each family")]
    linked = set(re.findall(r"^\| \[([a-z0-9_]+)\]\(#", glance, re.M))
    sections = set(re.findall(r"^### ([a-z0-9_]+)$", doc, re.M))
    for name in formats.names():
        assert name in linked, f"{name} is missing from the catalog table"
        assert name in sections, f"{name} has no section"
