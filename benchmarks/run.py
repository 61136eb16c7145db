"""``make bench``: streamparse against a pass-through floor and the re-parse approach peers use.

Streams are chunked like real tokens (1-6 characters, seeded). For each workload and length (1k, 16k,
64k tokens = chunks) it prints µs per chunk and MB/s for:
- streamparse (``StreamParser.feed`` over every chunk, then ``close``);
- the floor: a loop that wraps each chunk in a ``TextDelta``;
- re-parse: what peers' streaming parsers do on every chunk: look for the start tag in the accumulated
  text, and while a call is open, parse the accumulated call text again (partial-json-parser for JSON
  bodies; the parameter regexes for qwen3_coder) and diff the arguments against what was sent. Its cost
  per chunk grows with the text, so at 16k/64k it is measured on 300 chunk positions sampled uniformly over
  the stream (the mean of a uniform sample estimates the mean cost per chunk) rather than run in full.
Times are the best of several runs (``--repeat``). Ratios are what matter; absolute numbers vary by machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamparse import StreamParser  # noqa: E402
from streamparse.events import TextDelta  # noqa: E402

WORDS = [
    "the",
    "model",
    "reads",
    "the",
    "file",
    "and",
    "then",
    "calls",
    "a",
    "tool",
    "to",
    "check",
    "the",
    "order",
    "status",
    "before",
    "it",
    "answers",
    "with",
    "a",
    "short",
    "summary",
    "of",
    "what",
    "it",
    "found",
    "in",
    "the",
    "repository",
    "while",
    "streaming",
    "tokens",
    "to",
    "the",
    "user",
]
CODE_LINE = "    if value < limit and name != \"x\":  # check {braces} and 'quotes' \\ here\n"


def prose(rng: random.Random, n_chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < n_chars:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
        if rng.random() < 0.05:
            out.append(".\n")
    return " ".join(out)[:n_chars]


def hermes_stream(rng: random.Random, n_chars: int) -> str:
    parts, size = [], 0
    while size < n_chars:
        content = CODE_LINE * rng.randint(20, 60)
        call = {"name": "write_file", "arguments": {"path": f"src/m{size}.py", "content": content}}
        part = prose(rng, 200) + "\n<tool_call>\n" + json.dumps(call) + "\n</tool_call>\n"
        parts.append(part)
        size += len(part)
    return "".join(parts)[:n_chars]


def qwen_stream(rng: random.Random, n_chars: int) -> str:
    parts, size = [], 0
    while size < n_chars:
        content = CODE_LINE * rng.randint(20, 60)
        part = (
            prose(rng, 200)
            + f"\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/m{size}.py\n</parameter>\n"
            + f"<parameter=content>\n{content}</parameter>\n</function>\n</tool_call>\n"
        )
        parts.append(part)
        size += len(part)
    return "".join(parts)[:n_chars]


def chunk(text: str, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 6)
        out.append(text[i : i + k])
        i += k
    return out


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


# -- the three contenders ----------------------------------------------------------------------------


def run_streamparse(chunks: list[str], formats: object) -> None:
    p = StreamParser(formats=formats)
    feed = p.feed
    for c in chunks:
        feed(c)
    p.close()


def run_floor(chunks: list[str]) -> None:
    out = []
    for c in chunks:
        out.append(TextDelta(c))


_QWEN_PARAM = re.compile(r"<parameter=([^>]+)>\n?(.*?)(?:\n?</parameter>|$)", re.S)


class Reparse:
    """The peers' approach, one step per chunk over the accumulated text."""

    def __init__(self, kind: str) -> None:
        import partial_json_parser

        self.loads = partial_json_parser.loads
        self.kind = kind
        self.start, self.end = "<tool_call>", "</tool_call>"

    def step(self, text: str) -> object:
        """What a peer does when a chunk arrives and the accumulated output is ``text``."""
        if self.start not in text:
            return text[-6:]  # plain content delta
        begin = text.rfind(self.start)
        close = text.find(self.end, begin)
        body = text[begin + len(self.start) : close if close >= 0 else len(text)]
        if self.kind == "hermes":
            try:
                obj = self.loads(body.strip() or "{}")
            except Exception:
                return None
            return json.dumps(obj.get("arguments", {})) if isinstance(obj, dict) else None
        params = {k: v for k, v in _QWEN_PARAM.findall(body)}
        return json.dumps(params)


