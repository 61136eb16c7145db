"""``make bench``: every benchmark of issue 19 in turn, with how long it takes before and after.

Says how long the run takes before it starts, runs each script in its own process (a fresh heap for each:
the memory figures are RSS and tracemalloc, the others must not see what an earlier one left), prints
their output as it comes, and ends with the duration of each (wall and CPU time, children included) and
every line that missed its goal. ``--quick``: the everyday run (under 2 minutes of CPU).

Exit status 1 when the proxy or the derivation benchmark fails to run; a missed goal is reported, not an
error (the others exit 1 on a miss, which the summary shows).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMPILED = HERE.parent / ".cache" / "compiled"
COMPILE_CPU = 70  # seconds of CPU scripts/compile.py takes when the copy must be built
MISS_MARKS = ("MISSED", "NOT LINEAR", "RAISED")

# (script, its flags, CPU seconds it takes, quick and full, as measured on a busy 2-core machine (wall time
# was 2-4x that); must it pass?)
# ``run.py`` and ``call_memory.py`` run twice: on the pure-Python tree, then on the core compiled with mypyc
# (``make compile``: the copy in COMPILED, built first when missing; about a minute of CPU, reported apart).
STEPS: list[tuple[str, list[str], tuple[int, int], bool]] = [
    ("run.py", [], (10, 60), False),
    ("run.py", ["--compiled"], (10, 60), False),
    ("pathological.py", [], (20, 240), False),
    ("call_memory.py", [], (10, 270), False),
    ("call_memory.py", ["--compiled"], (10, 270), False),
    ("proxy.py", [], (0, 40), True),
    ("derive.py", [], (2, 2), True),
]


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 90 else f"{seconds:.0f} s"


def plan(quick: bool, templates: str | None) -> list[tuple[str, list[str], int, bool]]:
    """The scripts to run, with their flags and their expected CPU seconds."""
    steps = []
    for script, flags, (quick_s, full_s), must in STEPS:
        if quick and script == "proxy.py":  # 500 concurrent streams: a full run's measurement
            continue
        extra = ["--quick"] if quick and script != "derive.py" else []
        if script == "derive.py" and templates:
            extra = ["--templates", templates]
        steps.append((script, flags + extra, quick_s if quick else full_s, must))
    return steps


def misses(lines: list[str]) -> list[str]:
    """The lines of a run that missed a goal."""
    return [line.rstrip() for line in lines if any(mark in line for mark in MISS_MARKS)]


def compiled_copy() -> str | None:
    """Build (or reuse) the compiled copy; None when it is ready, else why it could not be built."""
    proc = subprocess.run(
        [sys.executable, str(HERE.parent / "scripts" / "compile.py"), "--into", str(COMPILED)],
        capture_output=True,
        text=True,
    )
    if proc.returncode == 0:
        print(proc.stdout.strip().splitlines()[-1], flush=True)
        return None
    return (proc.stderr.strip().splitlines() or ["no output"])[-1]


def run(script: str, flags: list[str]) -> tuple[int, list[str]]:
    """Run one script, its output printed as it comes and kept. ``--compiled`` (ours, not the script's): on
    the compiled copy."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if "--compiled" in flags:
        flags = [f for f in flags if f != "--compiled"]
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(COMPILED), env.get("PYTHONPATH", "")) if p)
    proc = subprocess.Popen(
        [sys.executable, str(HERE / script), *flags], stdout=subprocess.PIPE, text=True, env=env, bufsize=1
    )
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:
        sys.stdout.write(line)
        lines.append(line)
    return proc.wait(), lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the everyday run: under 2 minutes of CPU")
    ap.add_argument("--templates", help="a folder of *.jinja chat templates for derive.py")
    args = ap.parse_args()
    steps = plan(args.quick, args.templates)
    expected = sum(s for _, _, s, _ in steps) + (0 if (COMPILED / ".sources").exists() else COMPILE_CPU)
    print(
        f"make bench{' QUICK=1' if args.quick else ''}: takes about {minutes(expected)} of CPU "
        f"({', '.join(f'{name} {minutes(s)}' for name, _, s, _ in steps)}); longer in wall time on a busy machine",
        flush=True,
    )
    wall0, cpu0 = time.monotonic(), cpu_children()
    rows, missed, failed = [], [], False
    for script, flags, _, must in steps:
        print(f"\n=== benchmarks/{script} {' '.join(flags)}".rstrip(), flush=True)
        w, c = time.monotonic(), cpu_children()
        if "--compiled" in flags:
            why = compiled_copy()
            if why is not None:
                print(f"   the compiled core could not be built here ({why}): not measured", flush=True)
                missed.append(f"{script} --compiled: not measured ({why})")
                continue
        code, lines = run(script, flags)
        rows.append((script, time.monotonic() - w, cpu_children() - c, code))
        missed += [f"{script}: {line.strip()}" for line in misses(lines)]
        failed |= must and code != 0
    print(f"\n=== make bench{' QUICK=1' if args.quick else ''}: done")
    for script, wall, cpu, code in rows:
        print(f"   {script:16} {minutes(wall):>8} wall {minutes(cpu):>8} CPU  exit {code}")
    wall, cpu = time.monotonic() - wall0, cpu_children() - cpu0
    print(f"   {'total':16} {minutes(wall):>8} wall {minutes(cpu):>8} CPU (expected about {minutes(expected)} of CPU)")
    print(f"   goals missed: {len(missed)}" + "".join(f"\n     {line}" for line in missed))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
