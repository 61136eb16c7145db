"""``make bench-memory``: memory a buffered call holds per argument character, at several chunkings.

A call to ``write_file`` whose ``content`` argument is ``--chars`` characters long is fed after its
opening markup, ``--chunk`` characters at a time, and not closed: what the parser holds then (traced with
``tracemalloc``, the chunk strings themselves are not kept by this script) is the cost of buffering a
call. Goal: at most 3 bytes per argument character at any chunking (the text itself is 2: the arguments
JSON and the raw markup). ``peak`` includes transient copies made while feeding.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamparse import StreamParser  # noqa: E402

HEADS = {
    "hermes": '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "',
    "qwen3_coder": "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\n",
    "mistral": '[TOOL_CALLS]write_file[ARGS]{"path": "a.txt", "content": "',
}


def measure(fmt: str, chars: int, chunk: int) -> tuple[float, float, float]:
    """(held bytes/char, peak bytes/char, seconds)."""
    body = ("lorem ipsum dolor sit amet, consectetur\n" * (chars // 40 + 1))[:chars]
    parser = StreamParser(formats=[fmt])
    parser.feed(HEADS[fmt])
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    for i in range(0, chars, chunk):
        parser.feed(body[i : i + chunk])
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del body
    return (held - base) / chars, (peak - base) / chars, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chars", type=int, default=200_000)
    ap.add_argument("--chunks", default="1,2,3,7,64,4096")
    args = ap.parse_args()
    print(f"buffered call memory, {args.chars} argument characters (goal: <= 3 bytes/char held)")
    for fmt in HEADS:
        for chunk in (int(c) for c in args.chunks.split(",")):
            held, peak, secs = measure(fmt, args.chars, chunk)
            print(f"  {fmt:<12} chunk {chunk:>5}: {held:5.2f} B/char held, peak {peak:5.2f}   ({secs:.1f} s traced)")


if __name__ == "__main__":
    main()
