"""The cookbook recipes (examples/*.py, also on the docs' cookbook page) run and print what they promise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)], capture_output=True, text=True, env=env, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_openai_sdk_stream_recipe_turns_text_markup_into_a_validated_call() -> None:
    out = run_example("openai_sdk_stream.py")
    assert out.splitlines() == [
        "text: 'Let me check.'",
        "call: get_weather {'city': 'Paris'}",
        "finish_reason: tool_calls",
    ]


def test_proxy_recipe_returns_structured_tool_calls_streaming_or_not() -> None:
    out = run_example("proxy_in_front.py")
    assert out.splitlines() == [
        "content: 'Let me check.'",
        'tool_call: get_weather {"city": "Paris"}',
        "finish_reason: tool_calls",
        "streamed tool_calls: {0: ['get_weather', '{\"city\": \"Paris\"}']}",
    ]


def test_tool_runner_recipe_dispatches_each_call_and_answers_in_call_order() -> None:
    lines = run_example("openai_tool_runner.py").splitlines()
    assert "dispatched: get_weather {'city': 'Paris'}" in lines
    assert "dispatched: lookup_order {'order_id': 'A-1001'}" in lines
    # A tool's result can only follow its own dispatch.
    assert lines.index("result: get_weather -> Paris: 18 C, light rain") > lines.index(
        "dispatched: get_weather {'city': 'Paris'}"
    )
    assert lines[-2:] == [
        "message: {'role': 'tool', 'tool_call_id': 'call_0', 'content': 'Paris: 18 C, light rain'}",
        "message: {'role': 'tool', 'tool_call_id': 'call_1', 'content': '{\"order_id\": \"A-1001\", \"status\": \"shipped\"}'}",
    ]


def test_engine_deltas_recipe_streams_reasoning_content_and_call_fragments_per_chunk() -> None:
    lines = run_example("engine_deltas.py").splitlines()
    assert "reasoning='The user wants'" in lines[0]
    assert "content='Checking.', reasoning=' Paris.'" in lines[1]
    assert "CallPiece(index=0, id='call_0', name='get_weather', arguments='')" in lines[2]
    assert 'arguments=\'{"city": "Par\'' in lines[3] and "arguments='is\"}'" in lines[4]
    assert lines[-1] == "accepted: [('get_weather', {'city': 'Paris'})]"
