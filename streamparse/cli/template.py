"""``streamparse template FILE|DIR``: what a chat template says about the model's output format.

Prints the parts derived from the template (reasoning delimiters and whether the prompt opens them,
section and call markers, how names and arguments are written, how values are typed, separators) and a
sample round trip; ``--json`` prints the declaration, which ``streamparse.formats.load`` reads back.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import IO, Any

from ..parser import StreamParser, parse

__all__ = ["add_arguments", "cmd_template"]


def add_arguments(tpl: argparse.ArgumentParser) -> None:
    tpl.add_argument("path", help="a chat template file (.jinja), a tokenizer_config.json, or a model folder")
    tpl.add_argument(
        "--json", action="store_true", help="print the derived declaration as JSON (formats.load reads it)"
    )
    tpl.add_argument("--name", help="the declaration's name in --json (default: from the file or folder name)")
    tpl.add_argument(
        "--no-thinking", action="store_true", help="derive for prompts rendered with enable_thinking=False"
    )


def _name(path: Path, given: str | None) -> str:
    if given:
        return given
    stem = path.name if path.is_dir() else (path.parent.name if path.suffix == ".json" else path.stem)
    name = re.sub(r"[^a-z0-9_]+", "_", stem.lower()).strip("_")
    return name if name[:1].isalpha() else f"model_{name}"


def _describe(decl: Any, primed: bool) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for r in decl.reasoning:
        opener = repr(r.open) if r.open else "(none: the reasoning starts the output)"
        rows.append(("reasoning", f"{opener} ... {r.close!r}" + ("; the prompt opens it" if primed else "")))
    if decl.content:
        rows.append(("content wrapper", f"{decl.content.open!r} ... {decl.content.close!r}"))
    if decl.section:
        s = decl.section
        sep = f"; separators {', '.join(repr(x) for x in s.separators)}" if s.separators else ""
        rows.append(("section", f"{s.open!r} ... {s.close!r}{sep}"))
    call = decl.call
    rows += _messages(decl.messages)
    name = call.name.to_dict()
    if name.get("kind") == "recipient":
        prefix = f" after {name['prefix']!r}" if name.get("prefix") else ""
        end = f", up to {call.close!r}" if call.close else ""
        rows.append(("call", f"a message to the tool: the recipient{prefix} is its name, JSON arguments{end}"))
        return rows + _tokens(decl)
    shown = f"{call.open!r} ... {call.close!r}" if call.close else f"{call.open!r} (ends with its JSON)"
    rows.append(("call", "bare JSON, no marker (at a line start or the output start)" if call.standalone else shown))
    if name.get("kind") == "json":
        rows.append(("call body", "JSON " + json.dumps({k: v for k, v in name.items() if k != "kind"})))
    else:
        rows.append(
            ("name", "header " + json.dumps({k: v for k, v in name.items() if k != "kind"}, ensure_ascii=False))
        )
        args = call.arguments.to_dict()
        values = args.pop("values", None)
        rows.append(("arguments", json.dumps(args, ensure_ascii=False)))
        if values is not None or args.get("kind") == "tagged":
            v = call.arguments.values
            rows.append(("values", f"strings {v.strings}, other types {v.others}, whitespace {v.whitespace}"))
    if call.id:
        rows.append(("call id", json.dumps(call.id.to_dict())))
    return rows + _tokens(decl)


def _tokens(decl: Any) -> list[tuple[str, str]]:
    return [("control tokens", ", ".join(repr(t) for t in decl.control_tokens))] if decl.control_tokens else []


def _messages(m: Any) -> list[tuple[str, str]]:
    """Rows for output written as messages with a header (gpt-oss, Muse, Functionary v3.2)."""
    if m is None:
        return []
    who = f"recipient after {m.recipient!r}" if m.recipient else "the header is the recipient"
    channel = f", channel after {m.channel!r}" if m.channel else ""
    primed = "; the prompt writes the opener" if m.primed else ""
    rows = [("messages", f"header {', '.join(repr(o) for o in m.openers())} ... {m.body!r}, {who}{channel}{primed}")]
    if m.reasoning_words:
        rows.append(("reasoning", "messages for/in " + ", ".join(repr(w) for w in m.reasoning_words)))
    if m.text_words:
        rows.append(("text", "messages for " + ", ".join(repr(w) for w in m.text_words)))
    if m.ends:
        rows.append(("message ends", ", ".join(repr(t) for t in m.ends)))
    return rows


def cmd_template(args: argparse.Namespace, out: IO[str]) -> int:
    from ..derive.model_dir import read_template

    path = Path(args.path)
    found = read_template(path)
    if found is None:
        print(f"streamparse template: no chat template in {path}", file=out)
        return 1
    kwargs = {"enable_thinking": False} if args.no_thinking else None
    try:
        parser = StreamParser.from_chat_template(
            found.template, special_tokens=found.special_tokens, chat_template_kwargs=kwargs
        )
    except ImportError as exc:
        print(f"streamparse template: {exc}", file=out)
        return 2
    except ValueError as exc:
        print(f"streamparse template: cannot derive a format from {found.source}: {exc}", file=out)
        return 1
    derivation = parser.derivation
    decl = derivation.declaration
    if args.json:
        import dataclasses

        named = dataclasses.replace(decl, name=_name(path, args.name), models=found.source)
        out.write(named.to_json() + "\n")
        return 0
    print(f"template: {found.source}", file=out)
    passed = sum(c.ok and not c.skipped for c in derivation.checks)
    print(f"format: {derivation.name} (reads back {passed} of {len(derivation.checks)} probe renders)", file=out)
    for label, value in _describe(decl, derivation.primed):
        print(f"  {label:16} {value}", file=out)
    for note in (*derivation.notes, *derivation.warnings):
        print(f"  note: {note}", file=out)
    sample = derivation.samples.get("text_call") or derivation.samples.get("call")
    if sample:
        result = parse(sample, formats=[derivation.name], start_in_reasoning=derivation.primed)
        print("sample output:", file=out)
        print("  " + sample.replace("\n", "\n  "), file=out)
        print("parses to:", file=out)
        if result.text.strip():
            print(f"  text: {result.text.strip()!r}", file=out)
        for call in result.tool_calls:
            print(f"  call: {call.name}({json.dumps(call.arguments, ensure_ascii=False)})", file=out)
    return 0
