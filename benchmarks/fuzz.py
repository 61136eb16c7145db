"""The long fuzzing campaign: random marker soup through every format, checking the docs/API.md invariants.

Inputs are random mixtures of fragments: every format's delimiters and example (and random cuts of them,
so partial markers end up everywhere), the compiled visible-text markers, control and reasoning tokens,
JSON pieces, unicode (CJK, emoji, U+2028, NUL) and whitespace. Each input is parsed with one configured
format (or ``auto``) and optionally a tool allowlist, fed whole, one character at a time, one UTF-8 byte
at a time (sometimes) and in random chunks. Counted per input: an exception from ``feed``/``close`` (the
library must never raise on model output), a difference between chunkings (chunking invariance), and a broken
argument stream (argument deltas join to arguments_json). The first failing inputs are written to
``--out`` for reproduction.

    python benchmarks/fuzz.py --inputs 1000000          # make fuzz (both cores)
    python benchmarks/fuzz.py --inputs 20000 --workers 1 --seed 7

The generator is plain ``random`` (hypothesis is far too slow for a million inputs); ``tests/test_fuzz.py``
draws from the same fragments with hypothesis.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import re
import sys
import time
import traceback
from functools import lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamparse import StreamParser  # noqa: E402
from streamparse import formats as catalog  # noqa: E402
from streamparse.events import (  # noqa: E402
    Event,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
    merge_events,
)

JSON_FRAGMENTS = (
    '{"name": "f", "arguments": {',
    '{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}',
    '{"tool": "f", "params": {}}',
    '"a": "x"',
    '"q": "see </tool_call> here"',
    '"n": 15',
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    "\\",
    '\\"',
    "\\u00e9",
    "\\ud83d",
    ":",
    ",",
    ", }",
    "True",
    "null",
    "-1.5e3",
    "0",
    "12345678901234567890",
    "f(a=1, b='x')",
    "[f(x=1)]",
)
UNICODE = ("漢字", "你好，世界", "🙂", "👩‍💻", "é", "\u2028", "\x00", "\ufeff", "｜", "▁", "✦", "\U0010ffff")
SPACE = (" ", "\n", "\n\n", "\t", "\r\n", "   ", "\n```\n", "`", "```json\n", "~~~\n")
PROSE = ("Let me check.", "a < b", "x|y", "[1]", "{x}", ">>> ", "a<|b", "I'll call it now:", "Done.")
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": props, "required": list(props)[:1]},
        },
    }
    for name, props in (
        ("lookup_order", {"order_id": {"type": "string"}}),
        ("set_alarm", {"minutes": {"type": "integer"}, "label": {"type": "string"}}),
        ("f", {"a": {"type": "string"}, "q": {"type": "string"}, "n": {"type": "integer"}}),
        ("run_tests", {"path": {"type": "string"}, "verbose": {"type": "boolean"}}),
        ("fetch_url", {"url": {"type": "string"}}),
        ("fare_quote", {"route": {"type": "string"}}),
    )
]

_PLACEHOLDERS = re.compile(r"\s+|NAME|ARGS|IDX|\.\.\.|\(one line.*|\(any ns.*|·|\bK\b|\bV\b")


@lru_cache(maxsize=1)
def fragments() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(markers, others): every delimiter piece of every format plus the scanner's markers; the rest."""
    from streamparse.config import tables
    from streamparse.states import text as textscope

    markers: set[str] = set()
    examples: list[str] = []
    for spec in catalog.CATALOG.values():
        markers.update(p for p in _PLACEHOLDERS.split(spec.delimiters) if p)
        examples.append(spec.example)
    markers.update(tables(tuple(catalog.CATALOG), False).text.markers.markers)
    markers.update(textscope.CONTROL_TOKENS)
    markers.update(textscope.REASONING)
    markers.update(textscope.REASONING.values())
    markers.update(textscope.REASONING_DROPPED)
    markers.update(("<ns:function_calls>", "<ns:invoke", "</ns:invoke>", "functions.f:0", "to=functions.f"))
    others = tuple(examples) + JSON_FRAGMENTS + UNICODE + SPACE + PROSE
    return tuple(sorted(markers)), others


