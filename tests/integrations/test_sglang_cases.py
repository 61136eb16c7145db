"""SGLang's function-call parser cases (tests/data/real/sglang.json, ported as data by the conformance work)
through SGLang's own ``FunctionCallParser``: the streamparse detector, and (marked ``peer``) SGLang's detector
for the same format, one-shot (``parse_non_stream``) and streaming (``parse_stream_chunk`` per token, then
``parse_stream_end``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from engine_tokenizer import marker_tokenizer
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from vllm_drive import detokenize

import streamparse.integrations.sglang  # noqa: F401  (registers the streamparse names)
from streamparse import ReasoningDelta, StreamParser, ToolCallRejected

DATA = json.loads((Path(__file__).parents[1] / "data" / "real" / "sglang.json").read_text(encoding="utf-8"))


def _words(text: str) -> str:
    """The text with whitespace runs folded: the adapters keep the separator whitespace the engine's own
    parsers hand on (the engine's contract), the cases record streamparse's exact output (none)."""
    return " ".join(text.split())


# The engine's own parser on the same cases is the baseline `make vllm-baseline` runs (it sets this variable);
# `make test-vllm` collects only the adapter.
BASELINE = os.environ.get("STREAMPARSE_ENGINE_BASELINE") == "1"
# SGLang's detector for a case family (or, failing that, for its streamparse format).
PEER = {
    "pythonic": "pythonic",
    "mistral": "mistral",
    "hermes": "qwen25",
    "k2_horizon": "k2_horizon",
    "inkling": "inkling",
    "spark25": "spark25",
    "ling3": "ling3",
}


# A stream cannot take a sent item back (docs/integrations.md, Limits): a call cut after its name was streamed,
# or rejected at its end (a value its schema refuses), leaves what was streamed with the client, while the
# one-shot answer omits the call.
STREAMED_BEFORE_THE_CUT = {
    "spark25::cut_call": [("set_state", {})],
    "iquest_q1::incomplete_call_at_end": [("run", {})],
    "k2_v3::unterminated_stream": [("get_weather", {})],
    "spark3::conversion_fallbacks": [
        ("set_state", {"name": "null", "count": "not-an-int", "active": False, "undeclared": "42"})
    ],
}


def _params() -> list[Any]:
    out = []
    for case in DATA["cases"]:
        (fmt,) = case["options"]["formats"]
        peer = PEER.get(case["id"].split("::")[0]) or PEER.get(fmt)
        if BASELINE:
            if peer:
                out.append(pytest.param(case, peer, id=f"sglang-{case['id']}", marks=pytest.mark.peer))
        else:
            out.append(pytest.param(case, f"streamparse_{fmt}", id=f"streamparse-{case['id']}"))
    return out


def _parser(case: dict[str, Any], name: str) -> FunctionCallParser:
    tools = case.get("tools") or DATA.get("tools")
    if not tools:
        names = [c["name"] for c in case["expected"].get("calls", [])] or ["get_weather"]
        tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in dict.fromkeys(names)]
    return FunctionCallParser([Tool.model_validate(t) for t in tools], name)


def _expected(case: dict[str, Any]) -> tuple[list[Any], str]:
    exp = case["expected"]
    return [(c["name"], c["arguments"]) for c in exp.get("calls", [])], _words(exp.get("text", ""))


def _sglang_text(case: dict[str, Any], text: str) -> str:
    """The adapter's text without what SGLang's conventions add to the library's: SGLang has no rejection
    event, so a rejected call's markup is handed back as normal text (docs/integrations.md), and a tool
    parser alone hands reasoning on as text (SGLang separates it earlier, with its reasoning parser). Each
    is taken out once, as the library itself reports it for the case."""
    parser = StreamParser(**case["options"], tools=case.get("tools") or DATA.get("tools"))
    events = [*parser.feed(case["generated"]), *parser.close()]
    for ev in events:
        if isinstance(ev, ToolCallRejected) and ev.raw and ev.raw in text:
            text = text.replace(ev.raw, "", 1)
    reasoning = "".join(ev.text for ev in events if isinstance(ev, ReasoningDelta))
    if reasoning.strip() and reasoning.strip() in text:
        text = text.replace(reasoning.strip(), "", 1)
    return _words(text)


@pytest.mark.parametrize(("case", "name"), _params())
def test_one_shot(case: dict[str, Any], name: str) -> None:
    text, calls = _parser(case, name).parse_non_stream(case["generated"])
    got = [(c.name, json.loads(c.parameters)) for c in calls]
    shown = _words(text) if BASELINE else _sglang_text(case, text)
    assert (got, shown) == _expected(case), case.get("note", "")


@pytest.mark.parametrize(("case", "name"), _params())
def test_streaming_one_token_per_increment(case: dict[str, Any], name: str) -> None:
    parser = _parser(case, name)
    tok = marker_tokenizer()
    texts: list[str] = []
    names: dict[int, str] = {}
    args: dict[int, list[str]] = {}
    steps = [parser.parse_stream_chunk(text) for _, text in detokenize(tok, tok.encode(case["generated"]))]
    for normal, calls in [*steps, parser.parse_stream_end()]:
        texts.append(normal)
        for c in calls:
            if c.name:
                names[c.tool_index] = c.name
            args.setdefault(c.tool_index, []).append(c.parameters or "")
    got = []
    for index, parts in sorted(args.items()):
        joined = "".join(parts)
        got.append((names.get(index, ""), json.loads(joined) if joined else {}))
    shown = _words("".join(texts)) if BASELINE else _sglang_text(case, "".join(texts))
    calls, text = _expected(case)
    if not BASELINE:
        calls = STREAMED_BEFORE_THE_CUT.get(case["id"], calls)
    assert (got, shown) == (calls, text), case.get("note", "")
