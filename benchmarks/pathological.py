"""Pathological inputs: is the parser linear in time and bounded in memory (docs/API.md linear cost)?

Each case is built at 4 MB (``--quick``: 1 MB) and fed in fixed-size chunks (4096 characters by default,
about what an HTTP read or an SSE batch delivers; ``--chunk 4`` gives token-sized pieces). The linearity
check compares the CPU time of the input's second half with its first half, in the same run (the best of
``--repeat`` runs, each half apart): about 1.0 when linear, the target is <= 1.3, while a parser that
rescans what it holds per chunk spends ~3x as long on the second half (a cost quadratic in the input is
three quarters in its second half). A call that ends in the second half does its one-time work there, so a
slower second half is confirmed by a run at half the size (linear: half the time; the target is <= 2.6x)
before it counts. One run at one size does what a 1 MB and a 10 MB run did, with no cross-run bias, and a
busy machine slows both halves alike. Then the whole input is fed at once (as
``parse()`` does: a state that scans the rest of the buffer per marker shows up here); that feed gets a
CPU-time budget (3x the chunked run, at least 1 s) and is stopped there, so a quadratic case is reported
as such instead of running for hours. Last, the tracemalloc peak while parsing (full run only; the input is
built before tracing starts, so the peak is what the parser holds; a malformed call is swallowed to its
closer and keeps its raw markup, so O(call) peaks are expected there), and one 50 MB string argument
(``--quick``: 10 MB), with and without ``max_call_chars``.

    python benchmarks/pathological.py            # all cases, 4 KB chunks (about 4 min of CPU)
    python benchmarks/pathological.py --quick    # all cases at 1 MB, one run, no tracemalloc (about 15 s)
    python benchmarks/pathological.py --chunk 4  # token-sized chunks (slower)
    python benchmarks/pathological.py --only lt,nested

Every time is CPU time of this process (``time.process_time``; the budget is an ``ITIMER_PROF`` timer,
CPU time too), so a busy machine does not print NOT LINEAR. Exit status 1 when a case is not linear or a
feed raised.
"""

from __future__ import annotations

import argparse
import gc
import signal
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamparse import StreamParser  # noqa: E402
from streamparse.events import ToolCallEnd, ToolCallRejected  # noqa: E402

MB = 1_000_000
TARGET_HALVES = 1.3  # second half / first half of one run: 1.0 when linear, ~3 when quadratic
MIN_JUDGED = 0.1  # CPU seconds: a faster run is timer and cache noise, too short to judge
WHOLE_SLACK, WHOLE_MIN = 2.0, 0.5  # one feed of everything may cost 2x the chunked run (or 0.5 s) at most
BUDGET_FACTOR, BUDGET_MIN = 3.0, 1.0  # ... and is stopped at 3x the chunked run (at least 1 s of CPU)

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


class OverBudget(BaseException):
    """Raised by the CPU timer inside ``feed``: a BaseException, so no ``except Exception`` swallows it."""


def _over_budget(signum: int, frame: object) -> None:
    raise OverBudget


def halves(text: str, chunk: int, repeats: int, **options: object) -> tuple[float, float, Counts]:
    """CPU seconds of the first and second half of the input (each the best of ``repeats`` runs), chunked."""
    first = second = float("inf")
    counts = Counts()
    mid = (len(text) // 2 // chunk) * chunk or len(text)
    for _ in range(repeats):
        parser = StreamParser(**options)  # type: ignore[arg-type]
        feed = parser.feed
        counts = Counts()
        gc.collect()
        t0 = time.process_time()
        for i in range(0, mid, chunk):
            counts.add(feed(text[i : i + chunk]))
        t1 = time.process_time()
        for i in range(mid, len(text), chunk):
            counts.add(feed(text[i : i + chunk]))
        counts.add(parser.close())
        t2 = time.process_time()
        first, second = min(first, t1 - t0), min(second, t2 - t1)
    return first, second, counts


def whole(text: str, budget: float, **options: object) -> float | None:
    """CPU seconds of one ``feed`` of the whole input (as ``parse()`` does), or None past ``budget``."""
    parser = StreamParser(**options)  # type: ignore[arg-type]
    gc.collect()
    previous = signal.signal(signal.SIGPROF, _over_budget)
    t0 = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, budget)
    try:
        parser.feed(text)
        parser.close()
    except OverBudget:
        return None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    return time.process_time() - t0


def peak(text: str, chunk: int, **options: object) -> int:
    """The tracemalloc peak (bytes) while the input is fed in chunks."""
    parser = StreamParser(**options)  # type: ignore[arg-type]
    gc.collect()
    tracemalloc.start()
    try:
        for i in range(0, len(text), chunk):
            parser.feed(text[i : i + chunk])
        parser.close()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class Counts:
    """Calls and rejections (with their reasons) among a parse's events: the sanity column."""

    __slots__ = ("calls", "rejected", "reasons")

    def __init__(self) -> None:
        self.calls = self.rejected = 0
        self.reasons: set[str] = set()

    def add(self, events: list[object]) -> None:
        for ev in events:
            if isinstance(ev, ToolCallEnd):
                self.calls += 1
            elif isinstance(ev, ToolCallRejected):
                self.rejected += 1
                self.reasons.add(ev.reason)

    def __str__(self) -> str:
        reasons = " " + ",".join(sorted(self.reasons)) if self.reasons else ""
        return f"calls={self.calls} rejected={self.rejected}{reasons}"


