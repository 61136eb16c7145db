"""``make bench``: streamparse against a scan-only floor, the re-parse approach peers use, and its goals.

Streams are chunked like real tokens (1-6 characters, seeded). Every time is CPU time of this process
(``time.process_time``, the best of ``--repeat`` runs taken in turns), so a busy machine slows both sides of
a ratio alike; ratios are what the goals are about (issue 19), absolute numbers vary by machine.

1. The floor: on the Hermes workload (1k, 16k and 64k tokens) and on one 64k-token call, streamparse against
   the least a streaming parser must do per chunk: one ``re`` search for the same markers (the opener
   outside a call, the closer inside; a marker prefix at the end is held) and one event per piece, built
   with the same private constructor. Goal: <= 2.0x. Re-parse: what peers' streaming parsers do on every
   chunk (look for the start tag in the accumulated text; while a call is open, parse the accumulated call
   text again with partial-json-parser or the parameter regexes, and diff). Its cost per chunk grows with
   the text, so past 1k tokens it is measured on 300 uniformly sampled chunk positions.
2. Flatness: µs per chunk at the most tokens / at the fewest (goal <= 1.2).
3. Small calls: 370 short calls with declared tools (schema validation included): µs per call, goal <= 40.
4. Formats: every format's own example in the same prose, per chunk, against Hermes (goal <= 1.2x), and
   ``formats="auto"`` against the one format on Hermes, Qwen3-Coder and plain text (goal <= 1.1x).

``--quick`` (about 10 s of CPU) runs fewer tokens and repeats and skips re-parse; the full run about a minute.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The repository's package, unless one is importable already: the installed tree, or the compiled copy that
# bench.py puts first on PYTHONPATH (make compile).
if importlib.util.find_spec("streamparse") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from streamparse import StreamParser  # noqa: E402
from streamparse import formats as catalog  # noqa: E402
from streamparse.core.constructors import text_delta, tool_call_delta  # noqa: E402
from streamparse.core.scanner import marker_set  # noqa: E402
from streamparse.events import Event  # noqa: E402
from streamparse.tools import ToolSet  # noqa: E402

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


def one_call(n_chars: int) -> str:
    """One Hermes call whose ``content`` argument is code (JSON escapes: quotes, backslashes, newlines)."""
    content = (CODE_LINE * (n_chars // len(CODE_LINE) + 1))[:n_chars]
    call = {"name": "write_file", "arguments": {"path": "src/big.py", "content": content}}
    return "<tool_call>\n" + json.dumps(call) + "\n</tool_call>\n"


def chunk(text: str, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 6)
        out.append(text[i : i + k])
        i += k
    return out


def best(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """CPU seconds of each function, the best of ``repeat`` runs taken in turns (noise hits all alike)."""
    times = {k: float("inf") for k in fns}
    for _ in range(repeat):
        for key, fn in fns.items():
            settle()
            t = time.process_time()
            fn()
            times[key] = min(times[key], time.process_time() - t)
    return times


def verdict(value: float, goal: float) -> str:
    return f"goal <= {goal:g}: {'ok' if value <= goal else 'MISSED'}"


# -- the contenders ----------------------------------------------------------------------------------


def run_streamparse(chunks: list[str], formats: object, tools: object = None) -> None:
    p = StreamParser(formats=formats, tools=tools)  # type: ignore[arg-type]
    feed = p.feed
    for c in chunks:
        feed(c)
    p.close()


class ScanFloor:
    """The least a streaming parser does per chunk: one search for the scope's markers, one event a piece."""

    __slots__ = ("searches", "inside", "held")

    def __init__(self, opener: str, closer: str) -> None:
        self.searches = (marker_set(frozenset({opener})).search, marker_set(frozenset({closer})).search)
        self.inside = 0
        self.held = ""

    def feed(self, chunk: str) -> list[Event]:
        held = self.held
        buf = held + chunk if held else chunk
        out: list[Event] = []
        pos = 0
        while True:
            found = self.searches[self.inside](buf, pos)
            if found is None:
                break
            s, e, tok = found
            if s > pos:
                out.append(tool_call_delta(0, buf[pos:s]) if self.inside else text_delta(buf[pos:s]))
            if tok is None:  # a marker prefix at the end: held
                self.held = buf[s:]
                return out
            self.inside ^= 1
            pos = e
        self.held = ""
        if pos < len(buf):
            piece = buf[pos:] if pos else buf
            out.append(tool_call_delta(0, piece) if self.inside else text_delta(piece))
        return out


