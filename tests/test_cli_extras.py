"""`streamparse --version`, and a command whose optional dependency is missing naming the extra to install."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

import streamparse
from streamparse.cli import main

COMMAND_MODULE = importlib.import_module("streamparse.cli.main")  # the name `main` is also the function


def test_version_flag_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    build = "compiled core" if streamparse.COMPILED else "pure Python"  # (which build: tests/test_compiled.py)
    assert capsys.readouterr().out.strip() == f"streamparse {streamparse.__version__} ({build})"


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


# -- newcomer frictions -----------------------------------------------------------------------------


def _parse(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["parse", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_parse_openai_sse_on_plain_text_says_it_is_not_sse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "out.txt"
    src.write_text('Hello <tool_call>{"name": "f", "arguments": {}}</tool_call>', encoding="utf-8")
    code, out, err = _parse([str(src), "--input", "openai-sse"], capsys)
    assert code == 1 and out == ""
    assert "not a openai-sse stream" in err and "--input text" in err


def test_parse_reports_non_utf8_bytes_once_with_their_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "latin1.txt"
    src.write_bytes("café crème".encode("latin-1"))  # two bytes that are not UTF-8
    code, out, err = _parse([str(src), "--chunk-size", "1"], capsys)
    assert code == 0
    text = "".join(json.loads(line).get("text", "") for line in out.splitlines())
    assert text == "caf\ufffd cr\ufffdme"
    assert err.count("not valid UTF-8") == 1 and "2 byte(s) replaced" in err


def test_parse_unknown_model_says_it_fell_back_to_auto(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "out.txt"
    src.write_text("Hi.", encoding="utf-8")
    code, _, err = _parse([str(src), "--model", "acme/never-heard-of-it"], capsys)
    assert code == 0 and "no preset for model 'acme/never-heard-of-it': using formats=auto" in err
    code, _, err = _parse([str(src), "--model", "Qwen/Qwen3-8B"], capsys)
    assert code == 0 and err == ""


def test_parse_unknown_format_points_at_the_formats_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "out.txt"
    src.write_text("Hi.", encoding="utf-8")
    code, _, err = _parse([str(src), "--format", "hermez"], capsys)
    assert code == 1 and "`streamparse formats` lists them" in err


@pytest.mark.parametrize(
    ("content", "fragment"),
    [("{not json", "Expecting property name"), ('"a string"', "expected a JSON list"), ('[{"type": "function"}]', "")],
)
def test_bad_tools_file_error_names_the_file(
    content: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, tools = tmp_path / "out.txt", tmp_path / "my_tools.json"
    src.write_text("Hi.", encoding="utf-8")
    tools.write_text(content, encoding="utf-8")
    code, _, err = _parse([str(src), "--tools", str(tools)], capsys)
    assert code == 1 and f"--tools {tools}:" in err and fragment in err


def test_playground_on_a_busy_port_says_so_before_printing_a_url(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["playground", "--port", str(port)])
    out, err = capsys.readouterr()
    assert code == 2 and "http://" not in out
    assert f"cannot listen on 127.0.0.1:{port}" in err and "--port" in err


def test_importing_the_server_without_its_extra_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "starlette" or m.startswith("starlette.")] or ["starlette"]:
        monkeypatch.setitem(sys.modules, name, None)
    for name in [m for m in sys.modules if m.startswith("streamparse.server")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'streamparse-llm\[cli\]'"):
        from streamparse.server import create_app  # noqa: F401
