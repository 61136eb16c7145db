"""The README as a new user reads it: every ```python block runs as written, and what it points to exists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
BLOCKS = [(README.count("\n", 0, m.start()) + 1, m.group(2)) for m in FENCE.finditer(README) if m.group(1) == "python"]


def test_readme_has_python_recipes() -> None:
    assert len(BLOCKS) >= 5  # use, pydantic/custom format, openai SDK stream, proxy, early dispatch


@pytest.mark.parametrize(("line", "code"), BLOCKS, ids=[f"line{line}" for line, _ in BLOCKS])
def test_python_block_runs_as_written(line: int, code: str, tmp_path: Path) -> None:
    # Each block on its own, as a user pasting it would run it: a fresh interpreter in an empty directory.
    script = tmp_path / f"readme_line{line}.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    assert proc.returncode == 0, f"README block at line {line} failed:\n{proc.stderr}"
    assert proc.stdout.strip(), f"README block at line {line} printed nothing"


def test_use_block_prints_the_text_the_running_arguments_and_the_validated_call() -> None:
    code = BLOCKS[0][1]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60).stdout
    lines = out.splitlines()
    assert lines[:2] == ["text: 'Let me check.'", "start: 0 lookup_order"]
    so_far = [line.removeprefix("arguments so far: ") for line in lines if line.startswith("arguments so far")]
    assert so_far[-2:] == ["{'order_id': 'A-'}", "{'order_id': 'A-1'}"]  # the string grows as it streams
    assert "call: lookup_order {'order_id': 'A-1'}" in lines
    assert "Which order? | On it. |" in out and "'name': 'lookup_order'" in out


def test_pydantic_lenient_and_custom_format_block_prints_model_instances() -> None:
    code = next(code for _, code in BLOCKS if "formats.declare" in code)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "get_weather(city='Lyon', days=3) ['lenient_types']",
        "schema_violation",
        "Sure. get_weather(city='Oslo', days=1)",
    ]


def test_make_targets_named_in_the_readme_exist() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, re.MULTILINE))
    named = set(re.findall(r"`make ([\w-]+)`", README)) | set(re.findall(r"^make ([\w-]+)", README, re.MULTILINE))
    assert {"demo", "test"} <= named
    assert sorted(named - targets) == []


def test_relative_links_point_at_files_in_the_repository() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert local, "the README links into docs/"
    assert sorted(link for link in local if not (ROOT / link).exists()) == []


def test_install_names_the_distribution_not_the_import_name() -> None:
    assert "pip install streamparse-llm" in README
    assert "pip install streamparse\n" not in README and "pip install streamparse " not in README


def test_install_commands_anywhere_in_the_docs_use_the_distribution_name() -> None:
    # `pip install streamparse` installs an unrelated Apache Storm library.
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "streamparse").rglob("*.py"))]
    wrong = re.compile(r"pip install '?streamparse(?![-\w])")
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in texts
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if wrong.search(line) and "unrelated" not in line  # the README says why the name differs
    ]
    assert offenders == []


def test_format_count_and_list_match_the_catalog() -> None:
    from streamparse import formats

    match = re.search(r"(\d+) formats in all", README)
    assert match and int(match.group(1)) == len(formats.names())
    listed = README[README.index("## Formats") :].split("##", 2)[1]
    assert [n for n in formats.names() if not re.search(rf"\b{n}\b", listed)] == []


def test_readme_names_what_ci_runs() -> None:
    ci = re.findall(r"^make ([\w-]+)", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.MULTILINE)
    sentence = re.search(r"CI \(`\.ci/run`\) runs ([^.]+)\.", README)
    assert ci and sentence
    assert re.findall(r"`make ([\w-]+)`", sentence.group(1)) == ci