def random_text(rng: random.Random, max_pieces: int = 24) -> str:
    """One fuzz input: a few fragments, some cut at a random point (partial markers, cut examples)."""
    markers, others = fragments()
    out: list[str] = []
    for _ in range(rng.randint(1, max_pieces)):
        r = rng.random()
        if r < 0.4:
            piece = rng.choice(markers)
        elif r < 0.85:
            piece = rng.choice(others)
        elif r < 0.95:
            piece = "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(1, 6)))
        else:
            piece = "".join(chr(rng.choice((rng.randint(0, 0xD7FF), rng.randint(0xE000, 0x10FFFF)))) for _ in range(3))
        if len(piece) > 1 and rng.random() < 0.25:
            cut = rng.randint(1, len(piece) - 1)
            piece = piece[:cut] if rng.random() < 0.5 else piece[cut:]
        out.append(piece)
    return "".join(out)


def format_choices() -> list[str]:
    return ["auto", *catalog.names()]


def options_for(choice: str, with_tools: bool) -> dict[str, Any]:
    opts: dict[str, Any] = {"formats": choice if choice == "auto" else [choice]}
    if with_tools:
        opts["tools"] = TOOLS
    return opts


# -- invariant checks (self-contained: no pytest needed) --------------------------------------------------


class InvariantError(AssertionError):
    pass


def run(chunks: list[str] | list[bytes], **options: Any) -> list[Event]:
    parser = StreamParser(**options)
    events: list[Event] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events


def check_deltas(events: list[Event]) -> None:
    """Invariant 2: each call's deltas join to its arguments_json, which loads to its arguments."""
    parts: dict[int, list[str]] = {}
    done: set[int] = set()
    for ev in events:
        if isinstance(ev, ToolCallStart):
            if ev.index in parts:
                raise InvariantError(f"call {ev.index} started twice")
            parts[ev.index] = []
        elif isinstance(ev, ToolCallDelta):
            if ev.index not in parts or ev.index in done:
                raise InvariantError(f"delta outside call {ev.index}")
            parts[ev.index].append(ev.arguments)
        elif isinstance(ev, ToolCallEnd):
            if ev.index not in parts or ev.index in done:
                raise InvariantError(f"end of unknown call {ev.index}")
            done.add(ev.index)
            joined = "".join(parts[ev.index])
            if joined != ev.call.arguments_json or json.loads(joined) != ev.call.arguments:
                raise InvariantError(f"deltas {joined!r} != arguments_json {ev.call.arguments_json!r}")
        elif isinstance(ev, ToolCallRejected):
            if ev.index in done:
                raise InvariantError(f"call {ev.index} got two verdicts")
            done.add(ev.index)
    if set(parts) - done:
        raise InvariantError(f"calls started but never finished: {set(parts) - done}")


def pieces(text: str, rng: random.Random) -> list[str]:
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 12)
        out.append(text[i : i + k])
        i += k
    return out


def check_one(text: str, options: dict[str, Any], rng: random.Random, byte_too: bool) -> None:
    whole = run([text], **options)
    check_deltas(whole)
    ref = merge_events(whole)
    variants: list[tuple[str, list[Any]]] = [("chars", list(text)), ("random", pieces(text, rng))]
    if byte_too:
        data = text.encode("utf-8")
        variants.append(("bytes", [data[i : i + 1] for i in range(len(data))]))
    for label, chunks in variants:
        events = run(chunks, **options)
        check_deltas(events)
        if merge_events(events) != ref:
            raise InvariantError(f"chunking {label} changed the result")


def failure_of(text: str, options: dict[str, Any]) -> str | None:
    """The kind of failure ``text`` triggers (deterministic chunkings only), or None."""
    try:
        check_one(text, options, random.Random(0), byte_too=True)
    except InvariantError:
        return "invariant"
    except Exception:
        return "exception"
    return None


