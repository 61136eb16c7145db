"""Pathological inputs: is the parser linear in time and bounded in memory (docs/API.md linear cost)?

Each case is built at 1 MB and at 10 MB and fed in fixed-size chunks (4096 characters by default, about
what an HTTP read or an SSE batch delivers; ``--chunk 4`` gives token-sized pieces). For each case the
script prints seconds per MB at both sizes, their ratio (10 MB / 1 MB total time: about 10 when linear,
the target is <= 12), seconds per MB when the 10 MB input is fed whole (as ``parse()`` does: a state that
scans the rest of the buffer per marker shows up here), and the tracemalloc peak while parsing the 10 MB
input (the input itself is built before tracing starts, so the peak is what the parser holds; a malformed
call is swallowed to its closer and keeps its raw markup, so O(call) peaks are expected there). Then one
50 MB string argument, with and without ``max_call_chars``.

    python benchmarks/pathological.py            # all cases, 4 KB chunks
    python benchmarks/pathological.py --chunk 4  # token-sized chunks (slower)
    python benchmarks/pathological.py --only lt,nested

Times are CPU time of this process (``time.process_time``), so a busy machine does not print NOT LINEAR.
``--quick`` (about a minute) runs a third of the cases, without the tracemalloc runs, and a 10 MB string.

Exit status 1 when a ratio exceeds the target or a feed raised.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamparse import StreamParser  # noqa: E402
from streamparse.events import ToolCallEnd, ToolCallRejected  # noqa: E402

MB = 1_000_000
TARGET_RATIO = 12.0

# Openers of many formats, each left open: every one must be released or rejected, never held forever.
OPENERS = (
    "<tool_call>",
    "<tool_call>{",
    "<function_calls>",
    "<function=f>",
    '<invoke name="f">',
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<｜tool▁calls▁begin｜>",
    "[TOOL_CALLS]",
    "<think>",
    "<|channel|>",
    "```",
    "`",
    "~~~",
    "TOOL_CALL",
    ">>>",
)


def repeat(unit: str) -> Callable[[int], str]:
    return lambda n: unit * (n // len(unit))


def nested(n: int) -> str:
    k = (n - 60) // 2
    return '<tool_call>{"name": "f", "arguments": {"a": ' + "[" * k + "]" * k + "}}</tool_call> after"


def nested_open(n: int) -> str:
    return '<tool_call>{"name": "f", "arguments": {"a": ' + "[" * (n - 45)


def openers_mix(n: int) -> str:
    unit = " x ".join(OPENERS) + "\n"
    return unit * (n // len(unit))


def one_string(n: int) -> str:
    return '<tool_call>{"name": "f", "arguments": {"q": "' + "x" * (n - 60) + '"}}</tool_call> after'


def long_number(n: int) -> str:
    return '<tool_call>{"name": "f", "arguments": {"q": ' + "1" * (n - 45)


CASES: dict[str, Callable[[int], str]] = {
    "lt": repeat("<"),
    "lt_pipe": repeat("<|"),
    "lbracket": repeat("["),
    "lbrace": repeat("{"),
    "fullwidth_lt": repeat("<｜"),
    "backticks": repeat("`"),
    "tildes": repeat("~"),
    "newline_brace": repeat("\n{"),
    "tool_call_then_spaces": lambda n: "<tool_call>" + " " * (n - 11),
    "nested": nested,
    "nested_open": nested_open,
    "openers_mix": openers_mix,
    **{f"open {op}": repeat(op) for op in OPENERS},  # the same opener again and again, never closed
    "long_number": long_number,
    "one_string": one_string,
}


def feed_all(text: str, chunk: int, **options: object) -> tuple[float, int, StreamParser]:
    parser = StreamParser(**options)  # type: ignore[arg-type]
    events = 0
    chunk = chunk or len(text) or 1  # 0: the whole input in one feed (as parse() does)
    t0 = time.process_time()
    for i in range(0, len(text), chunk):
        events += len(parser.feed(text[i : i + chunk]))
    events += len(parser.close())
    return time.process_time() - t0, events, parser


def timed(text: str, chunk: int, repeats: int, **options: object) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        dt, _, _ = feed_all(text, chunk, **options)
        best = min(best, dt)
    return best


def peak(text: str, chunk: int, **options: object) -> tuple[int, StreamParser]:
    gc.collect()
    tracemalloc.start()
    try:
        _, _, parser = feed_all(text, chunk, **options)
        return tracemalloc.get_traced_memory()[1], parser
    finally:
        tracemalloc.stop()


def outcome(text: str, **options: object) -> str:
    """What one parse of the input produced (a sanity line, from a chunked run)."""
    parser = StreamParser(**options)  # type: ignore[arg-type]
    calls = rejected = 0
    reasons: set[str] = set()
    for i in range(0, len(text), 65536):
        evs = parser.feed(text[i : i + 65536])
        for ev in evs:
            calls += isinstance(ev, ToolCallEnd)
            if isinstance(ev, ToolCallRejected):
                rejected += 1
                reasons.add(ev.reason)
    for ev in parser.close():
        calls += isinstance(ev, ToolCallEnd)
        if isinstance(ev, ToolCallRejected):
            rejected += 1
            reasons.add(ev.reason)
    return f"calls={calls} rejected={rejected}{' ' + ','.join(sorted(reasons)) if reasons else ''}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunk", type=int, default=4096, help="characters per feed() (default 4096)")
    ap.add_argument("--formats", default="auto", help="formats option (default auto)")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs")
    ap.add_argument("--big", type=int, default=50, help="size of the one-string case in MB (default 50)")
    ap.add_argument("--quick", action="store_true", help="every third case, no tracemalloc, a 10 MB string")
    args = ap.parse_args(argv)
    if args.quick:
        args.no_memory, args.big = True, min(args.big, 10)
    formats = args.formats if args.formats == "auto" else args.formats.split(",")
    wanted = [c for c in args.only.split(",") if c] or list(CASES)[:: 3 if args.quick else 1]
    failures = 0
    print(
        f"benchmarks/pathological.py{' --quick' if args.quick else ''}: takes about {'1' if args.quick else '8'} min; "
        f"chunk={args.chunk} chars, formats={args.formats}, python {sys.version.split()[0]}, CPU time"
    )
    print(
        f"{'case':24s} {'s/MB @1MB':>10s} {'s/MB @10MB':>11s} {'ratio':>6s} {'whole@10MB':>11s} "
        f"{'peak@10MB':>10s}  outcome"
    )
    for name in wanted:
        make = CASES[name]
        small, large = make(MB), make(10 * MB)
        try:
            t1 = timed(small, args.chunk, 3, formats=formats)
            t10 = timed(large, args.chunk, 1, formats=formats)
            whole = timed(large, 0, 1, formats=formats)  # one feed: O(buffer) work per marker would show
            mem = "-" if args.no_memory else f"{peak(large, args.chunk, formats=formats)[0] / MB:.2f}MB"
            out = outcome(large, formats=formats)
        except Exception as exc:  # the point of the benchmark: report, do not stop
            failures += 1
            print(f"{name:24s} RAISED {type(exc).__name__}: {exc}")
            continue
        ratio = t10 / t1 if t1 > 0 else float("inf")
        # Sub-10ms timings at 1 MB are dominated by noise: only a slow 10 MB run can fail the target. The
        # whole-input feed must not be much slower than the chunked one either.
        bad = (ratio > TARGET_RATIO and t10 > 0.1) or (whole > 2 * t10 and whole > 0.5)
        failures += bad
        flag = "  <-- NOT LINEAR" if bad else ""
        print(
            f"{name:24s} {t1 / 1:>10.4f} {t10 / 10:>11.4f} {ratio:>6.1f} {whole / 10:>11.4f} {mem:>10s}  {out}{flag}",
            flush=True,
        )
        del small, large

    size = args.big * MB
    big = one_string(size)
    for limit in (None, 10_000):
        opts: dict[str, object] = {"formats": formats, "max_call_chars": limit}
        dt, _, _ = feed_all(big, args.chunk, **opts)
        mem = "-" if args.no_memory else f"{peak(big, args.chunk, **opts)[0] / MB:.2f}MB"
        print(
            f"one {args.big} MB string argument, max_call_chars={limit}: {dt:.2f}s "
            f"({dt / args.big:.4f} s/MB), peak {mem}, {outcome(big, **opts)}",
            flush=True,
        )
    print("FAIL" if failures else "OK: every case linear within the target")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
