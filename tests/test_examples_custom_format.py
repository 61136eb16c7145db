"""The custom-format example runs as written and prints what docs/API.md shows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_custom_format_example_registers_streams_a_snapshot_and_builds_the_model() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "custom_format.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "card: get_weather",
        "snapshot: get_weather {'city': 'Ly'} streaming",
        "call: get_weather {'city': 'Lyon', 'days': 3} ['lenient_types']",
        "parsed: get_weather(city='Lyon', days=3)",
        "snapshot: get_weather {'city': 'Lyon', 'days': 3} complete",
        "rejected: [('unknown_tool', False)]",
    ]