def shrink(text: str, options: dict[str, Any], budget: int = 2000) -> str:
    """Greedy delta debugging: drop pieces of ``text`` while it still fails the same way."""
    kind = failure_of(text, options)
    if kind is None:
        return text
    size = max(1, len(text) // 2)
    while size >= 1 and budget > 0:
        i = 0
        changed = False
        while i < len(text) and budget > 0:
            cand = text[:i] + text[i + size :]
            budget -= 1
            if cand and failure_of(cand, options) == kind:
                text = cand
                changed = True
            else:
                i += size
        if not changed:
            size //= 2
    return text


# -- the campaign ----------------------------------------------------------------------------------------


def worker(args: tuple[int, int, int]) -> dict[str, Any]:
    seed, start, count = args
    rng = random.Random(seed * 1_000_003 + start)
    choices = format_choices()
    stats: dict[str, Any] = {"inputs": 0, "chars": 0, "exceptions": 0, "invariant": 0, "failures": []}
    for _ in range(count):
        text = random_text(rng)
        choice = rng.choice(choices)
        options = options_for(choice, rng.random() < 0.3)
        if rng.random() < 0.1:
            options["max_call_chars"] = rng.choice((1, 8, 40, 300))
        elif rng.random() < 0.05:
            options["fallback"] = rng.choice(("off", "gated"))
        try:
            check_one(text, options, rng, byte_too=rng.random() < 0.1)
        except InvariantError as exc:
            stats["invariant"] += 1
            if len(stats["failures"]) < 20:
                stats["failures"].append({"kind": "invariant", "error": str(exc), "input": text, "options": options})
        except Exception as exc:  # the library must never raise on model output: count and keep it
            stats["exceptions"] += 1
            if len(stats["failures"]) < 20:
                stats["failures"].append(
                    {
                        "kind": "exception",
                        "error": f"{type(exc).__name__}: {exc}",
                        "traceback": traceback.format_exc(limit=6),
                        "input": text,
                        "options": options,
                    }
                )
        stats["inputs"] += 1
        stats["chars"] += len(text)
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=2000, help="inputs per work unit")
    ap.add_argument("--out", default="fuzz-failures.jsonl", help="where failing inputs are written")
    args = ap.parse_args(argv)

    units = [(args.seed, i, min(args.batch, args.inputs - i)) for i in range(0, args.inputs, args.batch)]
    Path(args.out).unlink(missing_ok=True)  # a stale report from an earlier run would mislead
    total: dict[str, Any] = {"inputs": 0, "chars": 0, "exceptions": 0, "invariant": 0, "failures": []}
    t0 = time.perf_counter()
    last = t0
    print(f"fuzzing {args.inputs} inputs over {len(format_choices())} format choices, {args.workers} workers")
    with mp.Pool(args.workers) as pool:
        for res in pool.imap_unordered(worker, units):
            for k in ("inputs", "chars", "exceptions", "invariant"):
                total[k] += res[k]
            total["failures"].extend(res["failures"][: max(0, 50 - len(total["failures"]))])
            now = time.perf_counter()
            if now - last > 10:
                last = now
                rate = total["inputs"] / (now - t0)
                print(
                    f"  {total['inputs']:>9d} inputs  {rate:8.0f}/s  exceptions={total['exceptions']} "
                    f"invariant={total['invariant']}",
                    flush=True,
                )
    dt = time.perf_counter() - t0
    print(
        f"done: {total['inputs']} inputs ({total['chars'] / 1e6:.1f} M chars, each parsed 3-4 ways) in "
        f"{dt:.1f}s = {total['inputs'] / dt:.0f} inputs/s; exceptions={total['exceptions']} "
        f"invariant violations={total['invariant']}"
    )
    if total["failures"]:
        with open(args.out, "w", encoding="utf-8") as fh:
            for failure in total["failures"]:
                failure["shrunk"] = shrink(failure["input"], failure["options"])
                fh.write(json.dumps(failure, ensure_ascii=False) + "\n")
        print(f"first failing inputs written to {args.out}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
