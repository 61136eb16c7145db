"""`streamparse --version`, and a command whose optional dependency is missing naming the extra to install."""

from __future__ import annotations

import importlib
import sys

import pytest

import streamparse
from streamparse.cli import main

COMMAND_MODULE = importlib.import_module("streamparse.cli.main")  # the name `main` is also the function


def test_version_flag_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"streamparse {streamparse.__version__}"


def test_version_is_a_release_string() -> None:
    parts = streamparse.__version__.split(".")
    assert len(parts) >= 3 and all(p.isdigit() for p in parts[:3])


@pytest.mark.parametrize("module", ["uvicorn", "starlette", "httpx"])
def test_serve_without_a_cli_dependency_says_which_extra_in_one_line(
    module: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A None entry in sys.modules makes `import module` raise ModuleNotFoundError, as if not installed. Its
    # submodules are blocked too: an import of an already loaded `starlette.routing` would not look at the parent.
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")] or [module]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "streamparse.server", raising=False)
    if module != "uvicorn":  # if the block failed, fail here rather than serve forever on port 8000
        import uvicorn

        monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("serve started despite the missing module"))
    code = main(["serve", "--upstream", "http://127.0.0.1:9/v1"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("streamparse serve: needs the 'cli' extra")
    assert "pip install 'streamparse-llm[cli]'" in err


def test_a_missing_module_outside_the_cli_extra_is_not_disguised(monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the extra's own modules get the one-line hint; any other missing module is a real bug and raises.
    def broken(args: object, out: object) -> int:
        raise ModuleNotFoundError("No module named 'yaml'", name="yaml")

    monkeypatch.setitem(COMMAND_MODULE._COMMANDS, "formats", broken)
    with pytest.raises(ModuleNotFoundError):
        main(["formats"])
