"""SGLang's own detector test files, run unchanged on SGLang's detectors and on streamparse's.

``make sglang-suite`` runs this in the engine venv (scripts/engine_env.sh)::

    python scripts/sglang_suite.py [--write-docs] [--from-git SGLANG_CLONE]

1. The files: SGLang's detector tests live only in its git repository (neither its sdist nor its wheel has
   them), which CI cannot reach (PyPI only). ``tests/integrations/sglang_suite_manifest.json`` records the
   repository, the commit and each file's SHA-256; the files themselves sit in ``.cache/sglang-tests/``
   (gitignored; no SGLang code is committed). ``--from-git DIR`` copies them out of a local clone of SGLang
   at that commit (``git show COMMIT:PATH``). Without the files, the target says so and exits 0, running
   nothing and claiming nothing; a file whose hash differs from the manifest is an error.
2. Run: pytest twice over the files that have a streamparse counterpart (``FILES``), with
   tests/integrations/sglang_suite_plugin.py (``SGLANG_SUITE_MODE=adapter`` puts streamparse's detectors in
   the place of SGLang's), a JUnit report each.
3. Report: per file (and per test class of the shared ``test_function_call_parser.py``), the tests that pass
   on SGLang's detectors and on streamparse's; every engine-only pass must be listed with its reason in
   tests/integrations/sglang_suite_expected.json, else the run fails. ``--write-docs`` writes the table and
   the lists into their own section of docs/integrations.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from suite_verdict import verdict

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "sglang-tests"
MANIFEST = ROOT / "tests" / "integrations" / "sglang_suite_manifest.json"
EXPECTED = ROOT / "tests" / "integrations" / "sglang_suite_expected.json"
DOC = ROOT / "docs" / "integrations.md"
BEGIN, END = "<!-- sglang-suite:begin -->", "<!-- sglang-suite:end -->"
SHARED = "test/registered/unit/function_call/test_function_call_parser.py"

# SGLang test file -> the SGLang detector(s) it tests -> the streamparse format(s) in their place.
FILES: dict[str, tuple[str, str]] = {
    SHARED: ("many (one class each)", "see the rows below"),
    "test/registered/unit/function_call/test_hermes_detector.py": ("hermes", "hermes"),
    "test/registered/unit/function_call/test_hunyuan_detector.py": ("hunyuan", "hy3_plain, hy3"),
    "test/registered/unit/function_call/test_llama32_detector.py": ("llama3", "llama3_json"),
    "test/registered/unit/function_call/test_minicpm5_detector.py": ("minicpm5", "minicpm5"),
    "test/registered/unit/function_call/test_mistral_detector.py": ("mistral", "mistral"),
    "test/registered/unit/function_call/test_parallel_tool_calls.py": ("qwen25, FunctionCallParser", "hermes"),
    "test/registered/unit/function_call/test_unknown_tool_name.py": ("base, qwen25", "hermes"),
    "test/registered/function_call/test_kimik2_detector.py": ("kimi_k2 (+ its reasoning detector)", "kimi_k2"),
}


def manifest() -> dict[str, object]:
    data: dict[str, object] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return data


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def from_git(clone: Path, info: dict[str, object]) -> None:
    """Copy the manifest's files out of a local SGLang clone at the manifest's commit."""
    files = info["files"]
    assert isinstance(files, dict)
    for path in files:
        blob = subprocess.run(
            ["git", "-C", str(clone), "show", f"{info['commit']}:{path}"], capture_output=True, check=True
        ).stdout
        (CACHE / path).parent.mkdir(parents=True, exist_ok=True)
        (CACHE / path).write_bytes(blob)


def check_cache(info: dict[str, object]) -> list[str]:
    """Problems with the cached files: missing ones, and ones whose hash is not the manifest's."""
    files = info["files"]
    assert isinstance(files, dict)
    problems = []
    for path, digest in files.items():
        local = CACHE / path
        if not local.exists():
            problems.append(f"missing: {path}")
        elif sha256(local) != digest:
            problems.append(f"differs from the manifest: {path}")
    return problems