def run_reparse_full(chunks: list[str], kind: str) -> None:
    r = Reparse(kind)
    acc = ""
    for c in chunks:
        acc += c
        r.step(acc)


def reparse_sampled(chunks: list[str], kind: str, samples: int = 300) -> float:
    """Mean seconds per chunk of the re-parse step, over uniformly sampled stream positions."""
    r = Reparse(kind)
    ends = []
    pos = 0
    for c in chunks:
        pos += len(c)
        ends.append(pos)
    text = "".join(chunks)
    rng = random.Random(3)
    picks = sorted(rng.randrange(len(chunks)) for _ in range(samples))
    total = 0.0
    for i in picks:
        acc = text[: ends[i]]
        t = time.perf_counter()
        r.step(acc)
        total += time.perf_counter() - t
    return total / samples


# -- report --------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sizes", default="1000,16000,64000", help="stream lengths in tokens (chunks)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = random.Random(11)
    workloads = {
        "plain text": (prose, ["hermes"], None),
        "hermes tool-heavy": (hermes_stream, ["hermes"], "hermes"),
        "qwen3_coder tool-heavy": (qwen_stream, ["qwen3_coder"], "qwen3_coder"),
    }
    print(f"python {sys.version.split()[0]}; chunks of 1-6 chars; best of {args.repeat}")
    header = (
        f"{'workload':24} {'tokens':>7} {'sp µs/chunk':>11} {'sp MB/s':>8} {'floor µs':>9} "
        f"{'reparse µs':>10} {'sp/floor':>8} {'reparse/sp':>10}"
    )
    print(header)
    print("-" * len(header))
    per_chunk: dict[tuple[str, int], float] = {}
    for label, (make, formats, kind) in workloads.items():
        for n in sizes:
            chunks = chunk(make(rng, int(n * 3.5)))
            n_chunks = len(chunks)
            mb = sum(len(c.encode()) for c in chunks) / 1e6
            t_sp = best(lambda c=chunks, f=formats: run_streamparse(c, f), args.repeat)
            t_floor = best(lambda c=chunks: run_floor(c), args.repeat)
            if kind is None:
                t_re = best(lambda c=chunks: run_reparse_full(c, "hermes"), 1 if n > 1000 else args.repeat)
            elif n <= 1000:
                t_re = best(lambda c=chunks, k=kind: run_reparse_full(c, k), args.repeat)
            else:
                t_re = reparse_sampled(chunks, kind) * n_chunks
            us = t_sp / n_chunks * 1e6
            per_chunk[(label, n)] = us
            print(
                f"{label:24} {n:>7} {us:>11.2f} {mb / t_sp:>8.1f} {t_floor / n_chunks * 1e6:>9.2f} "
                f"{t_re / n_chunks * 1e6:>10.1f} {t_sp / t_floor:>8.2f} {t_re / t_sp:>10.1f}"
            )
    print()
    lo, hi = min(sizes), max(sizes)
    for label in workloads:
        ratio = per_chunk[(label, hi)] / per_chunk[(label, lo)]
        print(f"{label:24} streamparse µs/chunk at {hi // 1000}k / at {lo // 1000}k tokens: {ratio:.2f}")
    print()
    # auto vs one format on the same stream: the cost per chunk must not grow with the number of formats.
    for label, (make, formats, _) in workloads.items():
        chunks = chunk(make(random.Random(5), 16000 * 3))
        t_one = best(lambda c=chunks, f=formats: run_streamparse(c, f), args.repeat)
        t_auto = best(lambda c=chunks: run_streamparse(c, "auto"), args.repeat)
        from streamparse import formats as catalog

        n_auto = len(catalog.resolve("auto"))
        print(f"{label:24} auto ({n_auto} formats) / {formats[0]} alone: {t_auto / t_one:.2f}")


if __name__ == "__main__":
    main()