def run_floor(chunks: list[str]) -> None:
    feed = ScanFloor("<tool_call>", "</tool_call>").feed
    for c in chunks:
        feed(c)


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
        t = time.process_time()
        r.step(acc)
        total += time.process_time() - t
    return total / samples


# -- workloads of sections 3 and 4 ---------------------------------------------------------------------

SMALL_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["C", "F"]}},
                "required": ["city"],
            },
        },
    },
    {
        "name": "lookup_order",
        "input_schema": {
            "type": "object",
            "properties": {"order_id": {"type": "string", "pattern": "^[A-Z]-[0-9]{4}$"}},
            "required": ["order_id"],
            "additionalProperties": False,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_alarm",
            "parameters": {
                "type": "object",
                "properties": {"minutes": {"type": "integer", "minimum": 1}, "label": {"type": "string"}},
                "required": ["minutes"],
            },
        },
    },
]


def small_calls(rng: random.Random, n: int) -> str:
    calls = [
        lambda: {"name": "get_weather", "arguments": {"city": rng.choice(["Paris", "Lisbon", "Oslo"]), "unit": "C"}},
        lambda: {"name": "lookup_order", "arguments": {"order_id": f"A-{rng.randint(1000, 9999)}"}},
        lambda: {"name": "set_alarm", "arguments": {"minutes": rng.randint(1, 90), "label": "tea"}},
    ]
    return "".join(f"<tool_call>\n{json.dumps(rng.choice(calls)())}\n</tool_call>\n" for _ in range(n))


def example_stream(example: str, n_chars: int) -> str:
    """A format's own example call between sentences of prose, repeated to ``n_chars``."""
    rng = random.Random(5)
    parts, size = [], 0
    while size < n_chars:
        part = prose(rng, 200) + "\n" + example + "\n"
        parts.append(part)
        size += len(part)
    return "".join(parts)


# -- report --------------------------------------------------------------------------------------------


