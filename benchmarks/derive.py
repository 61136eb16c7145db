"""Cost of deriving a format from a chat template (issue 18: under 100 ms per template, one time).

Usage::

    python benchmarks/derive.py [--templates DIR] [--repeat 5]

For each template (the invented ones in tests/data/invented, plus ``*.jinja`` in ``--templates`` when
given) the derivation is run ``--repeat`` times with the derivation, marker-set and regex caches cleared
(as in a new process): compiling the template,
rendering the probes, the analysis, registering the declaration and checking it against the renders.
*Cold*: with no compiled template on disk (``STREAMPARSE_TEMPLATE_CACHE=off``), what the first run with a
template pays. *Repeat run*: with the template's compiled code in the disk cache (a temporary one here),
what a later process pays for the same template. jinja2's compile of the template alone is reported
beside. CPU time of this process is measured (the machine may be shared). The first run of the process
also warms Python's regex and jinja2's caches, so it is reported apart.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from streamparse.core.scanner import marker_set
from streamparse.derive import DeriveError, clear_cache, derive
from streamparse.derive.render import Renderer, RenderError

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 100.0


def _cpu_ms(start: float) -> float:
    return (time.process_time() - start) * 1000


def compile_ms(source: str) -> float:
    """jinja2's compile of the template alone, with no disk cache (transformers pays it too)."""
    start = time.process_time()
    with contextlib.suppress(RenderError):
        Renderer(source)
    return _cpu_ms(start)


def measure(source: str, repeat: int) -> tuple[list[float], str]:
    times: list[float] = []
    status = "derived"
    for _ in range(repeat):
        # As a new process would: no derivation, no compiled marker set or regular expression kept.
        clear_cache(unregister=True)
        marker_set.cache_clear()
        re.purge()
        start = time.process_time()
        try:
            derive(source)
        except DeriveError as exc:
            status = f"not derived ({str(exc)[:60]})"
        times.append(_cpu_ms(start))
    return times, status


def _summary(label: str, medians: list[float]) -> str:
    under = sum(m < TARGET_MS for m in medians)
    return (
        f"{label}: median {statistics.median(medians):.1f} ms, worst {max(medians):.1f} ms, "
        f"{under} of {len(medians)} under {TARGET_MS:.0f} ms"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--templates", type=Path, help="a folder of *.jinja chat templates (e.g. llama.cpp's)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    paths = sorted((ROOT / "tests" / "data" / "invented").glob("*.jinja"))
    if args.templates:
        paths += sorted(args.templates.glob("*.jinja"))
    disk = tempfile.mkdtemp(prefix="streamparse-bench-jinja2-")
    os.environ["STREAMPARSE_TEMPLATE_CACHE"] = "off"
    first = time.process_time()
    measure(paths[0].read_text(encoding="utf-8"), 1)
    print(f"first derivation in this process (cold caches): {_cpu_ms(first):.0f} ms")
    colds, warms = [], []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        os.environ["STREAMPARSE_TEMPLATE_CACHE"] = "off"
        cold, status = measure(source, args.repeat)
        jinja = statistics.median(compile_ms(source) for _ in range(args.repeat))
        os.environ["STREAMPARSE_TEMPLATE_CACHE"] = disk
        measure(source, 1)  # stores the compiled template
        warm, _ = measure(source, args.repeat)
        colds.append(statistics.median(cold))
        warms.append(statistics.median(warm))
        print(
            f"{path.name:52} cold {colds[-1]:6.1f} ms (jinja2 compile {jinja:5.1f}, worst {max(cold):6.1f})"
            f"  repeat run {warms[-1]:6.1f} ms  {status}"
        )
    print(f"{len(paths)} templates, CPU time per derivation, median of {args.repeat} runs each")
    print(_summary("cold (first run with a template)", colds))
    print(_summary("repeat run (compiled template on disk)", warms))
    print("(a derivation is cached in the process after the first: later parsers for the template pay nothing)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
