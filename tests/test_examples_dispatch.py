"""Smoke tests: the async examples run (under both backends) and print what they promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str, backend: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), backend],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_early_dispatch_example_runs_tools_before_the_model_stops(backend: str) -> None:
    out = run_example("early_dispatch.py", backend)
    assert "call #0 get_weather{'city': 'Paris'} complete -> dispatched" in out
    assert "tool: get_weather finished" in out and "tool: lookup_order finished" in out
    assert "tool finished before the model stopped: yes" in out
    lines = out.splitlines()
    first_result = next(i for i, line in enumerate(lines) if "tool: " in line)
    stopped = next(i for i, line in enumerate(lines) if "model: generation stopped" in line)
    assert first_result < stopped
    assert "result in call order: {'role': 'tool', 'tool_call_id': 'call_0'" in out
    assert "visible text: Let me look both up. While those run:" in out


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_async_ui_example_renders_reasoning_text_and_the_call(backend: str) -> None:
    out = run_example("async_ui.py", backend)
    assert "thinking: The user wants the weather in Paris." in out
    assert "assistant: Sure, checking the forecast for Paris now." in out
    assert "call ready: get_weather({'city': 'Paris', 'unit': 'celsius'})" in out
    assert out.rstrip().endswith("stream finished")
