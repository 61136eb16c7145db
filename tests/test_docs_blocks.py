"""Every ```python block in docs/ runs as written (README.md's: tests/test_readme.py), and the cookbook
reads on the repository page: its recipes are the example files themselves, copied in (no include lines
left to render)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
EXAMPLE = re.compile(r"`(examples/[\w.]+\.py)`:\n\n\Z")


def _blocks() -> list[tuple[str, str, str | None]]:
    """(where, code, the example file the block copies or None) of every python block."""
    out = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if m.group(1) != "python":
                continue
            line = text.count("\n", 0, m.start()) + 1
            copied = EXAMPLE.search(text[max(0, m.start() - 200) : m.start()])
            out.append((f"{page.relative_to(ROOT)}:{line}", m.group(2), copied.group(1) if copied else None))
    return out


BLOCKS = _blocks()
RUN = [(where, code) for where, code, copied in BLOCKS if copied is None and not where.startswith("README")]
COPIES = [(where, code, copied) for where, code, copied in BLOCKS if copied is not None]


def test_the_pages_hold_python_blocks_and_cookbook_copies() -> None:
    assert len(RUN) >= 5 and len(COPIES) >= 8


@pytest.mark.parametrize(("where", "code"), RUN, ids=[where for where, _ in RUN])
def test_python_block_runs_as_written(where: str, code: str, tmp_path: Path) -> None:
    # A fresh interpreter in an empty directory, as a reader pasting the block would run it.
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    assert proc.returncode == 0, f"{where} failed:\n{proc.stderr}"


@pytest.mark.parametrize(("where", "code", "path"), COPIES, ids=[where for where, _, _ in COPIES])
def test_cookbook_recipe_is_its_example_file(where: str, code: str, path: str) -> None:
    # The example files run in tests/test_examples_*.py; the page must show them as they are.
    expected = (ROOT / path).read_text(encoding="utf-8").rstrip() + "\n"
    assert code == expected, f"{where} differs from {path}: run python scripts/sync_cookbook.py"


def test_no_page_has_an_include_line_left_unrendered() -> None:
    offenders = [str(p.relative_to(ROOT)) for p in PAGES if "--8<--" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_every_example_file_is_run_by_a_test() -> None:
    tests = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("test_examples_*.py"))
    names = sorted(p.name for p in (ROOT / "examples").glob("*.py"))
    assert [n for n in names if n not in tests] == []


def test_make_help_has_one_line_per_target() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = sorted(set(re.findall(r"^([a-z][\w-]*):", makefile, re.MULTILINE)))
    proc = subprocess.run(["make", "-s", "help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    listed = [line.split()[1] for line in proc.stdout.splitlines()]
    assert sorted(listed) == targets and len(listed) == len(set(listed))
    assert all(len(line.split(None, 2)) == 3 for line in proc.stdout.splitlines())  # each says what it does
