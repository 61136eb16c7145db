"""The mypyc build (``make compile``, ``make test-compiled``): the suite runs against it compiled, module by
module, and the list of modules it compiles stays true to the tree.

``make test`` runs these on the pure-Python tree (every module a ``.py``); ``make test-compiled`` sets
``STREAMPARSE_EXPECT_COMPILED=1`` and runs the whole suite on the compiled copy, where each listed module must
be an extension, so a copy that silently fell back to Python cannot pass for the compiled build.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPECT_COMPILED = os.environ.get("STREAMPARSE_EXPECT_COMPILED") == "1"


def _compile_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compile_script", ROOT / "scripts" / "compile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_listed_module_is_an_extension_exactly_in_the_compiled_build() -> None:
    listed = _compile_script().modules()
    assert "streamparse/core/engine.py" in listed and "streamparse/core/json_reader.py" in listed
    for rel in listed:
        module = importlib.import_module(rel[: -len(".py")].replace("/", "."))
        origin = module.__spec__.origin if module.__spec__ is not None else None
        assert origin is not None
        assert origin.endswith(tuple(EXTENSION_SUFFIXES)) == EXPECT_COMPILED, (rel, origin)


def test_streamparse_says_which_build_runs(capsys: pytest.CaptureFixture[str]) -> None:
    # What users and bug reports see (`streamparse.COMPILED`, `streamparse --version`) agrees with the build.
    import streamparse
    from streamparse.cli import main

    assert streamparse.COMPILED is EXPECT_COMPILED
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    build = "compiled core" if EXPECT_COMPILED else "pure Python"
    assert capsys.readouterr().out.strip() == f"streamparse {streamparse.__version__} ({build})"


def test_the_modules_left_out_exist_and_are_not_compiled() -> None:
    script = _compile_script()
    listed = set(script.modules())
    for rel in script.LEFT_OUT:
        assert (ROOT / rel).is_file(), rel
        assert rel not in listed
    # The declaration vocabulary is left out by name: it must still be there to be left out.
    assert any(p.name.startswith("declaration") for p in (ROOT / "streamparse" / "formats").glob("*.py"))
