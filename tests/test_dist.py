"""The distribution as a user gets it: build the sdist and wheel, install the wheel into a fresh venv.

Slow compared with the rest of the suite (a build, a venv, an install of the four core dependencies
from the package index or pip's cache), so everything shares one module-scoped build.

The compiled wheel (``STREAMPARSE_COMPILE=1``, setup.py: the parsing core as mypyc extensions) is built from
the sdist and installed in its own venv only in the compiled run (``make test-compiled``, which sets
``STREAMPARSE_EXPECT_COMPILED=1``; CI runs it): about a minute of CPU, not spent twice.
"""

from __future__ import annotations

import email.message
import email.parser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
from test_compiled import EXPECT_COMPILED, _compile_script

ROOT = Path(__file__).resolve().parents[1]
DIST_NAME = "streamparse-llm"
# What the source archive must hold besides the package, so that the suite, examples and docs run from it.
SDIST_TREES = ("tests", "tests_browser", "examples", "docs", "benchmarks", "scripts")
SDIST_FILES = ("LICENSE", "README.md", "Makefile", "mkdocs.yml", "pyproject.toml", "MANIFEST.in", ".ci/run")


def _version() -> str:
    text = (ROOT / "streamparse" / "_version.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    assert match, "streamparse/_version.py must assign __version__ a string literal"
    return match.group(1)


def _clean_env() -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE makes setuptools warn that it skips byte-compiling: an artefact of the
    # caller's environment, not of the package, so the build runs without it. STREAMPARSE_COMPILE is asked
    # for by the compiled build alone: the default build is the pure one whatever the caller's environment.
    drop = ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "STREAMPARSE_COMPILE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


class Built:
    def __init__(self, out: Path, log: str) -> None:
        self.log = log
        wheels = list(out.glob("*.whl"))
        sdists = list(out.glob("*.tar.gz"))
        assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
        self.wheel = wheels[0]
        self.sdist = sdists[0]


# Left out of the copy that is built: environments, caches and earlier build output. A stale
# `*.egg-info/SOURCES.txt` in particular would let files that MANIFEST.in no longer names into the sdist.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv*", "*.egg-info", "build", "dist", "site", "__pycache__", "*.pyc", ".*_cache", ".hypothesis"
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    src = tmp_path_factory.mktemp("src") / "tree"
    shutil.copytree(ROOT, src, ignore=_NOT_SOURCE, symlinks=True)
    out = tmp_path_factory.mktemp("dist")
    # Without isolation: the build backend (setuptools) comes from the test extra, so no download is needed.
    # By default `build` makes the sdist first and the wheel from the unpacked sdist, which also proves the
    # sdist is buildable on its own.
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        env=_clean_env(),
        timeout=300,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log
    return Built(out, log)


def _venv_with(wheel: Path, where: Path) -> Path:
    """A new venv (no system site-packages) at ``where`` with only ``wheel`` and its core dependencies."""
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    proc = subprocess.run(
        [str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        env=_clean_env(),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return where


@pytest.fixture(scope="module")
def fresh_venv(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv (no system site-packages) with only the built wheel and its core dependencies."""
    return _venv_with(built.wheel, tmp_path_factory.mktemp("venv") / "v")


def _unpack(sdist: Path, into: Path) -> Path:
    with tarfile.open(sdist) as tf:
        tf.extractall(into, filter="data")
    return into / sdist.name.removesuffix(".tar.gz")


def _wheel_file(wheel: Path) -> email.message.Message:
    """The wheel's ``.dist-info/WHEEL``: its tags and whether it is pure."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/WHEEL"))
        return email.parser.Parser().parsestr(zf.read(name).decode("utf-8"))


def _is_extension(name: str) -> bool:
    return name.endswith((*EXTENSION_SUFFIXES, ".pyd", ".so", ".c", ".h"))


def test_build_log_has_no_warnings(built: Built) -> None:
    warnings = [line for line in built.log.splitlines() if re.search(r"warn|deprecat", line, re.IGNORECASE)]
    assert warnings == []


def test_artifacts_are_named_for_the_distribution_and_its_version(built: Built) -> None:
    stem = f"{DIST_NAME.replace('-', '_')}-{_version()}"
    assert built.wheel.name == f"{stem}-py3-none-any.whl"
    assert built.sdist.name == f"{stem}.tar.gz"


def test_the_default_wheel_is_pure_python(built: Built) -> None:
    # Without STREAMPARSE_COMPILE: the fallback for every platform, no extension module in it.
    wheel = _wheel_file(built.wheel)
    assert wheel.get_all("Tag") == ["py3-none-any"]
    assert wheel["Root-Is-Purelib"] == "true"
    with zipfile.ZipFile(built.wheel) as zf:
        assert [n for n in zf.namelist() if _is_extension(n)] == []


def test_wheel_metadata_declares_spdx_license_classifiers_and_no_invented_urls(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as zf:
        names = zf.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(zf.read(info).decode("utf-8"))
    assert meta["Name"] == DIST_NAME
    assert meta["Version"] == _version()
    assert meta["License-Expression"] == "MIT"
    assert meta["License"] is None  # the deprecated free-text field is gone
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "streamparse/py.typed" in names
    assert any(n.startswith("streamparse/recordings/") and n.endswith(".json") for n in names)
    assert not any(n.startswith(("tests/", "examples/", "benchmarks/")) for n in names)
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # the SPDX expression replaces them
    # Not published yet: no project URL rather than one that opens nothing (see pyproject.toml).
    assert meta.get_all("Project-URL") is None
    requires = meta.get_all("Requires-Dist") or []
    assert {r.split(">")[0].split(";")[0].strip() for r in requires if "extra ==" not in r} == {
        "pydantic",
        "jsonschema",
        "jsonschema-rs",  # the compiled pre-check of tool arguments (streamparse/schema_fast.py)
        "anyio",
    }


def _tracked(tree: str) -> set[str]:
    """Files of ``tree`` that belong in the archive: git's list when this is a clone, else the disk's."""
    git = shutil.which("git")
    if git and (ROOT / ".git").exists():
        proc = subprocess.run(
            [git, "ls-files", "--cached", "--others", "--exclude-standard", "--", tree],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return {line for line in proc.stdout.splitlines() if (ROOT / line).is_file()}
    return {
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / tree).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pyc")
    }


def test_sdist_holds_tests_examples_docs_and_license(built: Built) -> None:
    with tarfile.open(built.sdist) as tf:
        top = built.sdist.name.removesuffix(".tar.gz") + "/"
        members = {m.name.removeprefix(top) for m in tf.getmembers() if m.isfile()}
    expected = set(SDIST_FILES)
    for tree in SDIST_TREES:
        expected |= _tracked(tree)
    assert "examples/quickstart.py" in expected and "docs/ENGINE.md" in expected  # the listing saw them
    assert sorted(expected - members) == []
    assert "PKG-INFO" in members and "streamparse/_version.py" in members


@pytest.fixture(scope="module")
def unpacked(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _unpack(built.sdist, tmp_path_factory.mktemp("sdist"))


def test_docs_site_builds_from_the_unpacked_sdist(unpacked: Path, tmp_path: Path) -> None:
    env = dict(_clean_env(), NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=unpacked,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "cookbook.html").exists() and (tmp_path / "site" / "reference" / "parser.html").exists()


def test_example_tests_pass_from_the_unpacked_sdist(unpacked: Path) -> None:
    src = unpacked
    tests = sorted(p.name for p in (src / "tests").glob("test_examples*.py"))
    assert tests, "the sdist has no example tests"
    # The example tests put the unpacked tree first on PYTHONPATH, so the examples import its package.
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *[f"tests/{t}" for t in tests]],
        cwd=src,
        capture_output=True,
        text=True,
        env=_clean_env(),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\d+ passed", proc.stdout) and "failed" not in proc.stdout


def test_fresh_venv_imports_the_wheel_and_reports_its_version(fresh_venv: Path) -> None:
    python = str(fresh_venv / "bin" / "python")
    code = "import streamparse, pathlib; print(streamparse.__version__); print(pathlib.Path(streamparse.__file__))"
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=_clean_env(), cwd=fresh_venv)
    assert proc.returncode == 0, proc.stderr
    version, location = proc.stdout.splitlines()
    assert version == _version()
    assert Path(location).is_relative_to(fresh_venv)  # the installed copy, not the source tree
    cli = subprocess.run(
        [str(fresh_venv / "bin" / "streamparse"), "--version"], capture_output=True, text=True, env=_clean_env()
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.strip() == f"streamparse {_version()} (pure Python)"  # the default wheel is the pure one


def test_fresh_venv_parses_with_the_core_install_alone(fresh_venv: Path) -> None:
    code = (
        "from streamparse import parse\n"
        'r = parse(\'Hi<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>\', formats=[\'hermes\'])\n'
        "print(r.text, r.tool_calls[0].name, r.tool_calls[0].arguments)\n"
    )
    proc = subprocess.run(
        [str(fresh_venv / "bin" / "python"), "-c", code], capture_output=True, text=True, env=_clean_env()
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Hi f {'x': 1}"


def test_serve_without_the_cli_extra_names_the_extra_in_one_line(fresh_venv: Path) -> None:
    proc = subprocess.run(
        [str(fresh_venv / "bin" / "streamparse"), "serve", "--upstream", "http://127.0.0.1:9/v1"],
        capture_output=True,
        text=True,
        env=_clean_env(),
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "streamparse-llm[cli]" in lines[0] and lines[0].startswith("streamparse serve:")


def test_demo_in_a_pipe_and_formats_run_with_the_core_install(fresh_venv: Path) -> None:
    # Only the live terminal view needs rich (the cli extra); piped output is plain text.
    exe = str(fresh_venv / "bin" / "streamparse")
    demo = subprocess.run([exe, "demo", "--speed", "0"], capture_output=True, text=True, env=_clean_env(), timeout=120)
    assert demo.returncode == 0, demo.stderr
    assert "Traceback" not in demo.stderr and demo.stdout.strip()
    fmts = subprocess.run([exe, "formats"], capture_output=True, text=True, env=_clean_env(), timeout=60)
    assert fmts.returncode == 0, fmts.stderr
    assert fmts.stdout.startswith("hermes")


def test_extras_refer_to_this_distribution_by_its_own_name() -> None:
    # `streamparse[...]` inside an extra would pull the unrelated `streamparse` from the package index.
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert meta["name"] == DIST_NAME
    wrong = [
        f"{extra}: {req}"
        for extra, reqs in meta["optional-dependencies"].items()
        for req in reqs
        if re.match(r"streamparse(?![-\w])", req)
    ]
    assert wrong == []
    own = [req for reqs in meta["optional-dependencies"].values() for req in reqs if req.startswith(DIST_NAME)]
    assert own, "the test extra builds on the cli extra by name"


def test_wheel_carries_every_package_file(built: Built) -> None:
    # Package data (recordings, static pages, py.typed) is easy to forget in package-data: compare with the tree.
    with zipfile.ZipFile(built.wheel) as zf:
        names = set(zf.namelist())
    expected = {p for p in _tracked("streamparse") if "__pycache__" not in p and not p.endswith(".pyc")}
    assert "streamparse/py.typed" in expected
    assert sorted(expected - names) == []


# The compiled wheel: STREAMPARSE_COMPILE=1 (setup.py), built from the sdist as a user without a clone builds it.


@pytest.fixture(scope="module")
def compiled_wheel(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not EXPECT_COMPILED:
        pytest.skip("about a minute of CPU: built in the compiled run (make test-compiled, which CI runs)")
    src = _unpack(built.sdist, tmp_path_factory.mktemp("compiled-src"))
    out = tmp_path_factory.mktemp("compiled-dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        env=dict(_clean_env(), STREAMPARSE_COMPILE="1"),
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, sorted(p.name for p in out.iterdir())
    return wheels[0]


def test_compiled_wheel_is_a_platform_wheel_whose_listed_modules_are_extensions(
    built: Built, compiled_wheel: Path
) -> None:
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    stem = f"{DIST_NAME.replace('-', '_')}-{_version()}"
    match = re.fullmatch(rf"{re.escape(stem)}-{python}-{python}-(\w+)\.whl", compiled_wheel.name)
    assert match and match.group(1) != "any", compiled_wheel.name
    wheel = _wheel_file(compiled_wheel)
    assert wheel.get_all("Tag") == [f"{python}-{python}-{match.group(1)}"]
    assert wheel["Root-Is-Purelib"] == "false"
    with zipfile.ZipFile(compiled_wheel) as zf:
        names = set(zf.namelist())
    with zipfile.ZipFile(built.wheel) as zf:
        pure = set(zf.namelist())
    suffix = EXTENSION_SUFFIXES[0]  # the interpreter's own tag, as setuptools names what it builds
    listed = {rel.removesuffix(".py") + suffix for rel in _compile_script().modules()}
    assert "streamparse/core/engine" + suffix in listed
    runtime = {n for n in names if n.startswith("streamparse/_native__mypyc") and n.endswith(suffix)}
    assert len(runtime) == 1, runtime  # mypyc's shared runtime, inside the package (group_name)
    # Every listed module compiled, nothing else, no generated C; besides them, the pure wheel's files.
    assert {n for n in names if _is_extension(n)} == listed | runtime
    assert names - listed - runtime == pure


@pytest.fixture(scope="module")
def compiled_venv(compiled_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _venv_with(compiled_wheel, tmp_path_factory.mktemp("compiled-venv") / "v")


def test_compiled_wheel_runs_its_core_compiled_in_a_fresh_venv(compiled_venv: Path) -> None:
    code = (
        "import streamparse, streamparse.core.engine as engine\n"
        "from streamparse import StreamParser\n"
        "p = StreamParser(formats=['hermes'], record=True)\n"
        'for piece in [\'Hi<tool\', \'_call>{"name": "f", "argu\', \'ments": {"x": 1}}</tool_call>\']:\n'
        "    p.feed(piece)\n"
        "p.close()\n"
        "r = p.result()\n"
        "print(streamparse.COMPILED)\n"
        "print(engine.__file__)\n"
        "print(r.text, r.tool_calls[0].name, r.tool_calls[0].arguments)\n"
    )
    proc = subprocess.run(
        [str(compiled_venv / "bin" / "python"), "-c", code],
        capture_output=True,
        text=True,
        env=_clean_env(),
        cwd=compiled_venv,
    )
    assert proc.returncode == 0, proc.stderr
    compiled, engine, parsed = proc.stdout.splitlines()
    assert compiled == "True"
    assert Path(engine).is_relative_to(compiled_venv) and engine.endswith(tuple(EXTENSION_SUFFIXES)), engine
    assert parsed == "Hi f {'x': 1}"
    cli = subprocess.run(
        [str(compiled_venv / "bin" / "streamparse"), "--version"], capture_output=True, text=True, env=_clean_env()
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.strip() == f"streamparse {_version()} (compiled core)"


def test_compiled_build_asks_for_mypy_and_the_pure_build_for_nothing(built: Built, tmp_path: Path) -> None:
    # What an isolated build (`python -m build`, `pip install .`) installs before it builds the wheel: mypy,
    # which carries mypyc, as the test extra pins it.
    src = _unpack(built.sdist, tmp_path)
    test_extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    mypy = [r for r in test_extra["optional-dependencies"]["test"] if r.startswith("mypy")]
    assert len(mypy) == 1
    code = "from setuptools import build_meta; print(repr(build_meta.get_requires_for_build_wheel()))"
    for env, expected in ((dict(_clean_env(), STREAMPARSE_COMPILE="1"), mypy), (_clean_env(), [])):
        proc = subprocess.run(
            [sys.executable, "-c", code], cwd=src, capture_output=True, text=True, env=env, timeout=300
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.strip().splitlines()[-1] == repr(expected)


def test_compiled_build_without_mypyc_fails_instead_of_building_a_pure_wheel(built: Built, tmp_path: Path) -> None:
    src = _unpack(built.sdist, tmp_path / "src")
    shim = tmp_path / "shim" / "mypyc"  # first on the path: `import mypyc` fails as if mypy were missing
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text('raise ImportError("mypyc hidden by the test")\n')
    out = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        env=dict(_clean_env(), STREAMPARSE_COMPILE="1", PYTHONPATH=str(shim.parent)),
        timeout=300,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, log
    assert "STREAMPARSE_COMPILE=1, but mypyc cannot be imported (mypyc hidden by the test)" in log
    assert not out.exists() or list(out.glob("*.whl")) == []


def test_compiled_editable_install_is_refused(built: Built, tmp_path: Path) -> None:
    # Its extensions would land in the source tree and shadow every later edit of the modules.
    src = _unpack(built.sdist, tmp_path / "src")
    code = f"from setuptools import build_meta; build_meta.build_editable({str(tmp_path / 'out')!r})"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=src,
        capture_output=True,
        text=True,
        env=dict(_clean_env(), STREAMPARSE_COMPILE="1"),
        timeout=300,
    )
    assert proc.returncode != 0
    assert "STREAMPARSE_COMPILE=1 builds a wheel, not an editable install" in proc.stdout + proc.stderr
    assert not list(src.rglob("*.so"))
