"""``make bench-vllm``: CPU per delta of the vLLM adapter vs vLLM's own Hermes parser.

The stream is Hermes output (prose, then a call whose argument is a long code string, as when a model
writes a file), tokenized with the offline test tokenizer (tests/integrations/engine_tokenizer.py) and
delivered one token per delta, the way vLLM's serving loop calls a tool parser:

- ``streamparse_hermes`` (engine-based: only the new text each delta, ``finish_streaming()`` at the end),
  run over the whole stream;
- vLLM's ``Hermes2ProToolParser`` (legacy: the accumulated text each delta, which it re-parses). Its cost
  per delta grows with the text, so on long streams it is measured at ``--samples`` delta positions
  spread uniformly over the stream: a fresh parser is brought up to the position by one untimed call on
  the text before it (it only records what it has sent), then the delta itself is timed. The mean of a
  uniform sample estimates the mean cost per delta.

CPU time is ``time.process_time``; the numbers vary by machine, the ratio is what matters.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integrations"))

from engine_tokenizer import marker_tokenizer  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser  # noqa: E402

from streamparse.integrations.vllm import TOOL_PARSERS  # noqa: E402

WORDS = [
    "the",
    "model",
    "writes",
    "a",
    "file",
    "with",
    "some",
    "code",
    "in",
    "it",
    "while",
    "the",
    "client",
    "waits",
    "for",
    "each",
    "delta",
]


def stream_text(tokens: int, tokenizer: Any) -> tuple[str, list[int]]:
    """Hermes output of about ``tokens`` tokens: a short preface, then one call with a long argument."""
    rng = random.Random(tokens)
    lines: list[str] = []
    ids: list[int] = []
    while len(ids) < tokens:
        lines.append("    " + " ".join(rng.choice(WORDS) for _ in range(10)) + f" = {rng.randint(0, 999)}")
        if len(lines) % 50 == 0:
            ids = tokenizer.encode(_render(lines))
    ids = tokenizer.encode(_render(lines))[:tokens]
    return tokenizer.decode(ids), ids


def _render(lines: list[str]) -> str:
    call = {"name": "write_file", "arguments": {"path": "app.py", "content": "\n".join(lines)}}
    return "I will write the file now.\n<tool_call>\n" + json.dumps(call) + "\n</tool_call>"


def deltas(ids: list[int], tokenizer: Any) -> list[str]:
    return [tokenizer.decode([i]) for i in ids]


def adapter_per_delta(pieces: list[str], ids: list[int], tokenizer: Any, request: Any) -> float:
    parser = TOOL_PARSERS["streamparse_hermes"](tokenizer)
    call = parser.extract_tool_calls_streaming
    cpu = time.process_time
    start = cpu()
    for text, token in zip(pieces, ids, strict=True):
        call("", text, text, (), (token,), (token,), request)
    parser.finish_streaming()
    return (cpu() - start) / len(pieces)


def vllm_per_delta(pieces: list[str], ids: list[int], tokenizer: Any, request: Any, samples: int) -> float:
    n = len(pieces)
    prefix = [0]
    for piece in pieces:
        prefix.append(prefix[-1] + len(piece))
    text = "".join(pieces)
    positions = range(n) if samples >= n else sorted(random.Random(n).sample(range(1, n), samples))
    cpu = time.process_time
    total = 0.0
    full = samples >= n
    parser = Hermes2ProToolParser(tokenizer)
    for k in positions:
        if not full:
            parser = Hermes2ProToolParser(tokenizer)
            before = text[: prefix[k]]
            parser.extract_tool_calls_streaming("", before, before, (), ids[:k], ids[:k], request)
        previous, current = text[: prefix[k]], text[: prefix[k + 1]]
        start = cpu()
        parser.extract_tool_calls_streaming(previous, current, pieces[k], (), (), (ids[k],), request)
        total += cpu() - start
    return total / len(positions)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,16000,64000", help="stream lengths in tokens")
    ap.add_argument("--samples", type=int, default=300, help="timed positions for vLLM's parser past this length")
    args = ap.parse_args()
    tokenizer = marker_tokenizer()
    request = ChatCompletionRequest(model="bench", messages=[])
    print(f"{'tokens':>7} {'chars':>8} | {'streamparse µs/delta':>21} | {'vLLM hermes µs/delta':>21} | {'ratio':>7}")
    for size in (int(s) for s in args.sizes.split(",")):
        text, ids = stream_text(size, tokenizer)
        pieces = deltas(ids, tokenizer)
        ours = min(adapter_per_delta(pieces, ids, tokenizer, request) for _ in range(3))
        theirs = vllm_per_delta(pieces, ids, tokenizer, request, args.samples if size > 1000 else size)
        how = "" if size <= 1000 else f" (sampled {args.samples})"
        print(
            f"{len(ids):>7} {len(text):>8} | {ours * 1e6:>21.1f} | {theirs * 1e6:>21.1f} | {theirs / ours:>6.1f}x{how}"
        )


if __name__ == "__main__":
    main()