def floor_section(sizes: list[int], call_tokens: int, repeat: int, reparse: bool) -> None:
    rng = random.Random(11)
    print(
        "1. streamparse vs the scan-only floor (µs per chunk, CPU time; "
        f"{'re-parse: every chunk at 1k tokens, 300 sampled past' if reparse else 're-parse skipped'})"
    )
    header = f"   {'workload':24} {'tokens':>7} {'sp µs':>7} {'sp MB/s':>8} {'floor µs':>8} {'sp/floor':>8}  goal" + (
        f"  {'reparse µs':>10} {'reparse/sp':>10}" if reparse else ""
    )
    print(header)
    per_chunk: dict[tuple[str, int], float] = {}
    cases: list[tuple[str, int, str, str | None]] = [
        ("hermes tool-heavy", n, hermes_stream(rng, int(n * 3.5)), "hermes") for n in sizes
    ]
    cases.append(("one call (hermes)", call_tokens, one_call(int(call_tokens * 3.5)), "hermes"))
    cases += [
        ("qwen3_coder tool-heavy", n, qwen_stream(rng, int(n * 3.5)), "qwen3_coder") for n in (sizes[0], sizes[-1])
    ]
    cases += [("plain text", n, prose(rng, int(n * 3.5)), None) for n in (sizes[0], sizes[-1])]
    for label, n, text, kind in cases:
        chunks = chunk(text)
        n_chunks = len(chunks)
        mb = len(text.encode()) / 1e6
        fmt = [kind or "hermes"]
        # A short stream is timed as many responses in a row (as many tokens per timing as the longest), so
        # that no timing lasts a millisecond, where a timer tick or a cache miss would decide the ratio.
        loops = max(1, max(sizes) // n)
        run_streamparse(chunks[:300], fmt)  # the format's tables are compiled on first use: not timed
        fns = {
            "sp": lambda c=chunks, f=fmt, k=loops: [run_streamparse(c, f) for _ in range(k)],
            "floor": lambda c=chunks, k=loops: [run_floor(c) for _ in range(k)],
        }
        t = {key: v / loops for key, v in best(fns, repeat).items()}
        us = t["sp"] / n_chunks * 1e6
        per_chunk[(label, n)] = us
        ratio = t["sp"] / t["floor"]
        goal = verdict(ratio, 2.0) if kind == "hermes" else "(no goal: other markers)"
        floor_us = t["floor"] / n_chunks * 1e6
        line = f"   {label:24} {n:>7} {us:>7.3f} {mb / t['sp']:>8.1f} {floor_us:>8.3f} {ratio:>8.2f}  {goal}"
        if reparse and kind is not None:
            if n <= 1000:
                t_re = best({"re": lambda c=chunks, k=kind: run_reparse_full(c, k)}, repeat)["re"]
            else:
                t_re = reparse_sampled(chunks, kind) * n_chunks
            line += f"  {t_re / n_chunks * 1e6:>10.1f} {t_re / t['sp']:>10.1f}"
        print(line, flush=True)
    print()
    print("2. flatness: µs per chunk at the most tokens / at the fewest (CPU time)")
    lo, hi = min(sizes), max(sizes)
    for label in ("hermes tool-heavy", "qwen3_coder tool-heavy", "plain text"):
        ratio = per_chunk[(label, hi)] / per_chunk[(label, lo)]
        print(f"   {label:24} {hi // 1000}k / {lo // 1000}k tokens: {ratio:.2f}  {verdict(ratio, 1.2)}")
    print()


def small_calls_section(n_calls: int, repeat: int) -> None:
    tools = ToolSet(SMALL_TOOLS)
    chunks = chunk(small_calls(random.Random(3), n_calls))
    parser = StreamParser(formats=["hermes"], tools=tools)
    ends = [e for c in chunks for e in parser.feed(c)] + parser.close()
    accepted = sum(e.type == "tool_call_end" for e in ends)
    t = best({"sp": lambda: run_streamparse(chunks, ["hermes"], tools)}, repeat)["sp"]
    us = t / n_calls * 1e6
    print(f"3. {n_calls} small calls with tools ({accepted} accepted, validation included, {len(chunks)} chunks)")
    print(f"   µs per call: {us:.1f}  {verdict(us, 40)}")
    print()


def settle() -> None:
    """Collect the last run's garbage, then freeze what is left (the workloads): later collections, ours
    and the parser's, skip it, instead of walking every chunk of every workload (~20 ms a collection)."""
    gc.collect()
    gc.freeze()


def cpu(fn: Callable[[], object]) -> float:
    settle()
    t = time.process_time()
    fn()
    return time.process_time() - t


def paired(cases: dict[str, tuple[Callable[[], object], Callable[[], object]]], rounds: int) -> dict[str, list[float]]:
    """Per case, its contender's CPU time over its reference's, the reference run just before it, once a
    round (rounds outermost): load that shifts between the two runs of a pair is rare, and the median of the
    rounds drops it, where the best of separate runs compares moments minutes apart."""
    ratios: dict[str, list[float]] = {k: [] for k in cases}
    for ref, fn in cases.values():  # a first run compiles the format's tables: not timed
        ref()
        fn()
    for _ in range(rounds):
        for key, (ref, fn) in cases.items():
            r = cpu(ref)
            ratios[key].append(cpu(fn) / r)
    return ratios


def spread(values: list[float]) -> str:
    """The median and the range of paired ratios, as printed: ``1.02 (0.97-1.08)``."""
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def formats_section(n_chars: int, rounds: int) -> None:
    print(
        f"4. per-format cost: each format's example in prose ({n_chars // 1000}k chars each), µs per chunk vs "
        f"hermes run just before it; median (range) of {rounds} rounds, CPU time"
    )
    streams = {name: chunk(example_stream(catalog.get(name).example, n_chars)) for name in catalog.names()}
    ref = streams["hermes"]
    cases = {
        name: ((lambda: run_streamparse(ref, ["hermes"])), (lambda c=c, f=name: run_streamparse(c, [f])))
        for name, c in streams.items()
    }
    raw = paired(cases, rounds)
    per_chunk = {name: [r * len(ref) / len(streams[name]) for r in rs] for name, rs in raw.items()}
    med = {name: statistics.median(rs) for name, rs in per_chunk.items()}
    for name in sorted(med, key=lambda k: -med[k])[:5]:
        print(f"   {name:24} {spread(per_chunk[name])}x hermes")
    print(f"   {'hermes (itself: noise)':24} {spread(per_chunk['hermes'])}x hermes")
    worst = max(med, key=lambda k: med[k])
    print(f"   worst of {len(med)} formats: {worst} {med[worst]:.2f}x hermes  {verdict(med[worst], 1.2)}")
    rng = random.Random(5)
    n_auto = len(catalog.resolve("auto"))
    auto_cases: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {}
    ones = {}
    for label, text, one in (
        ("hermes tool-heavy", hermes_stream(rng, n_chars), "hermes"),
        ("qwen3_coder tool-heavy", qwen_stream(rng, n_chars), "qwen3_coder"),
        ("plain text", prose(rng, n_chars), "hermes"),
    ):
        c = chunk(text)
        ones[label] = one
        auto_cases[label] = ((lambda c=c, f=one: run_streamparse(c, [f])), (lambda c=c: run_streamparse(c, "auto")))
    for label, rs in paired(auto_cases, rounds).items():
        ratio = statistics.median(rs)
        print(f"   {label:24} auto ({n_auto} formats) / {ones[label]} alone: {spread(rs)}  {verdict(ratio, 1.1)}")
    print()


def build() -> str:
    """Which streamparse is measured: the pure-Python tree, or the core compiled with mypyc (make compile)."""
    import streamparse

    return "compiled core (mypyc)" if streamparse.COMPILED else "pure Python"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer tokens and repeats: under 2 minutes")
    ap.add_argument("--repeat", type=int, default=None, help="runs per contender, the best kept (sections 1-3)")
    ap.add_argument("--rounds", type=int, default=None, help="paired rounds of section 4, the median kept")
    ap.add_argument("--sizes", default=None, help="stream lengths in tokens (chunks), comma-separated")
    args = ap.parse_args()
    quick = args.quick
    repeat = args.repeat or (5 if quick else 7)
    rounds = args.rounds or (5 if quick else 9)
    sizes = [int(s) for s in (args.sizes or ("1000,16000" if quick else "1000,16000,64000")).split(",")]
    print(
        f"benchmarks/run.py{' --quick' if quick else ''}: takes about {'10 s' if quick else '1 min'} of CPU; "
        f"python {sys.version.split()[0]}, {build()}; chunks of 1-6 chars; best of {repeat} (formats: median of "
        f"{rounds} paired rounds), CPU time"
    )
    print()
    floor_section(sizes, max(sizes), repeat, reparse=not quick)
    small_calls_section(370, repeat * 2)
    formats_section(12_000 if quick else 40_000, rounds)


if __name__ == "__main__":
    main()
