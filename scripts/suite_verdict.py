"""The verdict shared by the engine suites (scripts/engine_suite.py, scripts/sglang_suite.py).

Both run an engine's own test files twice, on the engine's parsers and on streamparse's, as
``{row: {test: outcome}}`` where a row is a file or ``FILE::CLASS``. Every test the engine passes and
streamparse fails must be listed (with its reason) in the suite's expected json; a listed test that is no
longer such a difference is stale, so the list cannot outlive what it explains.
"""

from __future__ import annotations

import json
from pathlib import Path

Outcomes = dict[str, dict[str, str]]


def verdict(engine: Outcomes, adapter: Outcomes, expected: dict[str, dict[str, str]], artifact: Path, who: str) -> int:
    """Print the unlisted and stale differences and the count; write ``artifact``; 1 if any, else 0."""
    listed = {k for group in expected.values() for k in group}
    regressions = [
        f"{row.split('::')[0]}::{name}"
        for row, results in engine.items()
        for name, outcome in results.items()
        if outcome == "passed" and adapter.get(row, {}).get(name) != "passed"
    ]
    unlisted = [r for r in regressions if r not in listed]
    stale = sorted(k for k in listed if k not in regressions)
    artifact.write_text(json.dumps({"engine": engine, "adapter": adapter, "regressions": regressions}, indent=1))
    for r in unlisted:
        print(f"UNLISTED: {who} passes and streamparse's fails {r}")
    for k in stale:
        print(f"STALE: listed in the expected json but not an engine-only pass: {k}")
    total = sum(v == "passed" for results in adapter.values() for v in results.values())
    failed = len(unlisted) + len(stale)
    print(f"{total} passed, {failed} failed")
    return 1 if failed else 0
