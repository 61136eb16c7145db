"""Smoke test: the synchronous quickstart example runs and prints what the README promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quickstart_example_streams_text_arguments_and_the_call() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "text: Let me check." in out
    assert "args so far:" in out
    assert "call: lookup_order {'order_id': 'A-1'}" in out
    assert "finish_reason: tool_calls" in out
    assert "parse(): 'Which order?' 'Checking.'" in out and "'name': 'lookup_order'" in out