def run(mode: str, report: Path) -> dict[str, dict[str, str]]:
    """pytest over ``FILES`` in ``mode``; ``{row: {test: outcome}}`` from the JUnit report."""
    env = {**os.environ, "SGLANG_SUITE_MODE": mode, "PYTHONPATH": str(ROOT / "tests" / "integrations")}
    env.pop("STREAMPARSE_ENGINE_TESTS", None)
    (CACHE / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    cmd = [sys.executable, "-m", "pytest", "-q", "--noconftest", "-p", "sglang_suite_plugin", "--rootdir", str(CACHE)]
    cmd += ["-c", str(CACHE / "pytest.ini"), f"--junitxml={report}", "-W", "ignore", "--tb=no", "-rN", *FILES]
    subprocess.run(cmd, cwd=CACHE, env=env, check=False, stdout=subprocess.DEVNULL)
    return outcomes(report)


def outcomes(report: Path) -> dict[str, dict[str, str]]:
    modules = {f.removesuffix(".py").replace("/", "."): f for f in FILES}
    out: dict[str, dict[str, str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        module = next((m for m in modules if classname == m or classname.startswith(m + ".")), None)
        if module is None:
            continue
        cls = classname[len(module) + 1 :]
        row = f"{modules[module]}::{cls}" if modules[module] == SHARED else modules[module]
        outcome = "passed"
        if case.find("skipped") is not None:
            outcome = "skipped"
        elif case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        out.setdefault(row, {})[f"{cls}.{case.get('name', '')}".lstrip(".")] = outcome
    return out


def table(engine: dict[str, dict[str, str]], adapter: dict[str, dict[str, str]]) -> list[str]:
    rows = ["| SGLang test file | SGLang detector | streamparse format | tests | SGLang passes | streamparse passes |"]
    rows.append("|---|---|---|---|---|---|")
    totals = [0, 0, 0]
    keys = sorted(set(engine) | set(adapter), key=lambda k: (k.split("::")[0] != SHARED, k))
    for key in keys:
        e_res, a_res = engine.get(key, {}), adapter.get(key, {})
        tests = max(len(e_res), len(a_res))
        e = sum(v == "passed" for v in e_res.values())
        a = sum(v == "passed" for v in a_res.values())
        totals = [totals[0] + tests, totals[1] + e, totals[2] + a]
        theirs, ours = FILES.get(key) or _shared_row(key.split("::")[-1])
        label = key.split("/")[-1]
        rows.append(f"| `{label}` | {theirs} | {ours} | {tests} | {e} | {a} |")
    rows.append(f"| **all** | | | **{totals[0]}** | **{totals[1]}** | **{totals[2]}** |")
    return rows


def _shared_row(test_class: str) -> tuple[str, str]:
    """A class of the shared file: the SGLang detector it tests and the formats in its place."""
    sys.path.insert(0, str(ROOT / "tests" / "integrations"))
    from sglang_suite_plugin import DETECTORS

    cls = test_class.removeprefix("Test")
    for (_module, name), formats in DETECTORS.items():
        if name == cls:
            return f"`{name}`", ", ".join(formats)
    return "", ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--write-docs", action="store_true", help="write the table into docs/integrations.md")
    ap.add_argument("--from-git", type=Path, help="copy the files out of this local SGLang clone first")
    args = ap.parse_args()
    info = manifest()
    if args.from_git:
        from_git(args.from_git, info)
    problems = check_cache(info)
    if problems and all(p.startswith("missing") for p in problems):
        print(
            f"sglang-suite: NOT RUN. SGLang's detector test files are not available here: they live only in "
            f"{info['repo']}'s git repository (commit {info['commit']}), not in its sdist or wheel on PyPI, "
            f"and CI reaches only PyPI. Copy them into {CACHE.relative_to(ROOT)}/ with "
            f"`python scripts/sglang_suite.py --from-git SGLANG_CLONE`. Nothing was run; nothing passed."
        )
        return 0
    if problems:
        print("sglang-suite: the cached files are not the manifest's:\n  " + "\n  ".join(problems))
        return 1
    artifacts = ROOT / ".artifacts"
    artifacts.mkdir(exist_ok=True)
    engine = run("engine", artifacts / "sglang-suite-engine.xml")
    adapter = run("adapter", artifacts / "sglang-suite-adapter.xml")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    rows = table(engine, adapter)
    print("\n".join(rows))
    if args.write_docs:
        write_docs(rows, expected, info)
    return verdict(engine, adapter, expected, artifacts / "sglang-suite.json", "SGLang's detector")


TITLES = {
    "fail_closed": "Fail-closed differences: SGLang hands on something unsafe, streamparse does not",
    "private": "Out of scope: tests of SGLang detector internals (private attributes, helper functions)",
    "convention": "Conventions that differ (streamparse's documented behaviour)",
    "open": "Open: SGLang behaviour not matched yet",
}


def write_docs(rows: list[str], expected: dict[str, dict[str, str]], info: dict[str, object]) -> None:
    """The table and the listed differences, between this suite's markers in docs/integrations.md."""
    body = [f"Files: `{info['repo']}` at `{info['commit']}` ({info['date']}).", "", *rows]
    for key, title in TITLES.items():
        entries = sorted(expected.get(key, {}).items())
        body += ["", f"{title}:", "", *(f"- `{test}`: {why}" for test, why in entries)] + (
            [] if entries else ["- none"]
        )
    before, _, rest = DOC.read_text(encoding="utf-8").partition(BEGIN)
    after = rest.partition(END)[2]
    DOC.write_text(f"{before}{BEGIN}\n" + "\n".join(body) + f"\n\n{END}{after}", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
