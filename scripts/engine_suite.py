"""The engines' own parser test files, run unchanged on the engine's parsers and on streamparse's adapters.

``make engine-suite`` runs this in the engine venv (scripts/engine_env.sh)::

    python scripts/engine_suite.py [--write-docs]

1. Fetch: vLLM's test files are in its release sdist (not in the wheel). ``pip download --no-binary vllm``
   unpacks the sdist into pip's temporary folder and then fails to build it (no toolchain, and no build
   isolation so nothing else is installed); ``--no-clean`` leaves the folder, from which ``tests/__init__.py``,
   ``tests/tool_parsers/`` and ``tests/reasoning/`` are copied into ``.cache/engine-suite/vllm-<version>``
   (gitignored). Nothing of vLLM is committed. SGLang publishes no sdist for its release and its wheel has
   no tests: its detector tests are run when a copy is in ``.cache/engine-suite/sglang/test`` (see
   docs/integrations.md).
2. Run: pytest twice over the files that have a streamparse counterpart (``FILES``), with
   tests/integrations/engine_suite_plugin.py (offline tokenizer; ``ENGINE_SUITE_MODE=adapter`` puts the
   adapters in the engine parsers' place), a JUnit report each.
3. Report: per file, how many tests pass on the engine's parser and on the adapter; every test the engine
   passes and the adapter fails must be listed in tests/integrations/engine_suite_expected.json with its
   reason (a fail-closed difference, or a test of the engine parser's private attributes), else the run
   fails. ``--write-docs`` writes the table and both lists into docs/integrations.md.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from suite_verdict import verdict

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "engine-suite"
VLLM_VERSION = "0.33.0"
EXPECTED = ROOT / "tests" / "integrations" / "engine_suite_expected.json"
DOC = ROOT / "docs" / "integrations.md"
BEGIN, END = "<!-- engine-suite:begin -->", "<!-- engine-suite:end -->"

# vLLM test file -> the engine parser(s) it tests -> the adapter in their place (engine_suite_plugin.py).
FILES: dict[str, tuple[str, str]] = {
    "tool_parsers/test_hermes_tool_parser.py": ("hermes, granite4", "streamparse_hermes"),
    "tool_parsers/test_granite4_tool_parser.py": ("granite4", "streamparse_hermes"),
    "tool_parsers/test_granite_tool_parser.py": ("granite", "streamparse_granite"),
    "tool_parsers/test_deepseekv3_tool_parser.py": ("deepseek_v3", "streamparse_deepseek_v3"),
    "tool_parsers/test_deepseekv31_tool_parser.py": ("deepseek_v31", "streamparse_deepseek_v31"),
    "tool_parsers/test_deepseekv32_tool_parser.py": ("deepseek_v32", "streamparse_deepseek_dsml"),
    "tool_parsers/test_glm4_moe_tool_parser.py": ("glm45", "streamparse_glm45"),
    "tool_parsers/test_glm47_moe_tool_parser.py": ("glm47", "streamparse_glm45"),
    "tool_parsers/test_internlm2_tool_parser.py": ("internlm", "streamparse_internlm"),
    "tool_parsers/test_jamba_tool_parser.py": ("jamba", "streamparse_jamba"),
    "tool_parsers/test_kimi_k2_tool_parser.py": ("kimi_k2", "streamparse_kimi_k2"),
    "tool_parsers/test_llama3_json_tool_parser.py": ("llama3_json", "streamparse_llama3_json"),
    "tool_parsers/test_llama4_pythonic_tool_parser.py": ("llama4_pythonic", "streamparse_pythonic"),
    "tool_parsers/test_pythonic_tool_parser.py": ("pythonic", "streamparse_pythonic"),
    "tool_parsers/test_olmo3_tool_parser.py": ("olmo3", "streamparse_pythonic"),
    "tool_parsers/test_lfm2_tool_parser.py": ("lfm2", "streamparse_pythonic"),
    "tool_parsers/test_minimax_m2_tool_parser.py": ("minimax_m2", "streamparse_minimax"),
    "tool_parsers/test_phi4mini_tool_parser.py": ("phi4_mini_json", "streamparse_phi4_mini"),
    "tool_parsers/test_qwen3coder_tool_parser.py": ("qwen3_coder", "streamparse_qwen3_coder"),
    "tool_parsers/test_xlam_tool_parser.py": ("xlam", "streamparse_xlam"),
    "tool_parsers/test_gemma4_tool_parser.py": ("gemma4", "streamparse_gemma4"),
    "tool_parsers/test_functiongemma_tool_parser.py": ("functiongemma", "streamparse_gemma4"),
    "reasoning/test_qwen3_reasoning_parser.py": ("qwen3", "streamparse_qwen3"),
    "reasoning/test_deepseekr1_reasoning_parser.py": ("deepseek_r1", "streamparse_deepseek_r1"),
    "reasoning/test_deepseekv3_reasoning_parser.py": ("deepseek_v3", "streamparse_deepseek_v3"),
    "reasoning/test_glm4_moe_reasoning_parser.py": ("glm45", "streamparse_glm45"),
    "reasoning/test_minimax_m2_reasoning_parser.py": ("minimax_m2", "streamparse_minimax_m2"),
    "reasoning/test_ernie45_reasoning_parser.py": ("ernie45", "streamparse_ernie45"),
    "reasoning/test_kimi_k2_reasoning_parser.py": ("kimi_k2", "streamparse_kimi_k2"),
    "reasoning/test_olmo3_reasoning_parser.py": ("olmo3", "streamparse_olmo3"),
}
SUPPORT = ("__init__.py", "tool_parsers/__init__.py", "tool_parsers/utils.py", "tool_parsers/common_tests.py")
SUPPORT += ("reasoning/__init__.py", "reasoning/utils.py", "parser/__init__.py", "parser/engine/__init__.py")
SUPPORT += ("parser/engine/replay_harness.py",)


def fetch_vllm(dest: Path) -> Path:
    """vLLM's test files from its sdist, cached in ``dest``; returns the folder that holds ``tests/``."""
    marker = dest / "tests" / ".complete"
    if marker.exists():
        return dest
    with tempfile.TemporaryDirectory(prefix="engine-suite-") as tmp:
        env = {**os.environ, "TMPDIR": tmp}
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", "vllm", "--no-build-isolation"]
        cmd += ["--no-clean", "--quiet", "--disable-pip-version-check", f"vllm=={VLLM_VERSION}", "-d", f"{tmp}/dl"]
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        found = glob.glob(f"{tmp}/pip-download-*/vllm_*/tests/tool_parsers")
        if not found:
            raise SystemExit(f"vllm=={VLLM_VERSION} sdist: tests/tool_parsers not found (pip download failed?)")
        src = Path(found[0]).parent
        if dest.exists():
            shutil.rmtree(dest)
        for rel in (*SUPPORT, *FILES):
            (dest / "tests" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / rel, dest / "tests" / rel)
    marker.write_text(VLLM_VERSION + "\n")
    return dest


