"""Cost of deriving a format from a chat template (issue 18: under 100 ms per template, one time).

Usage::

    python benchmarks/derive.py [--templates DIR] [--repeat 5]

For each template (the invented ones in tests/data/invented, plus ``*.jinja`` in ``--templates`` when
given) the derivation is run ``--repeat`` times with the cache cleared: compiling the template, rendering
the probes, the analysis, registering the declaration and checking it against the renders. The first run
of the process also warms Python's regex and jinja2's caches, so it is reported apart. Prints one line per
template (median and worst of the cold derivations) and the share under 100 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from pathlib import Path

from streamparse.derive import DeriveError, clear_cache, derive
from streamparse.derive.render import Renderer, RenderError

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 100.0


def compile_ms(source: str) -> float:
    """jinja2's compile of the template alone (transformers pays it too)."""
    start = time.perf_counter()
    with contextlib.suppress(RenderError):
        Renderer(source)
    return (time.perf_counter() - start) * 1000


def measure(source: str, repeat: int) -> tuple[list[float], str]:
    times: list[float] = []
    status = "derived"
    for _ in range(repeat):
        clear_cache()
        start = time.perf_counter()
        try:
            derive(source)
        except DeriveError as exc:
            status = f"not derived ({str(exc)[:60]})"
        times.append((time.perf_counter() - start) * 1000)
    return times, status


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--templates", type=Path, help="a folder of *.jinja chat templates (e.g. llama.cpp's)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    paths = sorted((ROOT / "tests" / "data" / "invented").glob("*.jinja"))
    if args.templates:
        paths += sorted(args.templates.glob("*.jinja"))
    first = time.perf_counter()
    measure(paths[0].read_text(encoding="utf-8"), 1)
    print(f"first derivation in this process (cold caches): {(time.perf_counter() - first) * 1000:.0f} ms")
    medians, rests = [], []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        times, status = measure(source, args.repeat)
        median = statistics.median(times)
        jinja = statistics.median(compile_ms(source) for _ in range(args.repeat))
        medians.append(median)
        rests.append(max(0.0, median - jinja))
        print(
            f"{path.name:52} median {median:6.1f} ms (jinja2 compile {jinja:5.1f})"
            f"  worst {max(times):6.1f} ms  {status}"
        )
    under = sum(m < TARGET_MS for m in medians)
    print(
        f"{len(paths)} templates: median of medians {statistics.median(medians):.1f} ms, "
        f"{under} of {len(paths)} under {TARGET_MS:.0f} ms; without jinja2's compile of the template: median "
        f"{statistics.median(rests):.1f} ms, {sum(r < TARGET_MS for r in rests)} of {len(paths)} under "
        f"{TARGET_MS:.0f} ms (derivations are cached per template after the first)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
