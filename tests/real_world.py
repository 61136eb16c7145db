"""Real-output fixtures (tests/data/real/*.json) and how one case is judged.

Two kinds of fixture files share one case shape: ``templates.json`` (models' own chat templates rendered by
scripts/render_templates.py; each case names a ``model``) and the peers' parser cases (``vllm.json``,
``sglang.json``, ``llamacpp.json``; each case names the ``formats`` and options to parse with). A case
holds the model's output (``generated``) and what it must parse to (``expected``: calls, visible text,
reasoning, and optionally the rejection reasons). Visible text and reasoning compare exactly: they are the
message fields the template was given, without the separator whitespace it writes around its markup.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from invariants import byte_pieces, check_deltas, random_pieces, run

from streamparse import StreamParser
from streamparse.events import Event, ParseResult, merge_events

DATA = Path(__file__).parent / "data" / "real"
SOURCES = ("templates", "vllm", "sglang", "llamacpp", "reports")


@dataclass(frozen=True)
class Case:
    source: str
    id: str
    text: str
    expected: dict[str, Any]
    options: dict[str, Any]
    """Keyword arguments for ``StreamParser`` (``formats``, ``start_in_reasoning``...)."""
    model: str | None = None
    note: str = ""

    def __str__(self) -> str:
        return f"{self.source}:{self.id}"


@cache
def load(source: str) -> dict[str, Any]:
    path = DATA / f"{source}.json"
    if not path.exists():
        return {"cases": []}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def cases(source: str, mode: str = "preset") -> list[Case]:
    """The cases of one source. Template cases parse ``for_model`` (mode ``preset``) or ``formats="auto"``
    (mode ``auto``), with the tools the template was rendered with; peer cases carry their own options."""
    data = load(source)
    out = []
    for raw in data["cases"]:
        if mode == "auto" and raw.get("not_auto"):
            continue  # the prompt carries format markup only a preset knows (the fixture says why)
        options = dict(raw.get("options", {}))
        tools = raw.get("tools", data.get("tools"))
        if tools is not None and "tools" not in options:
            options["tools"] = tools
        model = raw.get("model")
        if source == "templates" and mode == "auto":
            options["formats"] = "auto"
            model = None
        elif model is not None and raw.get("chat_template_kwargs"):
            options["chat_template_kwargs"] = raw["chat_template_kwargs"]
        out.append(Case(source, raw["id"], raw["generated"], raw["expected"], options, model, raw.get("note", "")))
    return out


def parser_for(case: Case) -> StreamParser:
    if case.model is not None:
        return StreamParser.for_model(case.model, **case.options)
    return StreamParser(**case.options)


def events_of(case: Case, chunks: list[Any]) -> list[Event]:
    parser = parser_for(case)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events


def parse_case(case: Case) -> ParseResult:
    return ParseResult.from_events(events_of(case, [case.text]))


def mismatches(case: Case, result: ParseResult) -> list[str]:
    """What differs from the expectation; empty when the case passes."""
    exp = case.expected
    problems = []
    got_calls = [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls]
    if got_calls != exp.get("calls", []):
        problems.append(f"calls {got_calls} != {exp.get('calls', [])}")
    want_rejected = exp.get("rejected", [])
    got_rejected = [r.reason for r in result.rejected]
    if got_rejected != want_rejected:
        problems.append(f"rejected {got_rejected} != {want_rejected}")
    if result.text != exp.get("text", ""):
        problems.append(f"text {result.text!r} != {exp.get('text', '')!r}")
    if result.reasoning != exp.get("reasoning", ""):
        problems.append(f"reasoning {result.reasoning!r} != {exp.get('reasoning', '')!r}")
    return problems


def chunkings(text: str, seeds: int = 4) -> list[tuple[str, list[Any]]]:
    return [("chars", list(text)), ("bytes", byte_pieces(text))] + [
        (f"random{seed}", random_pieces(text, seed)) for seed in range(seeds)
    ]


def check_case(case: Case, seeds: int = 4) -> ParseResult:
    """The case parses as expected whole, and every chunking gives the same events (merged) and result."""
    whole = events_of(case, [case.text])
    check_deltas(whole)
    result = ParseResult.from_events(whole)
    problems = mismatches(case, result)
    assert not problems, f"{case}: " + "; ".join(problems) + f"\ninput: {case.text!r}"
    ref = merge_events(whole)
    for label, chunks in chunkings(case.text, seeds):
        events = events_of(case, chunks)
        check_deltas(events)
        assert merge_events(events) == ref, f"{case}: chunking {label} changed the events"
    return result


def passes(case: Case) -> bool:
    try:
        check_case(case, seeds=1)
    except AssertionError:
        return False
    return True


# Suppress unused-import warnings for helpers re-exported to the tests.
__all__ = ["Case", "SOURCES", "cases", "check_case", "mismatches", "parse_case", "passes", "run"]
