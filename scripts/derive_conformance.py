"""Derive every chat template in a folder with no preset, and round-trip real conversations through it.

Usage::

    python scripts/derive_conformance.py --templates DIR [--data tests/data/derived] [--docs docs/ZERO_CONFIG.md]

For each ``*.jinja`` the format is derived from the template alone (``streamparse.derive.derive``: no model
id, so no preset is consulted). Then every scenario of ``scripts/render_templates.py`` (one call, two calls,
escapes, CJK and emoji, typed values, no arguments, text before a call, reasoning) is rendered through the
template, the model's part of the turn is parsed with the derived format whole and one character at a
time, and the calls, arguments, visible text and reasoning must equal what the template was given. A
scenario the template cannot express (it raises, or drops the content or reasoning) is not counted.

Writes, per derived template, ``DATA/<name>.json``: the declaration (``formats.load`` reads its
``declaration``), where the template came from (``SOURCES.tsv`` in the folder), and the rendered outputs
with what they must parse to, so CI checks the declarations without the templates (which are never
committed). With ``--docs``, rewrites the rate table between the ``rates`` markers of that page.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from render_templates import (  # noqa: E402
    FIXED_GLOBALS,
    MODELS,
    NESTED_TOOLS,
    SCENARIOS,
    TOOLS,
    Scenario,
    unrendered,
    without_none,
)

from streamparse.derive import DeriveError, derive  # noqa: E402
from streamparse.derive.render import Renderer, RenderError  # noqa: E402
from streamparse.derive.text import Markers, common_prefix  # noqa: E402
from streamparse.derive.verify import sample_output  # noqa: E402

# The route llama.cpp's chat code takes for a template: its dedicated-handler conditions (tests of the
# template's source, from the file and commit recorded in the data file), else its differential autoparser.
LLAMA_CPP = json.loads((Path(__file__).parent / "data" / "llama_cpp_routes.json").read_text(encoding="utf-8"))


LLAMA_CPP_TESTS = json.loads((Path(__file__).parent / "data" / "llama_cpp_tests.json").read_text(encoding="utf-8"))


def llama_cpp_tests(name: str, route: str) -> str:
    """What llama.cpp's tests check for the template of that file name, and with which kind of parser: a
    dedicated handler (its route) or one its test names as hand-written, else the differential autoparser."""
    entry = LLAMA_CPP_TESTS["templates"].get(name)
    if entry is None:
        return "not tested"
    tests = entry["tests"]
    parser = "hand-written" if route.startswith("dedicated") or "parser_comment" in entry else "autoparser"
    parsed = [t for t in ("tool calls", "reasoning", "text") if t in tests]
    if "tool calls" in parsed:
        what = f"{parser}: {', '.join(parsed)}"
    elif parsed:
        what = f"{parser}: {', '.join(parsed)} (no call)"
    else:
        what = "prompt only (nothing parsed)"
    return what + ("; differential analysis" if "analysis" in tests else "")


def llama_cpp_route(source: str) -> str:
    for rule in LLAMA_CPP["rules"]:
        if all(s in source for s in rule["all"]) and not any(s in source for s in rule["none"]):
            return str(rule["how"])
    return str(LLAMA_CPP["otherwise"])


RATES_BEGIN, RATES_END = "<!-- rates:begin -->", "<!-- rates:end -->"
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "data" / "real" / "templates.json"
USER = [{"role": "user", "content": "Please help me with this task."}]


def _open_objects(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: {}`` on each object without properties and a description on
    each parameter: Command R+'s template reads both (``Dict[str, <type>]``) and raises without them.
    The same values validate; only the rendered tool list (the prompt, not the turn) differs."""
    if isinstance(schema, dict):
        out = {k: _open_objects(v) for k, v in schema.items()}
        if out.get("type") == "object" and "properties" not in out:
            out.setdefault("additionalProperties", {})
        for name, prop in out.get("properties", {}).items():  # it reads every parameter's description too
            if isinstance(prop, dict):
                prop.setdefault("description", name)
        return out
    return [_open_objects(v) for v in schema] if isinstance(schema, list) else schema


RENDER_TOOLS = _open_objects(TOOLS)
# The fixtures' fixed date, formatted as asked (Hunyuan looks the weekday up by strftime_now('%A')).
RENDER_GLOBALS = {**FIXED_GLOBALS, "strftime_now": lambda fmt: datetime.date(2024, 7, 26).strftime(fmt)}
VARIABLES = {"tools": RENDER_TOOLS, "bos_token": "<s>", "eos_token": "</s>", "enable_thinking": True, "thinking": True}


def sources(folder: Path) -> dict[str, dict[str, str]]:
    path = folder / "SOURCES.tsv"
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as f:
        return {row["file"]: row for row in csv.DictReader(f, delimiter="\t")}


