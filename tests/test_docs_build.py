"""The docs site builds offline with --strict (a broken link, a missing snippet or page, or a docstring
reference mkdocstrings cannot resolve fails the build), and the generated pages hold what they promise."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, (
        "mkdocs build --strict failed (a new page goes in mkdocs.yml's nav; links must point at files under"
        " docs/):\n" + proc.stdout + proc.stderr
    )
    assert "WARNING" not in proc.stderr, proc.stderr
    return out


def test_api_reference_is_generated_from_the_docstrings(site: Path) -> None:
    parser = (site / "reference" / "parser.html").read_text(encoding="utf-8")
    assert "Push model output in, get events out." in parser  # StreamParser's docstring
    assert "for_model" in parser and "finish_reason" in parser
    events = (site / "reference" / "events.html").read_text(encoding="utf-8")
    assert "ToolCallRejected" in events and "arguments_json" in events


def test_sphinx_roles_in_docstrings_render_as_code(site: Path) -> None:
    providers = (site / "reference" / "providers.html").read_text(encoding="utf-8")
    assert ":class:" not in providers and ":func:" not in providers
    assert "<code>ProviderDelta</code>" in providers


def test_cookbook_includes_the_tested_example_files(site: Path) -> None:
    cookbook = html.unescape(re.sub(r"<[^>]+>", "", (site / "cookbook.html").read_text(encoding="utf-8")))
    assert "--8<--" not in cookbook  # every snippet was found and inlined
    for name in (
        "openai_sdk_stream.py",
        "proxy_in_front.py",
        "openai_tool_runner.py",
        "engine_deltas.py",
        "custom_format.py",
        "quickstart.py",
    ):
        first_line = (ROOT / "examples" / name).read_text(encoding="utf-8").splitlines()[0]
        assert first_line.strip('"') in cookbook, name


def test_every_docs_page_is_built(site: Path) -> None:
    pages = {p.relative_to(ROOT / "docs").with_suffix(".html") for p in (ROOT / "docs").rglob("*.md")}
    assert pages and sorted(str(p) for p in pages if not (site / p).exists()) == []
