"""``make bench-memory``: memory a buffered call holds per argument character, at several sizes and chunkings.

A call to ``write_file`` whose ``content`` argument is N characters long is fed after its opening markup,
``chunk`` characters at a time, and not closed: what the parser holds then is the cost of buffering a
call. Goal (issue 19): at most 1.1 bytes per argument character, the argument text kept once (the call's
raw markup refers to it). Measured two ways:

- tracemalloc: bytes the parser holds (``held``) and the peak while feeding (``peak``, with transient
  copies), in this process;
- RSS: the resident size of a fresh process after feeding minus before (``/proc/self/statm``), so the
  allocator's overhead and fragmentation count too. "Before" is taken once the process has built one
  parser of the format (its marker tables and lazy imports are shared by every later parser: a one-time
  cost, printed apart as ``startup``) and has handed the memory it freed back to the system
  (glibc ``malloc_trim``), so that neither the one-time cost nor memory the benchmark itself freed (the
  argument text being built) is counted per character.

The argument is code-like text, JSON-escaped as a model writes it (quotes, backslashes, ``\\n``). The
``repair`` rows feed raw newlines inside the JSON string instead (a repair, RAW_CONTROL_CHAR): the
repaired stretches differ from the markup, so they are kept twice; those rows have no goal.
``--quick`` measures 1 MB only, one-character chunks by RSS alone and the repairs with 64-character chunks
(tracemalloc makes each of a million one-character feeds 5-20x slower; about 10 s of CPU); the full run 1, 10 and
50 MB (about 4 minutes of CPU: 50 million one-character feeds).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import importlib.util
import json
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

# The repository's package, unless one is importable already: the installed tree, or the compiled copy that
# bench.py puts first on PYTHONPATH (make compile): the compiled core lays calls out in the same strings.
if importlib.util.find_spec("streamparse") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import streamparse  # noqa: E402
from streamparse import StreamParser  # noqa: E402

GOAL = 1.1
HEADS = {
    "hermes": '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "',
    "qwen3_coder": "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\n",
    "mistral": '[TOOL_CALLS]write_file[ARGS]{"path": "a.txt", "content": "',
}
LINE = '    if value < limit and name != "x":  # check {braces} and \\ here\n'


def body(fmt: str, chars: int, repair: bool = False) -> str:
    text = (LINE * (chars // len(LINE) + 1))[:chars]
    if fmt == "qwen3_coder":
        return text.replace("</", "< /")  # a tag value: text as it is (no closing tag inside)
    escaped = json.dumps(text)[1:-1]
    return escaped.replace("\\n", "\n") if repair else escaped


def feed(fmt: str, text: str, chunk: int) -> StreamParser:
    parser = StreamParser(formats=[fmt])
    parser.feed(HEADS[fmt])
    f = parser.feed
    for i in range(0, len(text), chunk):
        f(text[i : i + chunk])
    return parser


def traced(fmt: str, chars: int, chunk: int, repair: bool) -> tuple[float, float, float]:
    """(held bytes/char, peak bytes/char, seconds), with tracemalloc."""
    text = body(fmt, chars, repair)
    parser = StreamParser(formats=[fmt])
    parser.feed(HEADS[fmt])
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    start = time.process_time()
    f = parser.feed
    for i in range(0, len(text), chunk):
        f(text[i : i + chunk])
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (held - base) / len(text), (peak - base) / len(text), time.process_time() - start


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def _trim_heap() -> None:
    """Hand freed heap memory back to the system (glibc only; elsewhere RSS keeps it, a conservative bias)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def rss_child(fmt: str, chars: int, chunk: int) -> None:
    """In a fresh process: print the one-time startup (MB) and the RSS growth per argument character
    while the call is held."""
    cold = rss_bytes()
    first = feed(fmt, body(fmt, 100), chunk)  # the first parser: tables compiled, lazy imports done
    first.close()
    del first
    _trim_heap()
    startup = rss_bytes() - cold
    text = body(fmt, chars)
    _trim_heap()
    before = rss_bytes()
    parser = feed(fmt, text, chunk)
    grown = rss_bytes() - before
    print(startup / 1e6, grown / len(text))
    del parser


def rss(fmt: str, chars: int, chunk: int) -> tuple[float, float]:
    """(startup MB, bytes per argument character) measured in a fresh process."""
    cmd = [sys.executable, __file__, "--rss-child", f"{fmt},{chars},{chunk}"]
    startup, per_char = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()[-2:]
    return float(startup), float(per_char)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 MB only, fewer traced runs (about 10 s of CPU)")
    ap.add_argument("--rss-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rss_child:
        fmt, chars, chunk = args.rss_child.split(",")
        rss_child(fmt, int(chars), int(chunk))
        return 0
    mb = 1_000_000
    sizes = [mb] if args.quick else [mb, 10 * mb, 50 * mb]
    print(
        f"benchmarks/call_memory.py{' --quick' if args.quick else ''}: "
        f"takes about {'10 s' if args.quick else '4 min'} of CPU; "
        f"{'compiled core (mypyc)' if streamparse.COMPILED else 'pure Python'}; "
        f"bytes held per argument character (goal <= {GOAL})"
    )
    misses = 0
    print(f"   {'format':12} {'size':>6} {'chunk':>5}  {'traced held':>11} {'peak':>6} {'RSS':>6}  goal  (startup MB)")
    for fmt in HEADS:
        for size in sizes:
            for chunk in (1, 64):
                # tracemalloc slows each feed: one-character chunks are traced at 1 MB, and not in --quick
                traceable = size <= 10 * mb and (chunk > 1 or (size <= mb and not args.quick))
                held, peak, _ = traced(fmt, size, chunk, False) if traceable else (float("nan"),) * 3
                startup, grown = rss(fmt, size, chunk)
                worst = max(grown, held) if traceable else grown
                ok = worst <= GOAL
                misses += not ok
                traced_cols = f"{held:>11.3f} {peak:>6.3f}" if traceable else f"{'-':>11} {'-':>6}"
                print(
                    f"   {fmt:12} {size // mb:>4}MB {chunk:>5}  {traced_cols} {grown:>6.3f}  "
                    f"goal <= {GOAL}: {'ok' if ok else 'MISSED'}  ({startup:.1f})",
                    flush=True,
                )
    for fmt in ("hermes", "mistral"):
        for chunk in (64,) if args.quick else (1, 64):
            held, peak, _ = traced(fmt, mb, chunk, True)
            print(f"   {fmt:12} {'repair':>6} {chunk:>5}  {held:>11.2f} {peak:>6.2f} {'-':>6}  (no goal: raw newlines)")
    return 1 if misses else 0


if __name__ == "__main__":
    raise SystemExit(main())
