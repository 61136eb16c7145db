"""Bundled model streams: real-looking outputs of several model families, already cut into token-sized
chunks (special tokens whole, other text in 1-6 character pieces), so the demo, the playground and the
tests replay them identically with no network. ``DEMO_TOOLS`` (:mod:`.tools`) are the tools they call."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..parser import StreamParser, build_parser
from .tools import DEMO_TOOLS, make_tools

__all__ = [
    "DEMO_TOOLS",
    "Recording",
    "find_recording",
    "load_recordings",
    "make_recording",
    "make_tools",
    "tokenish_chunks",
]


@dataclass(frozen=True)
class Recording:
    name: str
    model: str
    formats: list[str] | str
    start_in_reasoning: bool
    chunks: list[str]
    title: str = ""

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    def parser(self, **options: Any) -> StreamParser:
        """The model's preset (``StreamParser.for_model``) with the recording's formats and priming."""
        formats = None if self.formats == "auto" else self.formats
        return build_parser(self.model, formats, start_in_reasoning=self.start_in_reasoning, **options)

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "title": self.title,
            "formats": self.formats,
            "start_in_reasoning": self.start_in_reasoning,
            "chunks": self.chunks,
        }


# Special tokens arrive as one token each from a real server; keep them whole. Everything else is cut
# into 1-6 character pieces, preferring to end a piece after a space (as BPE tokens mostly do).
_SPECIAL = re.compile(
    r"<\|[^|<>\s]{1,40}\|>|<｜[^｜<>]{1,40}｜>|</?(?:think|tool_call|arg_key|arg_value|seed:think)>|\[e~\["
)


def tokenish_chunks(text: str, seed: int = 0) -> list[str]:
    """Cut ``text`` into token-sized chunks, deterministically for a given ``seed``."""
    rng = random.Random(seed)
    chunks: list[str] = []
    pos = 0
    for m in _SPECIAL.finditer(text):
        chunks.extend(_cut(text[pos : m.start()], rng))
        chunks.append(m.group())
        pos = m.end()
    chunks.extend(_cut(text[pos:], rng))
    return chunks


def _cut(text: str, rng: random.Random) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(text):
        n = rng.randint(1, 6)
        piece = text[i : i + n]
        space = piece.find(" ", 1)
        if space > 0 and rng.random() < 0.7:
            piece = piece[:space]  # the space starts the next token, as in "▁word" vocabularies
        out.append(piece)
        i += len(piece)
    return out


def make_recording(
    name: str,
    text: str,
    *,
    model: str,
    formats: list[str] | str,
    start_in_reasoning: bool = False,
    title: str = "",
    seed: int = 0,
) -> Recording:
    """Build a recording from a full model output (how the bundled files were made)."""
    return Recording(name, model, formats, start_in_reasoning, tokenish_chunks(text, seed), title)


def _recordings_dir() -> Any:
    return resources.files("streamparse.recordings")


def load_recordings() -> list[Recording]:
    """Every bundled recording, sorted by name."""
    out: list[Recording] = []
    for entry in sorted(_recordings_dir().iterdir(), key=lambda e: e.name.rsplit(".", 1)[0]):
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        out.append(
            Recording(
                name=entry.name[: -len(".json")],
                model=data["model"],
                formats=data.get("formats", "auto"),
                start_in_reasoning=bool(data.get("start_in_reasoning", False)),
                chunks=list(data["chunks"]),
                title=data.get("title", ""),
            )
        )
    return out


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def find_recording(model: str | None = None, name: str | None = None) -> Recording:
    """Pick a recording by file name, or by model family (``qwen3-coder``, ``kimi``, a full model id).

    Raises ``LookupError`` listing the choices when nothing matches."""
    recs = load_recordings()
    if not recs:
        raise LookupError("no recordings are bundled")
    if name is not None:
        for rec in recs:
            if rec.name == name:
                return rec
        raise LookupError(f"no recording {name!r}; choose one of: {', '.join(r.name for r in recs)}")
    if model is None:
        return recs[[r.name for r in recs].index("qwen3")] if any(r.name == "qwen3" for r in recs) else recs[0]
    want = _norm(model.rsplit("/", 1)[-1])
    # Most specific first: an exact name or model id, then the longest recording name the request contains
    # ("qwen3-coder-30b" is Qwen3-Coder, not Qwen3), then recordings whose model id contains the request.
    for rec in recs:
        if want in (_norm(rec.name), _norm(rec.model.rsplit("/", 1)[-1])):
            return rec
    contained = [r for r in recs if _norm(r.name) in want]
    if contained:
        return max(contained, key=lambda r: len(_norm(r.name)))
    for rec in recs:
        if want in _norm(rec.model):
            return rec
    raise LookupError(f"no recording for model {model!r}; choose one of: {', '.join(r.name for r in recs)}")
