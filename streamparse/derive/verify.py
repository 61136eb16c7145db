"""The derived declaration checked against the template's own renders, before anyone relies on it.

Each probe's output (cut at the end-of-turn marker, as a server stops there) is parsed with the derived
format, whole and, on request, one character at a time; the calls, arguments, visible text and reasoning
must equal what the probe gave the template. A probe that does not round-trip is named in the result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..config import Config
from ..core.engine import Engine
from ..events import Event, ParseResult
from .probes import CHECK_TOOLS, PROBES, Probe

__all__ = ["Check", "checker", "cut_turn", "sample_output", "check_probe", "parse_with"]


@dataclass(frozen=True, slots=True)
class Check:
    """One probe's round trip: ``ok``, or what differed."""

    probe: str
    ok: bool
    detail: str = ""
    skipped: bool = False
    """The template does not render this turn's content or reasoning: nothing to compare."""


def checker(name: str, *, primed: bool) -> Config:
    """The configuration the checks parse with: the registered format ``name`` and the probe tools."""
    return Config([name], tools=CHECK_TOOLS, start_in_reasoning=primed)


def parse_with(config: Config, text: str, chunks: Iterable[str] | None = None) -> ParseResult:
    """Parse ``text`` (or its ``chunks``) with ``config``."""
    engine = Engine(config)
    events: list[Event] = []
    for piece in chunks if chunks is not None else (text,):
        events += engine.feed(piece)
    events += engine.close()
    return ParseResult.from_events(events)


def cut_turn(gen: str, end_of_turn: str, names: Iterable[str] = ()) -> str:
    """The render up to the end of the model's turn: the first end-of-turn marker after the last call name
    (GigaChat 3 writes a call as a message after the one that ends with the same separator)."""
    if not end_of_turn or end_of_turn not in gen:
        return gen
    after = max((gen.rfind(n) + len(n) for n in names if n in gen), default=0)
    at = gen.find(end_of_turn, after)
    return gen[: at if at >= 0 else gen.index(end_of_turn)]


def sample_output(gen: str, end_of_turn: str, primed: bool, close: str | None, names: Iterable[str] = ()) -> str:
    """What a model writes for a probe: the render up to the end of the turn; a primed model closes its
    (empty) reasoning itself where the template leaves the closer out."""
    gen = cut_turn(gen, end_of_turn, names)
    if primed and close and close not in gen:
        gen = close + "\n\n" + gen
    return gen


def _expected(probe: Probe) -> dict[str, Any]:
    return {
        "calls": [{"name": n, "arguments": a} for n, a in probe.calls],
        "text": probe.content,
        "reasoning": probe.reasoning,
    }


def _got(result: ParseResult) -> dict[str, Any]:
    return {
        "calls": [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls],
        "text": result.text.strip(),
        "reasoning": result.reasoning.strip(),
    }


def check_probe(config: Config, probe: Probe, sample: str, *, per_char: bool = False) -> Check:
    """Parse one probe's sample; compare with what the probe gave the template."""
    want = _expected(probe)
    for part in ("content", "reasoning"):
        value = getattr(probe, part)
        if value and value not in sample:
            return Check(probe.id, True, f"the template does not render the {part} of this turn", skipped=True)
    if any(name not in sample for name, _ in probe.calls):
        return Check(probe.id, True, "the template does not render every call of this turn", skipped=True)
    for chunks in ([sample], list(sample)) if per_char else ([sample],):
        got = _got(parse_with(config, sample, chunks))
        if _content_as_reasoning(want, got):
            return Check(probe.id, True, "the template renders this turn's content as reasoning", skipped=True)
        for key in ("calls", "text", "reasoning"):
            if got[key] != want[key]:
                how = "one character at a time" if len(chunks) > 1 else "whole"
                return Check(probe.id, False, f"{key} ({how}): got {got[key]!r}, expected {want[key]!r}")
    return Check(probe.id, True)


def _content_as_reasoning(want: dict[str, Any], got: dict[str, Any]) -> bool:
    """gpt-oss writes the text of a turn with calls in its reasoning channel: read back as reasoning,
    as its own built-in family reads it (the text turn, checked on its own, still has to be text)."""
    return bool(want["text"] and not want["reasoning"] and not got["text"] and got["reasoning"] == want["text"]) and (
        got["calls"] == want["calls"]
    )


PROBE_BY_ID = {p.id: p for p in PROBES}