def turn(scenario: Scenario, as_string: bool, ids: bool, flat: bool = False) -> dict[str, Any]:
    calls = []
    for i, (name, args) in enumerate(scenario.calls):
        function = {"name": name, "arguments": json.dumps(args, ensure_ascii=False) if as_string else args}
        call: dict[str, Any] = dict(function) if flat else {"type": "function", "function": function}
        if ids:
            call["id"] = f"abcDEF{i:03d}"
        calls.append(call)
    out: dict[str, Any] = {"role": "assistant", "content": scenario.content, "tool_calls": calls}
    if scenario.reasoning:
        out.update(reasoning_content=scenario.reasoning, reasoning=scenario.reasoning, thinking=scenario.reasoning)
    return out


def outcome(
    text: str, chunks: list[str], name: str, primed: bool, want: dict[str, Any], tools: list[dict[str, Any]] = TOOLS
) -> str:
    """'' when the parse equals ``want``, else what differs."""
    from streamparse import StreamParser

    parser = StreamParser([name], tools=tools, start_in_reasoning=primed)
    events = [e for c in chunks for e in parser.feed(c)] + parser.close()
    from streamparse.events import ParseResult

    got = ParseResult.from_events(events)
    have = {
        "calls": [{"name": c.name, "arguments": c.arguments} for c in got.tool_calls],
        "text": got.text.strip(),
        "reasoning": got.reasoning.strip(),
    }
    for key in ("calls", "text", "reasoning"):
        if have[key] != want[key]:
            return f"{key}: got {have[key]!r}, expected {want[key]!r}"
    return ""


def data_name(stem: str) -> str:
    """``derived_`` + the file stem: never the name of a built-in format."""
    return "derived_" + re.sub(r"[^a-z0-9_]+", "_", stem.lower()).strip("_")


