"""vLLM's tool-parser cases for every format it tests (tests/data/real/vllm.json, ported as data by the
conformance work), through vLLM's own composition (``ParserManager`` -> ``parse``/``parse_delta``).

The adapter runs as recommended (``--tool-call-parser streamparse_<f> --reasoning-parser streamparse_<f>``);
vLLM's own tool parser for the same family runs marked ``peer``. Expectations are the fixture's; where they
differ from vLLM's own convention the case's ``note`` says so (docs/integrations.md has the counts).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from engine_tokenizer import marker_tokenizer
from vllm.parser import ParserManager
from vllm_drive import chat_request, detokenize

from streamparse.integrations.vllm import TOOL_PARSERS  # (importing registers the streamparse names)

DATA = json.loads((Path(__file__).parents[1] / "data" / "real" / "vllm.json").read_text(encoding="utf-8"))


def _words(text: str) -> str:
    """The text with whitespace runs folded: the adapters keep the separator whitespace the engine's own
    parsers hand on (the engine's contract), the cases record streamparse's exact output (none)."""
    return " ".join(text.split())


# The vLLM parser each fixture family was taken from (None: vLLM 0.33 has no parser by that name).
PEER = {
    "hermes": "hermes",
    "qwen3coder": "qwen3_coder",
    "kimi": "kimi_k2",
    "glm4_moe": "glm45",
    "minimax_m2": "minimax_m2",
    "openai": None,  # vLLM routes gpt-oss through its HarmonyParser; the "openai" tool parser is a stub
    "phi4mini": "phi4_mini_json",
    "deepseekv31": "deepseek_v31",
    "llama3_json": "llama3_json",
    "nemotron_nano_v2": None,
    "lfm2": "lfm2",
    "pythonic": "pythonic",
    "longcat": "longcat",
    "step3": "step3",
    "solar_open2": None,  # no Solar Open 2 tool parser in vLLM 0.33
    "k2_horizon": "k2_horizon",
    "dots": "dots",
    "granite_20b_fc": "granite-20b-fc",
    "ernie45": "ernie45",
}


# RWKV's legacy <tool_call> lines: a complete Python dict (hermes reads it) with no </tool_call> after it.
RWKV_LEGACY_LINES = {
    "rwkv::legacy_tool_call_line": [
        ("read", {"action": "view_file", "industryType": "code", "filePath": "calculator.py"})
    ],
    "rwkv::legacy_edit_line": [
        (
            "edit",
            {
                "action": "replace_text",
                "filePath": "calculator.py",
                "oldText": "return a - b",
                "newText": "return a + b",
            },
        )
    ],
    "rwkv::legacy_nested_edit_line": [
        ("edit", {"edits": [{"path": "calculator.py", "oldText": "return a - b", "newText": "return a + b"}]})
    ],
    "rwkv::streamed_legacy_line": [("read", {"filePath": "calculator.py"})],
}

# The fixtures judge a parser closed without a reason; an engine stream that ended normally is closed with
# "stop", and a complete body whose closer a stop sequence ate is then a call (docs/integrations.md).
STOPPED_NORMALLY = {
    "glm4_moe::incomplete": [("get_weather", {"city": "Beijing", "date": "2025-08-01"})],
    **RWKV_LEGACY_LINES,
}

# The adapters hand arguments on unchecked against the tool's schema, as vLLM's own parsers do (clients
# validate them); the fixture records streamparse's own check.
SCHEMA_UNCHECKED = {
    "rwkv::bash_call_breaking_its_schema": [("bash", {"command": "python /tmp/calculator.py"})],
}

# Text before an orphan </think> where the request cannot say the prompt opened the reasoning (the family has
# no thinking switch): a stream has sent it as content before the closer came (docs/API.md, TextWasReasoning).
STREAMED_AS_TEXT = {
    "csm::shorthand_label_is_the_tool": "prefix",
}

# A stream cannot take a sent delta back (docs/integrations.md, Limits): a call cut after its name and part of
# its arguments were streamed leaves them with the client, while the one-shot answer omits the call.
STREAMED_BEFORE_THE_CUT = {
    "solar_open2::unterminated_block": [("search", '{"query": "Seo')],
    # the name goes out with the header; the xml dialect's malformed `<ifm|arg_type>` comes after it
    "k2_horizon::xml_typed_is_rejected_under_the_xml_dialect": [("lookup", {})],
    # cut or broken after the name (and part of the arguments) went out
    "hyperclovax_seed_think::json_partial_payload": [("get_current_weather", {})],
    "openpangu_v2::cut_object": [("get_weather", {})],
    **RWKV_LEGACY_LINES,  # hermes reads the legacy line's Python dict as it comes; the </tool_call> never does
    # a bare fenced call to an undeclared tool: the adapter's stream sends it (the whole parse rejects it)
    "rwkv::standalone_fences_after_reasoning": [
        ("get_weather", {"city": "Paris"}),
        ("unknown_weather", {"city": "Berlin"}),
    ],
}


# The tool parser of a family drops the text its engine parser drops (docs/integrations.md; the fixture records
# streamparse's own output, which keeps it): one-shot content where that differs.
ENGINE_DROPS = {
    "deepseekv31::multiple_tools": "some prefix text",  # vLLM's content is the text before the calls section
}


def _adapter_name(case: dict[str, Any]) -> str:
    formats = case["options"].get("formats")
    if not formats:
        return "streamparse"
    # A family's adapter that reads exactly the case's formats (hy4: both vocabularies) stands for them.
    reads = getattr(TOOL_PARSERS.get(f"streamparse_{formats[0]}"), "format_names", ())
    return f"streamparse_{formats[0]}" if len(formats) == 1 or set(reads) == set(formats) else "streamparse"


# The engine's own parser on the same cases is the baseline `make vllm-baseline` runs (it sets this variable);
# `make test-vllm` collects only the adapter.
BASELINE = os.environ.get("STREAMPARSE_ENGINE_BASELINE") == "1"


def _params() -> list[Any]:
    out = []
    for case in DATA["cases"]:
        family = case["id"].split("::")[0]
        if not BASELINE:
            out.append(pytest.param(case, _adapter_name(case), id=f"streamparse-{case['id']}"))
        elif PEER.get(family):
            out.append(pytest.param(case, PEER[family], id=f"vllm-{case['id']}", marks=pytest.mark.peer))
    return out


def _request(case: dict[str, Any]) -> Any:
    # vLLM parses calls only when the request declares tools (else tool_choice is "none").
    tools = case.get("tools") or DATA.get("tools")
    if not tools:
        names = [c["name"] for c in case["expected"].get("calls", [])] or ["get_weather"]
        tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in dict.fromkeys(names)]
    return chat_request(model=case.get("model") or "test-model", tools=tools)


def _parser(name: str, case: dict[str, Any], req: Any) -> Any:
    reasoning = name if name.startswith("streamparse") else None
    cls = ParserManager.get_parser(tool_parser_name=name, reasoning_parser_name=reasoning, enable_auto_tools=True)
    # What the fixture sets as options reaches vLLM as the served model and the request's template kwargs.
    served = SimpleNamespace(served_model_name=req.model, model=req.model)
    primed = case["options"].get("start_in_reasoning")
    template = {"enable_thinking": primed} if isinstance(primed, bool) else None
    return cls(marker_tokenizer(), req.tools, model_config=served, chat_template_kwargs=template)


def _expected(case: dict[str, Any], name: str) -> tuple[list[Any], str]:
    exp = case["expected"]
    calls = [(c["name"], c["arguments"]) for c in exp.get("calls", [])]
    if name.startswith("streamparse"):
        calls = STOPPED_NORMALLY.get(case["id"], SCHEMA_UNCHECKED.get(case["id"], calls))
    return calls, _words(exp.get("text", ""))


def _calls(pairs: list[tuple[str, str]]) -> list[Any]:
    out = []
    for name, args in pairs:
        try:
            out.append((name, json.loads(args) if args else {}))
        except ValueError:
            out.append((name, args))
    return out


@pytest.mark.parametrize(("case", "name"), _params())
def test_one_shot(case: dict[str, Any], name: str) -> None:
    req = _request(case)
    reasoning, content, calls = _parser(name, case, req).parse(case["generated"], req, enable_auto_tools=True)
    got = _calls([(c.name, c.arguments) for c in calls or []])
    expected, text = _expected(case, name)
    if name.startswith("streamparse"):
        text = ENGINE_DROPS.get(case["id"], text)
    assert (got, _words(content or "")) == (expected, text), case.get("note", "")


@pytest.mark.parametrize(("case", "name"), _params())
def test_streaming_one_token_per_delta(case: dict[str, Any], name: str) -> None:
    req = _request(case)
    parser = _parser(name, case, req)
    tok = marker_tokenizer()
    steps = detokenize(tok, tok.encode(case["generated"]))
    content: list[str] = []
    names: dict[int, str] = {}
    args: dict[int, list[str]] = {}
    for i, (chunk, text) in enumerate(steps):
        delta = parser.parse_delta(text, chunk, req, [], finished=i == len(steps) - 1)
        if delta is None:
            continue
        content.append(delta.content or "")
        for tc in delta.tool_calls:
            if tc.function and tc.function.name:
                names[tc.index] = tc.function.name
            args.setdefault(tc.index, []).append((tc.function.arguments or "") if tc.function else "")
    got = _calls([(names.get(i, ""), "".join(parts)) for i, parts in sorted(args.items())])
    calls, text = _expected(case, name)
    if name.startswith("streamparse"):
        calls = STREAMED_BEFORE_THE_CUT.get(case["id"], calls)
        text = STREAMED_AS_TEXT.get(case["id"], text)
    assert (got, _words("".join(content))) == (calls, text), case.get("note", "")
