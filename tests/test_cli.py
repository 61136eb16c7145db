"""The ``streamparse`` command: ``parse`` for every input kind, ``formats``, ``demo``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from streamparse import formats, parse
from streamparse.cli import main
from streamparse.parser import describe
from streamparse.recordings import DEMO_TOOLS, load_recordings

RECORDINGS = {r.name: r for r in load_recordings()}
QWEN = RECORDINGS["qwen3"]
ROOT = Path(__file__).resolve().parent.parent


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def summarize(lines: str) -> dict[str, Any]:
    """The chunking-free content of a JSON-lines event log."""
    text, reasoning, calls, rejected = [], [], [], []
    for line in lines.splitlines():
        ev = json.loads(line)
        if ev["type"] == "text":
            text.append(ev["text"])
        elif ev["type"] == "reasoning":
            reasoning.append(ev["text"])
        elif ev["type"] == "tool_call_end":
            calls.append((ev["call"]["name"], ev["call"]["arguments"]))
        elif ev["type"] == "tool_call_rejected":
            rejected.append((ev["name"], ev["reason"]))
    return {"text": "".join(text), "reasoning": "".join(reasoning), "calls": calls, "rejected": rejected}


def expected(text: str, **options: Any) -> dict[str, Any]:
    r = parse(text, **options)
    return {
        "text": r.text,
        "reasoning": r.reasoning,
        "calls": [(c.name, c.arguments) for c in r.tool_calls],
        "rejected": [(x.name, x.reason) for x in r.rejected],
    }


# ------------------------------------------------------------------------------------------------ parse


@pytest.mark.parametrize("chunk_size", [None, 1, 7])
def test_parse_text_file_matches_parse_for_any_chunk_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], chunk_size: int | None
) -> None:
    f = tmp_path / "out.txt"
    f.write_text(QWEN.text, encoding="utf-8")
    argv = ["parse", str(f), "--format", "hermes"] + (["--chunk-size", str(chunk_size)] if chunk_size else [])
    code, out, _ = run_main(argv, capsys)
    assert code == 0
    assert summarize(out) == expected(QWEN.text, formats=["hermes"])
    assert len(summarize(out)["calls"]) == 2


def test_parse_keep_separators_keeps_template_whitespace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "out.txt"
    f.write_text(QWEN.text, encoding="utf-8")
    code, out, _ = run_main(["parse", str(f), "--format", "hermes", "--keep-separators"], capsys)
    assert code == 0
    assert summarize(out) == expected(QWEN.text, formats=["hermes"], separators="keep")
    assert summarize(out)["text"] != expected(QWEN.text, formats=["hermes"])["text"]


def test_parse_model_preset_primes_reasoning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = RECORDINGS["minimax-m2"]  # MiniMax-M2's template opens <think> in the prompt
    f = tmp_path / "out.txt"
    f.write_text(rec.text, encoding="utf-8")
    code, out, _ = run_main(["parse", str(f), "--model", rec.model], capsys)
    assert code == 0
    got = summarize(out)
    assert got["reasoning"].startswith("The user wants the three most recent docs")
    assert "</think>" not in got["text"] and [c[0] for c in got["calls"]] == ["search_docs"]


def test_parse_tools_file_rejects_undeclared_tool(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([t for t in DEMO_TOOLS if t["function"]["name"] != "get_weather"]))
    f = tmp_path / "out.txt"
    f.write_text(QWEN.text, encoding="utf-8")
    code, out, _ = run_main(["parse", str(f), "--format", "hermes", "--tools", str(tools)], capsys)
    assert code == 0
    got = summarize(out)
    assert got["calls"] == [] and [r[0] for r in got["rejected"]] == ["get_weather", "get_weather"]


def _openai_sse(chunks: list[str]) -> str:
    def frame(delta: dict[str, Any], finish: str | None = None) -> str:
        c = {
            "id": "x",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return "data: " + json.dumps(c, ensure_ascii=False) + "\n\n"

    return (
        frame({"role": "assistant", "content": ""})
        + "".join(frame({"content": t}) for t in chunks)
        + frame({}, "stop")
        + "data: [DONE]\n\n"
    )


def _ollama_ndjson(chunks: list[str]) -> str:
    lines = [{"model": "m", "message": {"role": "assistant", "content": t}, "done": False} for t in chunks]
    lines.append({"model": "m", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)


def _anthropic_sse(chunks: list[str]) -> str:
    def ev(kind: str, data: dict[str, Any]) -> str:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **data}, ensure_ascii=False)}\n\n"

    out = ev("message_start", {"message": {"id": "msg_1", "model": "m", "content": []}})
    out += ev("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
    out += "".join(ev("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": t}}) for t in chunks)
    out += ev("content_block_stop", {"index": 0})
    out += ev("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}})
    return out + ev("message_stop", {})


@pytest.mark.parametrize(
    ("kind", "encode"), [("openai-sse", _openai_sse), ("ollama", _ollama_ndjson), ("anthropic-sse", _anthropic_sse)]
)
@pytest.mark.parametrize("chunk_size", [None, 5])
def test_parse_provider_streams_give_the_same_result_as_the_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, encode: Any, chunk_size: int | None
) -> None:
    rec = RECORDINGS["qwen3-coder"]
    f = tmp_path / "stream.txt"
    f.write_text(encode(rec.chunks), encoding="utf-8")
    argv = ["parse", str(f), "--input", kind, "--model", rec.model, "--tools", str(_tools_file(tmp_path))]
    code, out, _ = run_main(argv + (["--chunk-size", str(chunk_size)] if chunk_size else []), capsys)
    assert code == 0
    want = expected(rec.text, formats=["hermes", "qwen3_coder"], tools=DEMO_TOOLS)
    assert summarize(out) == want
    assert [c[0] for c in want["calls"]] == ["write_file", "run_tests"]


def _tools_file(tmp_path: Path) -> Path:
    p = tmp_path / "tools.json"
    p.write_text(json.dumps({"tools": DEMO_TOOLS}))  # a request body's shape is accepted too
    return p


def test_parse_reads_stdin_in_a_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "streamparse.cli", "parse", "-", "--format", "hermes", "--chunk-size", "3"],
        input=QWEN.text.encode(),
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert summarize(proc.stdout.decode()) == expected(QWEN.text, formats=["hermes"])


def test_parse_openai_error_payload_exits_non_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "err.sse"
    f.write_text('data: {"error": {"message": "model overloaded", "type": "server_error"}}\n\n')
    code, _, err = run_main(["parse", str(f), "--input", "openai-sse"], capsys)
    assert code == 1 and "model overloaded" in err


def test_parse_unknown_format_name_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "x.txt"
    f.write_text("hi")
    code, _, err = run_main(["parse", str(f), "--format", "hermez"], capsys)
    assert code == 1 and "hermes" in err


def test_parse_missing_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["parse", str(tmp_path / "nope.txt")], capsys)
    assert code == 1 and "nope.txt" in err


# ------------------------------------------------------------------------------------------------ formats


def test_formats_lists_every_format_with_its_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["formats"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == formats.names()
    for name, line in zip(formats.names(), lines, strict=True):
        example = describe(name)["example"]
        assert example.split("\n")[0] in line


def test_formats_long_shows_what_each_example_parses_to(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["formats", "--long"], capsys)
    assert code == 0
    for name in formats.names():
        for call in describe(name)["parses_to"]:
            assert f"parses to:  {call['name']} " in out


# ------------------------------------------------------------------------------------------------ demo


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_demo_plain_replays_every_recording_and_runs_its_tools(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, _ = run_main(["demo", "--speed", "0", "--plain", "--recording", name], capsys)
    assert code == 0
    rec = RECORDINGS[name]
    want = parse(rec.text, formats=rec.formats, start_in_reasoning=rec.start_in_reasoning)
    assert want.tool_calls
    for i, call in enumerate(want.tool_calls):
        assert f"call #{i} {call.name}: accepted" in out
        assert f"call #{i} {call.name}: result " in out
    assert f"finish_reason: tool_calls · {len(want.tool_calls)} call(s) accepted, 0 rejected" in out
    visible = [line.split("| ", 1)[1] for line in out.splitlines() if line.startswith("text ")]
    assert "\n".join(visible).strip() == "\n".join(x for x in want.text.split("\n") if x.strip()).strip()


@pytest.mark.parametrize(
    ("model", "recording"),
    [("qwen3-coder", "qwen3-coder"), ("Qwen/Qwen3-8B", "qwen3"), ("kimi", "kimi-k2"), ("gpt-oss-120b", "gpt-oss")],
)
def test_demo_model_picks_the_recording_of_that_family(
    capsys: pytest.CaptureFixture[str], model: str, recording: str
) -> None:
    code, out, _ = run_main(["demo", "--speed", "0", "--plain", "--model", model], capsys)
    assert code == 0
    assert out.splitlines()[0].startswith(f"streamparse demo · {recording} · {RECORDINGS[recording].model}")


def test_demo_unknown_model_lists_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["demo", "--speed", "0", "--model", "llama-9000"], capsys)
    assert code == 2 and "qwen3-coder" in err


def test_demo_list_names_every_recording(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["demo", "--list"], capsys)
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == sorted(RECORDINGS)


def test_demo_in_a_pipe_falls_back_to_plain_output() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "streamparse.cli", "demo", "--speed", "0", "--model", "deepseek"],
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "call #0 lookup_order: accepted" in out and "call #1 track_shipment: result" in out
    assert "\x1b[" not in out  # no terminal control sequences in a log


def test_serve_unknown_format_fails_before_binding(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["serve", "--upstream", "http://127.0.0.1:9/v1", "--format", "hermez"], capsys)
    assert code == 2 and "unknown format 'hermez'" in err
