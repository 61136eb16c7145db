"""The agent-loop recipes (examples/agent_loop*.py, typed_partial_ui.py) run and print what they promise."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from test_examples_cookbook import ROOT, run_example


def test_agent_loop_answers_the_rejected_call_and_reaches_the_answer() -> None:
    lines = run_example("agent_loop.py").splitlines()
    rejected = [line for line in lines if line.startswith("rejected:")]
    assert len(rejected) == 1 and "argument days" in rejected[0] and "'integer'" in rejected[0]
    assert "answer: Light rain in Paris for the next three days, around 18 C." in lines
    assert "roles: ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']" in lines
    last = json.loads(lines[-1].removeprefix("last request: "))
    assert last == {"role": "tool", "tool_call_id": "call_0", "content": "Paris: 18 C, light rain for 3 day(s)"}


def test_async_agent_loop_does_the_same_turns() -> None:
    lines = run_example("agent_loop_async.py").splitlines()
    assert lines[0].startswith("told the model: Error: the call to get_weather was not run")
    assert lines[-2:] == ["answer: Light rain in Paris for the next three days, around 18 C.", "turns: 6"]


def test_typed_partial_card_fills_in_as_the_call_streams() -> None:
    lines = run_example("typed_partial_ui.py").splitlines()
    cards = [line.removeprefix("card: ") for line in lines if line.startswith("card: ")]
    assert cards[0] == "to='ada@exa' | subject=… | body=… | urgent=…"
    assert "body='Hi Ada, are you free' | urgent=…" in cards[2]
    assert cards[-1].endswith("urgent=False")
    assert lines[-1] == (
        "send: send_email(to='ada@example.com', subject='Lunch', body='Hi Ada, are you free on Friday?', urgent=False)"
    )


@pytest.mark.parametrize("name", ["early_dispatch.py", "async_ui.py"])
def test_trio_examples_without_trio_name_the_extra_instead_of_a_traceback(name: str) -> None:
    # sys.modules["trio"] = None: `import trio` fails as if it were not installed.
    code = (
        "import runpy, sys; sys.modules['trio'] = None; sys.argv = ['x', 'trio'];"
        f" runpy.run_path({str(ROOT / 'examples' / name)!r}, run_name='__main__')"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "the trio backend needs trio: pip install 'streamparse-llm[trio]'"
