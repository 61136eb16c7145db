"""Pass rate of the real-output fixtures per source and per family (before/after measurements).

Usage::

    python scripts/conformance.py              # rates per source, then per family
    python scripts/conformance.py -v           # and every failing case with what differs
    python scripts/conformance.py --write-docs # regenerate the status table in docs/FORMATS.md

Sources: the models' chat templates parsed with ``StreamParser.for_model`` (``templates/preset``) and with
``formats="auto"`` (``templates/auto``), the peers' parser cases (vLLM, SGLang, llama.cpp) and public bug
reports (``reports``). A case passes when the whole-text parse gives the expected calls, rejections, text
and reasoning exactly and the per-character, per-byte and random chunkings give the same events. A case's
family is the format of the calls it parsed to, else the one format it names, else its model's preset.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from real_world import SOURCES, Case, cases, check_case, parse_case  # noqa: E402

from streamparse import formats as catalog  # noqa: E402

DOC = ROOT / "docs" / "FORMATS.md"
README = ROOT / "README.md"
START, END = "<!-- conformance:start -->", "<!-- conformance:end -->"
STATUS = {
    "template": "tested against the model's own chat template",
    "cases": "tested against engines' cases and bug reports",
    "none": "unit tests only (no real-output fixture yet)",
}


def family_of(case: Case) -> str:
    try:
        result = parse_case(case)
        found = [c.format for c in result.tool_calls] + [r.format for r in result.rejected if r.format]
    except Exception:  # a parser that raises still belongs to a family
        found = []
    if found:
        return found[0]
    names = case.options.get("formats")
    if isinstance(names, list) and len(names) == 1:
        return str(names[0])
    if case.model:
        from streamparse.presets import preset_for

        preset = preset_for(case.model)
        if preset.matched and preset.formats:
            return str(preset.formats[0])
    return case.id.split("::", 1)[0]


def run(verbose: bool) -> dict[str, Counter[str]]:
    """Print the rates per source; return per family the counts of passed and failed cases."""
    runs = [("templates", "preset"), ("templates", "auto")] + [(s, "") for s in SOURCES if s != "templates"]
    families: dict[str, Counter[str]] = defaultdict(Counter)
    for source, mode in runs:
        label = f"{source}/{mode}" if mode else source
        batch = cases(source, mode or "preset")
        failed: Counter[str] = Counter()
        lines = []
        for case in batch:
            ok = False
            try:
                check_case(case, seeds=1)
                ok = True
            except AssertionError as exc:
                first = str(exc).splitlines()[0]
                failed[first.split(": ", 1)[1].split(" ", 1)[0] if ": " in first else "?"] += 1
                lines.append(str(exc))
            except Exception as exc:  # a parser that raises is a failure to report, not to stop on
                failed["raises"] += 1
                lines.append(f"{case}: raises {type(exc).__name__}: {exc}")
            counts = families[family_of(case)]
            counts["passed" if ok else "failed"] += 1
            if source == "templates":
                counts["templates"] += 1
        ok_n = len(batch) - len(lines)
        rate = 100.0 * ok_n / len(batch) if batch else 0.0
        kinds = ", ".join(f"{k} {n}" for k, n in failed.most_common())
        print(f"{label:20} {ok_n:4}/{len(batch):<4} {rate:5.1f} %" + (f"   failing: {kinds}" if kinds else ""))
        if verbose:
            for line in lines:
                print("   ", line.replace("\n", "\n      "))
    print()
    for name in sorted(families):
        c = families[name]
        total = c["passed"] + c["failed"]
        print(f"{name:20} {c['passed']:4}/{total:<4} {100.0 * c['passed'] / total:5.1f} %")
    return families


def status_of(c: Counter[str]) -> str:
    return "template" if c["templates"] else "cases" if c["passed"] + c["failed"] else "none"


def status_table(families: dict[str, Counter[str]]) -> str:
    """Every catalog format with its fixtures and pass rate (docs/FORMATS.md, between the markers)."""
    rows = ["| format | real-output cases | of which template renders | passing | status |", "|---|---|---|---|---|"]
    for name in catalog.ORDER:
        c = families.get(name, Counter())
        total = c["passed"] + c["failed"]
        passing = f"{c['passed']}/{total}" if total else "-"
        anchor = re.sub(r"[^a-z0-9_-]", "", name.lower())
        rows.append(f"| [{name}](#{anchor}) | {total} | {c['templates']} | {passing} | {STATUS[status_of(c)]} |")
    return "\n".join(rows)


def status_lines(families: dict[str, Counter[str]]) -> str:
    """The README's short form: the formats grouped by status."""
    groups: dict[str, list[str]] = defaultdict(list)
    for name in catalog.ORDER:
        groups[status_of(families.get(name, Counter()))].append(name)
    lines = []
    for key, label in STATUS.items():
        if groups[key]:
            lines.append(f"- {label[0].upper() + label[1:]}: {', '.join(groups[key])}.")
    return "\n".join(lines)


def _replace_block(path: Path, body: str) -> None:
    text = path.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{path} has no {START} ... {END} block")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(head + START + "\n" + body + "\n" + END + tail, encoding="utf-8")
    print(f"wrote the status block of {path.relative_to(ROOT)}")


def write_docs(families: dict[str, Counter[str]]) -> None:
    _replace_block(DOC, status_table(families))
    _replace_block(README, status_lines(families))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--write-docs", action="store_true", help="regenerate the status blocks of docs/FORMATS.md, README")
    args = ap.parse_args(argv)
    families = run(args.verbose)
    if args.write_docs:
        write_docs(families)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