def run(where: Path, mode: str, report: Path) -> dict[str, dict[str, str]]:
    """pytest over ``FILES`` in ``mode``; ``{file: {test: outcome}}`` from the JUnit report."""
    env = {**os.environ, "ENGINE_SUITE_MODE": mode, "PYTHONPATH": str(ROOT / "tests" / "integrations")}
    env.pop("STREAMPARSE_ENGINE_TESTS", None)
    (where / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    cmd = [sys.executable, "-m", "pytest", "-q", "--noconftest", "-p", "engine_suite_plugin", "--rootdir", str(where)]
    cmd += ["-c", str(where / "pytest.ini"), f"--junitxml={report}", "-W", "ignore", "--tb=no", "-rN", "--runxfail"]
    cmd += [f"tests/{f}" for f in FILES]
    subprocess.run(cmd, cwd=where, env=env, check=False, stdout=subprocess.DEVNULL)
    return outcomes(report)


def outcomes(report: Path) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {f: {} for f in FILES}
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "")
        path = module.split(".")
        # classname is tests.tool_parsers.test_x[.Class]: the file is the first three parts.
        file = "/".join(path[1:3]) + ".py"
        name = ".".join(path[3:] + [case.get("name", "")])
        if file not in out:
            continue
        if case.find("skipped") is not None:
            outcome = "skipped"
        elif case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        else:
            outcome = "passed"
        out[file][name] = outcome
    return out


def table(engine: dict[str, dict[str, str]], adapter: dict[str, dict[str, str]]) -> list[str]:
    rows = ["| vLLM test file | engine parser | adapter | tests | engine passes | adapter passes |"]
    rows.append("|---|---|---|---|---|---|")
    totals = [0, 0, 0]
    for file, (theirs, ours) in FILES.items():
        tests = max(len(engine[file]), len(adapter[file]))
        e = sum(v == "passed" for v in engine[file].values())
        a = sum(v == "passed" for v in adapter[file].values())
        totals = [totals[0] + tests, totals[1] + e, totals[2] + a]
        rows.append(f"| `{file}` | `{theirs}` | `{ours}` | {tests} | {e} | {a} |")
    rows.append(f"| **all** | | | **{totals[0]}** | **{totals[1]}** | **{totals[2]}** |")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--write-docs", action="store_true", help="write the table into docs/integrations.md")
    args = ap.parse_args()
    where = fetch_vllm(CACHE / f"vllm-{VLLM_VERSION}")
    artifacts = ROOT / ".artifacts"
    artifacts.mkdir(exist_ok=True)
    engine = run(where, "engine", artifacts / "engine-suite-engine.xml")
    adapter = run(where, "adapter", artifacts / "engine-suite-adapter.xml")
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    rows = table(engine, adapter)
    print("\n".join(rows))
    if args.write_docs:
        write_docs(rows, expected)
    return verdict(engine, adapter, expected, artifacts / "engine-suite.json", "vLLM's parser")


def write_docs(rows: list[str], expected: dict[str, dict[str, str]]) -> None:
    lines = [BEGIN, *rows, ""]
    titles = {
        "fail_closed": "Fail-closed differences: the engine hands on something unsafe, the adapter does not",
        "kept": "Text the engine drops and streamparse keeps (every character of the output is accounted for)",
        "private": "Out of scope: tests of the engine parser's private attributes",
        "harness": "Artifacts of the harness (one adapter in place of two engine parsers; the files' own streaming "
        "helpers, which differ from vLLM's serving loop)",
        "open": "Open: engine behaviour not matched yet",
    }
    for key, title in titles.items():
        lines += [f"{title}:", ""]
        lines += [f"- `{test}`: {why}" for test, why in sorted(expected.get(key, {}).items())] or ["- none"]
        lines.append("")
    lines.append(END)
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOC.write_text(head + "\n".join(lines) + tail, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
