"""Pass rate of the real-output fixtures per source (before/after measurements for issue 10).

Usage::

    python scripts/conformance.py            # rates per source
    python scripts/conformance.py -v         # and every failing case with what differs

Sources: the models' chat templates parsed with ``StreamParser.for_model`` (``templates/preset``) and with
``formats="auto"`` (``templates/auto``), and the peers' parser cases (vLLM, SGLang, llama.cpp). A case passes
when the whole-text parse gives the expected calls, rejections, text and reasoning and the per-character,
per-byte and random chunkings give the same events.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from real_world import SOURCES, cases, check_case  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    runs = [("templates", "preset"), ("templates", "auto")] + [(s, "") for s in SOURCES if s != "templates"]
    for source, mode in runs:
        label = f"{source}/{mode}" if mode else source
        batch = cases(source, mode or "preset")
        failed: Counter[str] = Counter()
        lines = []
        for case in batch:
            try:
                check_case(case, seeds=1)
            except AssertionError as exc:
                first = str(exc).splitlines()[0]
                failed[first.split(": ", 1)[1].split(" ", 1)[0] if ": " in first else "?"] += 1
                lines.append(str(exc))
            except Exception as exc:  # a parser that raises is a failure to report, not to stop on
                failed["raises"] += 1
                lines.append(f"{case}: raises {type(exc).__name__}: {exc}")
        ok = len(batch) - len(lines)
        rate = 100.0 * ok / len(batch) if batch else 0.0
        kinds = ", ".join(f"{k} {n}" for k, n in failed.most_common())
        print(f"{label:20} {ok:4}/{len(batch):<4} {rate:5.1f} %" + (f"   failing: {kinds}" if kinds else ""))
        if args.verbose:
            for line in lines:
                print("   ", line.replace("\n", "\n      "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