def budget_for(chunked: float) -> float:
    return max(BUDGET_FACTOR * chunked, BUDGET_MIN)


def linearity(first: float, second: float, whole_time: float | None, doubling: float | None = None) -> list[str]:
    """Why a case is not linear (empty when it is). A second half slower than the first by more than
    ``TARGET_HALVES`` is confirmed by ``doubling`` (the chunked run at full size over the run at half size:
    2 when linear, 4 when quadratic) before it counts, since a call that ends in the second half does its
    one-time work there. One feed of everything is judged against the chunked run. Chunked runs under
    ``MIN_JUDGED`` are noise, never judged."""
    chunked = first + second
    why = []
    if chunked > MIN_JUDGED and second > TARGET_HALVES * first and (doubling is None or doubling > 2 * TARGET_HALVES):
        why.append(
            f"2nd half {second / first:.1f}x the 1st" + ("" if doubling is None else f", x{doubling:.1f} at 2x size")
        )
    if whole_time is None:
        why.append(f"one feed over its budget of {budget_for(chunked):.1f}s")
    elif whole_time > WHOLE_SLACK * chunked and whole_time > WHOLE_MIN:
        why.append(f"one feed {whole_time / chunked:.1f}x the chunked run")
    return why


def suspicious(first: float, second: float) -> bool:
    """A second half slow enough to be worth the confirming run at half size."""
    return first + second > MIN_JUDGED and second > TARGET_HALVES * first


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunk", type=int, default=4096, help="characters per feed() (default 4096)")
    ap.add_argument("--formats", default="auto", help="formats option (default auto)")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--size", type=float, default=None, help="MB per case (default 4, --quick 1)")
    ap.add_argument("--repeat", type=int, default=None, help="chunked runs per case, the best half kept (2; quick: 1)")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs")
    ap.add_argument("--big", type=int, default=None, help="size of the one-string case in MB (default 50)")
    ap.add_argument("--quick", action="store_true", help="1 MB per case, no tracemalloc, a 10 MB string")
    args = ap.parse_args(argv)
    size_mb = args.size or (1.0 if args.quick else 4.0)
    args.repeat = args.repeat or (1 if args.quick else 2)
    big_mb = args.big or (10 if args.quick else 50)
    no_memory = args.no_memory or args.quick
    formats = args.formats if args.formats == "auto" else args.formats.split(",")
    wanted = [c for c in args.only.split(",") if c] or list(CASES)
    failures = 0
    print(
        f"benchmarks/pathological.py{' --quick' if args.quick else ''}: takes about "
        f"{'15 s' if args.quick else '4 min'} of CPU; {len(wanted)} cases at {size_mb:g} MB, chunk={args.chunk} "
        f"chars, formats={args.formats}, best of {args.repeat}, python {sys.version.split()[0]}, CPU time"
    )
    width = max(map(len, wanted))
    print(
        f"{'case':{width}s} {'s/MB 1st':>9s} {'s/MB 2nd':>9s} {'2nd/1st':>7s} {'goal':>6s} {'s/MB whole':>10s} "
        f"{'peak':>9s}  outcome"
    )
    for name in wanted:
        text = CASES[name](int(size_mb * MB))
        half_mb = size_mb / 2
        try:
            first, second, counts = halves(text, args.chunk, args.repeat, formats=formats)
            budget = budget_for(first + second)
            whole_time = whole(text, budget, formats=formats)
            mem = "-" if no_memory else f"{peak(text, args.chunk, formats=formats) / MB:.2f}MB"
        except Exception as exc:  # the point of the benchmark: report, do not stop
            failures += 1
            print(f"{name:{width}s} RAISED {type(exc).__name__}: {exc}")
            continue
        doubling = None
        if suspicious(first, second):  # confirm with the same case at half size (linear: half the time)
            f2, s2, _ = halves(CASES[name](int(size_mb * MB / 2)), args.chunk, args.repeat, formats=formats)
            doubling = (first + second) / (f2 + s2)
        why = linearity(first, second, whole_time, doubling)
        failures += bool(why)
        ratio = second / first if first > 0 else float("inf")
        whole_col = f">{budget / size_mb:.4f}" if whole_time is None else f"{whole_time / size_mb:.4f}"
        flag = f"  <-- NOT LINEAR: {'; '.join(why)}" if why else ""
        goal = f"<={TARGET_HALVES:g}"
        print(
            f"{name:{width}s} {first / half_mb:>9.4f} {second / half_mb:>9.4f} {ratio:>7.2f} {goal:>6s} "
            f"{whole_col:>10s} {mem:>9s}  {counts}{flag}",
            flush=True,
        )
        del text

    big = one_string(big_mb * MB)
    for limit in (None, 10_000):
        opts: dict[str, object] = {"formats": formats, "max_call_chars": limit}
        first, second, counts = halves(big, args.chunk, 1, **opts)  # the halves: the time with its close
        mem = "-" if no_memory else f"{peak(big, args.chunk, **opts) / MB:.2f}MB"
        dt = first + second
        print(
            f"one {big_mb} MB string argument, max_call_chars={limit}: {dt:.2f}s ({dt / big_mb:.4f} s/MB), "
            f"peak {mem}, {counts}",
            flush=True,
        )
    print("FAIL" if failures else f"OK: every case linear within the target (2nd/1st half <= {TARGET_HALVES})")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