def run(path: Path, source: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    src = path.read_text(encoding="utf-8")
    route = llama_cpp_route(src)
    row: dict[str, Any] = {
        "template": path.name,
        "llama_cpp": route,
        "llama_cpp_tests": llama_cpp_tests(path.name, route),
    }
    try:
        derivation = derive(src)
    except (DeriveError, ImportError) as exc:
        row["error"] = str(exc)
        return row, None
    decl = derivation.declaration
    renderer = Renderer(src, globals=RENDER_GLOBALS)
    markers = Markers()
    close = decl.reasoning[0].close if decl.reasoning else None
    variables = {**derivation.template_variables, **VARIABLES}
    if derivation.flat_tools:
        variables["tools"] = [t["function"] for t in RENDER_TOOLS]
    try:
        prompt = renderer.render(messages=USER, add_generation_prompt=True, **variables)
    except RenderError as exc:
        row["error"] = f"derived, but the scenarios' prompt does not render: {exc}"
        return row, None
    cases, results = [], []
    elements = decl.call.arguments.to_dict().get("kind") == "elements"
    # The derivation saw the template write a turn's text beside calls in the reasoning channel (gpt-oss):
    # the model's output then carries it as reasoning (render_templates.py's content_with_calls).
    as_reasoning = any(c.probe == "text_call" and c.skipped and "as reasoning" in c.detail for c in derivation.checks)
    for scenario in SCENARIOS:
        try:
            full = renderer.render(
                messages=[
                    *USER,
                    turn(scenario, derivation.arguments_as_string, derivation.call_ids, derivation.flat_calls),
                ],
                add_generation_prompt=False,
                **variables,
            )
        except RenderError:
            continue
        gen = full[common_prefix(prompt, full, markers) :]
        names = [n for n, _ in scenario.calls] if derivation.calls_after_end else []
        output = sample_output(gen, derivation.end_of_turn, derivation.primed, close, names)
        if unrendered(output, scenario):  # the template drops the content, reasoning or a call of this turn
            continue
        moved = as_reasoning and bool(scenario.calls and scenario.content) and not scenario.reasoning
        # Arguments written as element trees (MiniMax-M3): nested leaves are text the schema types, and the
        # template drops None values; such cases carry the nested keys' schema and expect no None.
        nested = elements and any(isinstance(v, dict) for _, a in scenario.calls for v in a.values())
        want = {
            "calls": [{"name": n, "arguments": without_none(a) if nested else a} for n, a in scenario.calls],
            "text": "" if moved else scenario.content,
            "reasoning": scenario.content if moved else scenario.reasoning,
        }
        tools = NESTED_TOOLS if nested else TOOLS
        whole = outcome(output, [output], derivation.name, derivation.primed, want, tools)
        per_char = outcome(output, list(output), derivation.name, derivation.primed, want, tools)
        results.append((scenario.id, whole, per_char))
        cases.append(
            {"scenario": scenario.id, "output": output, "expected": want, **({"tools": tools} if nested else {})}
        )
    row.update(
        derived=True,
        structure=structure(decl),
        scenarios=len(results),
        whole=sum(not w for _, w, _ in results),
        per_char=sum(not p for _, _, p in results),
        failures={s: w or p for s, w, p in results if w or p},
    )
    named = dataclasses.replace(decl, name=data_name(path.stem), models=source.get("repo", "") and path.stem)
    fixture_models = sorted({m.model_id for m in MODELS if m.template == path.name})
    data = {
        "template": path.name,
        "source": {k: source.get(k, "") for k in ("repo", "path", "commit")},
        "primed": derivation.primed,
        # tests/data/real/templates.json renders these model ids from the same template file
        "fixture_models": fixture_models,
        "declaration": named.to_dict(),
        "cases": cases,
        # Fixture variants rendered with other template options: the declaration derived with those options.
        "variants": variants(src, fixture_models, named.name),
    }
    return row, data


def variants(src: str, models: list[str], name: str) -> list[dict[str, Any]]:
    if not models or not FIXTURES.exists():
        return []
    cases = json.loads(FIXTURES.read_text(encoding="utf-8"))["cases"]
    kwargs_seen = {json.dumps(c["chat_template_kwargs"], sort_keys=True) for c in cases if c["model"] in models}
    out = []
    for text in sorted(kwargs_seen - {"{}"}):
        kwargs = json.loads(text)
        try:
            derivation = derive(src, chat_template_kwargs=kwargs)
        except DeriveError:
            continue
        decl = dataclasses.replace(derivation.declaration, name=name)
        out.append({"chat_template_kwargs": kwargs, "primed": derivation.primed, "declaration": decl.to_dict()})
    return out


def structure(decl: Any) -> str:
    name = decl.call.name.to_dict()
    if name.get("kind") == "json":
        shape = "JSON list" if name.get("list") else "JSON object"
        if name.get("name_is_key"):
            shape += ", name as key"
        if decl.call.standalone:
            shape = "bare " + shape + " (no marker)"
    elif name.get("kind") == "recipient":
        shape = "recipient of a message header + JSON"
    elif name.get("kind") == "python":
        shape = "Python call list" + (", strings as written" if name.get("strings") == "raw" else "")
    else:
        args = decl.call.arguments.to_dict()
        shape = "name attribute" if name.get("attribute") else "name header"
        kinds = {"tagged": "tagged arguments", "elements": "element-tree arguments"}
        shape += " + " + kinds.get(args.get("kind", ""), "JSON")
        if args.get("noise"):
            shape += f" ({args['noise']} before every tag)"
        if args.get("string_quote"):
            shape += f" notation, strings in {args['string_quote']}"
    if decl.section:
        shape += ", section"
    if decl.reasoning:
        shape += ", reasoning" + (" (primed)" if decl.reasoning[0].primed else "")
    if decl.messages:
        shape += ", messages" + (" (reasoning channel)" if decl.messages.reasoning_words else "")
    return shape


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| template | derived structure | scenarios | whole | per character | llama.cpp route | llama.cpp tests |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            why = r["error"].replace("|", "\\|")
            tail = f"{r['llama_cpp']} | {r['llama_cpp_tests']} |"
            lines.append(f"| {r['template']} | not derived: {why[:220]} | – | – | – | {tail}")
            continue
        n, shape = r["scenarios"], r["structure"].replace("|", "\\|")
        cells = f"{n} | {r['whole']}/{n} | {r['per_char']}/{n} | {r['llama_cpp']} | {r['llama_cpp_tests']}"
        lines.append(f"| {r['template']} | {shape} | {cells} |")
    derived = [r for r in rows if "error" not in r]
    total = sum(r["scenarios"] for r in derived)
    whole = sum(r["whole"] for r in derived)
    lines.append("")
    lines.append(
        f"{len(derived)} of {len(rows)} templates derived; {whole} of {total} rendered scenarios round-trip "
        f"whole, {sum(r['per_char'] for r in derived)} of {total} one character at a time."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--templates", required=True, type=Path)
    ap.add_argument("--data", type=Path, default=Path("tests/data/derived"))
    ap.add_argument("--docs", type=Path)
    args = ap.parse_args(argv)
    info = sources(args.templates)
    rows = []
    args.data.mkdir(parents=True, exist_ok=True)
    for path in sorted(args.templates.glob("*.jinja")):
        row, data = run(path, info.get(path.name, {}))
        rows.append(row)
        status = (
            row.get("error")
            or f"{row['whole']}/{row['scenarios']} whole, {row['per_char']}/{row['scenarios']} per char"
        )
        print(f"{path.name}: {status}", file=sys.stderr)
        for scenario, why in row.get("failures", {}).items():
            print(f"    {scenario}: {why}", file=sys.stderr)
        if data is not None and data["cases"]:
            out = args.data / f"{data_name(path.stem)}.json"
            out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    text = table(rows)
    print(text)
    if args.docs:
        page = args.docs.read_text(encoding="utf-8")
        head, _, rest = page.partition(RATES_BEGIN)
        _, _, tail = rest.partition(RATES_END)
        args.docs.write_text(f"{head}{RATES_BEGIN}\n{text}\n{RATES_END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
