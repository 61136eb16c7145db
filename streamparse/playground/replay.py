"""One playground replay, without I/O: a request in, a sequence of messages out (``start``, one ``step`` per
piece of input fed, ``done``). The app streams them to the page as server-sent events.

Each step says what the parser did with the input fed so far: the events it released, the OpenAI chunks
the proxy would send for them (:class:`~streamparse.providers.OpenAIChunkWriter`, fail closed as the
proxy is), and what is *held back*: input consumed but not yet accounted for by any released event. The
parser's public API reports events, not input offsets, so :class:`Aligner` places each released piece
(text, reasoning, a finished or rejected call's raw markup) back onto the input, in order; whatever was
skipped over is markup the parser ate, and the tail from the last placed piece to the end of the input
consumed is what is held. Placement looks only a bounded window ahead, so a replay stays linear.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from streamparse.events import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
    event_to_dict,
)
from streamparse.parser import StreamParser, build_parser
from streamparse.providers import SSE_DONE, OpenAIChunkWriter, OpenAISSEReader, ProviderDelta, ProviderError

from .template import TemplateError, check_template, derived_parser

__all__ = [
    "INPUT_KINDS",
    "LIMITS",
    "Aligner",
    "ReplayRequest",
    "RequestError",
    "detect_kind",
    "replay",
]

INPUT_KINDS = ("auto", "text", "openai-sse")
LIMITS: dict[str, int] = {
    "input_chars": 200_000,  # a long reply is ~20k characters; this is ten times that
    "tools_chars": 100_000,
    "chunk_size": 65_536,
    "steps": 2_000,  # more pieces than this are fed several per step (the parser still sees each piece)
    "replay_seconds": 60,  # the pacing delay is shortened so that no replay lasts longer
}
MAX_SPEED = 1000.0  # steps per second; 0 means as fast as possible
ALIGN_WINDOW = 512  # how far past the cursor a released piece may start (markup skipped over)
_MARKUP_END = frozenset(">]|｜\n")


class RequestError(ValueError):
    """The request cannot be replayed; the message says why, for the page to show."""


@dataclass(frozen=True)
class ReplayRequest:
    """What the page sends: the input and every option of the parser and the replay."""

    input: str
    input_kind: str = "auto"
    model: str = ""
    formats: tuple[str, ...] = ()  # empty: the model's preset, or "auto" without a model
    tools: Any = None  # OpenAI-style definitions (a list), or None
    chunk_size: int = 4
    speed: float = 40.0  # steps per second; 0 = no pacing
    start_in_reasoning: bool | None = None  # None: the preset decides
    calls_in_reasoning: str = "ignore"
    chat_template: str = ""  # a pasted chat template or a model folder: the parser derived from it (template.py)

    @classmethod
    def from_json(cls, data: Any) -> ReplayRequest:
        """Validate a decoded JSON body; raise :class:`RequestError` with a readable message."""
        if not isinstance(data, dict):
            raise RequestError("the request body must be a JSON object")
        text = data.get("input", "")
        if not isinstance(text, str):
            raise RequestError("'input' must be a string")
        if len(text) > LIMITS["input_chars"]:
            raise RequestError(f"input is {len(text)} characters; the playground takes at most {LIMITS['input_chars']}")
        kind = data.get("input_kind", "auto") or "auto"
        if kind not in INPUT_KINDS:
            raise RequestError(f"'input_kind' must be one of {', '.join(INPUT_KINDS)}")
        model = data.get("model") or ""
        if not isinstance(model, str) or len(model) > 300:
            raise RequestError("'model' must be a model id (a short string)")
        formats = data.get("formats") or []
        if formats == "auto":
            formats = ["auto"]
        if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
            raise RequestError("'formats' must be a list of format names")
        return cls(
            input=text,
            input_kind=kind,
            model=model.strip(),
            formats=tuple(f for f in formats if f),
            tools=_tools(data.get("tools")),
            chunk_size=_int(data.get("chunk_size", 4), "chunk_size", 1, LIMITS["chunk_size"]),
            speed=_speed(data.get("speed", 40)),
            start_in_reasoning=_tristate(data.get("start_in_reasoning")),
            calls_in_reasoning=_choice(data.get("calls_in_reasoning") or "ignore", ("ignore", "promote")),
            chat_template=_template_field(data.get("chat_template")),
        )


def _template_field(value: Any) -> str:
    try:
        return check_template(value)
    except TemplateError as exc:
        raise RequestError(str(exc)) from None


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise RequestError(f"'{name}' must be a whole number")
    if not lo <= value <= hi:
        raise RequestError(f"'{name}' must be between {lo} and {hi}")
    return int(value)


def _speed(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise RequestError("'speed' must be a number of steps per second (0 = as fast as possible)")
    return min(float(value), MAX_SPEED)


def _tristate(value: Any) -> bool | None:
    if value in (None, "", "auto"):
        return None
    if isinstance(value, bool):
        return value
    raise RequestError("'start_in_reasoning' must be true, false or null (the preset decides)")


def _choice(value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise RequestError(f"expected one of {', '.join(choices)}, not {value!r}")
    return str(value)


def _tools(value: Any) -> Any:
    """Tools arrive as the text of the page's JSON box (or already decoded); blank means none."""
    if value is None or value == "" or value == []:
        return None
    if isinstance(value, str):
        if len(value) > LIMITS["tools_chars"]:
            raise RequestError(f"tools JSON is longer than {LIMITS['tools_chars']} characters")
        if not value.strip():
            return None
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise RequestError(f"tools: invalid JSON ({exc})") from None
    if isinstance(value, dict) and "tools" in value:  # a whole request body works too, as in the CLI
        value = value["tools"]
    if not isinstance(value, list):
        raise RequestError("tools: expected a JSON list of tool definitions (or an object with 'tools')")
    return value or None


def _formats(formats: tuple[str, ...]) -> list[str] | None:
    """Explicit formats win over the model's preset; none (or just "auto") leaves it to the preset."""
    return list(formats) if formats and formats != ("auto",) else None


def detect_kind(text: str) -> str:
    """``"openai-sse"`` when the input looks like a captured SSE stream (its first line is an SSE field)."""
    first = text.lstrip().split("\n", 1)[0]
    return "openai-sse" if first.startswith(("data:", "event:", ": ")) else "text"


# --------------------------------------------------------------------------------------------------
# Placing released events back onto the input


class Aligner:
    """Maps released pieces onto the input text, in order, to tell consumed markup from held input.

    The parser releases input in order, so a piece that fits at the cursor goes there. Otherwise markup
    was skipped: the
    piece goes to the latest position within reach that follows a markup-like character (``>``, ``]``,
    ``|``, newline) or the cursor, so a reasoning ``t`` after ``<think>`` is not mistaken for the ``t``
    inside the tag. ``lost`` counts pieces that could not be placed (the held view is then approximate).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.cursor = 0
        self.lost = 0

    def place(self, piece: str, kind: str, limit: int) -> list[list[Any]]:
        """Place ``piece`` ending at or before ``limit``; return the new spans ``[start, end, kind]``."""
        if not piece:
            return []
        text, cur, n = self.text, self.cursor, len(piece)
        at = -1
        if text.startswith(piece, cur):
            at = cur
        else:
            hi = min(limit, cur + n + ALIGN_WINDOW)
            i = text.rfind(piece, cur, hi)
            first = -1
            while i >= 0:  # latest candidate at a markup boundary, else the earliest one
                if i == cur or text[i - 1] in _MARKUP_END or text[cur:i].isspace():
                    at = i
                    break
                first = i
                i = text.rfind(piece, cur, i + n - 1)
            if at < 0:
                at = first
        if at < 0:
            self.lost += 1
            return []
        spans: list[list[Any]] = []
        if at > cur:
            spans.append([cur, at, "markup"])
        spans.append([at, at + n, kind])
        self.cursor = at + n
        return spans

    def finish(self) -> list[list[Any]]:
        """At the end of the stream nothing is held: what is left was markup the parser dropped."""
        if self.cursor >= len(self.text):
            return []
        span = [self.cursor, len(self.text), "markup"]
        self.cursor = len(self.text)
        return [span]


def _placeable(ev: Event) -> tuple[str, str] | None:
    if isinstance(ev, TextDelta):
        return ev.text, "text"
    if isinstance(ev, ReasoningDelta):
        return ev.text, "reasoning"
    if isinstance(ev, ToolCallEnd):
        return ev.call.raw, "call"
    if isinstance(ev, ToolCallRejected):
        return ev.raw, "rejected"
    return None


def _place_all(aligner: Aligner, events: list[Event], limit: int) -> list[list[Any]]:
    pieces = [p for p in map(_placeable, events) if p is not None]
    spans: list[list[Any]] = []
    # Later pieces of the same step come after this one, so each piece ends before their total length.
    rest = sum(len(p) for p, _ in pieces)
    for piece, kind in pieces:
        rest -= len(piece)
        spans.extend(aligner.place(piece, kind, max(limit - rest, aligner.cursor)))
    return spans


# --------------------------------------------------------------------------------------------------
# The replay


def _pieces(req: ReplayRequest, kind: str) -> tuple[str, list[tuple[str, str]], dict[str, Any]]:
    """The parser's input text, the pieces to feed (``("text"|"reasoning", s)``) and SSE metadata."""
    if kind == "text":
        size = req.chunk_size
        text = req.input
        return text, [("text", text[i : i + size]) for i in range(0, len(text), size)], {}
    reader = OpenAISSEReader()
    try:
        items = reader.feed(req.input) + reader.close()
    except ProviderError as exc:
        raise RequestError(f"the SSE stream carries an error or bad JSON: {exc}") from None
    pieces: list[tuple[str, str]] = [(it.kind, it.text) for it in items if isinstance(it, ProviderDelta) and it.text]
    if not pieces:
        raise RequestError("no content found in the SSE stream (expected OpenAI chat.completion.chunk lines)")
    text = "".join(s for k, s in pieces if k == "text")
    meta: dict[str, Any] = {"model": reader.model, "finish_reason": reader.finish_reason}
    return text, pieces, meta


def _preset(parser: StreamParser) -> dict[str, Any] | None:
    preset = getattr(parser, "preset", None)
    if preset is None:
        return None
    formats = preset.formats if isinstance(preset.formats, str) else list(preset.formats)
    return {
        "family": preset.family,
        "matched": preset.matched,
        "formats": formats,
        "start_in_reasoning": preset.start_in_reasoning,
        "note": preset.note,
    }


def replay(req: ReplayRequest) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``("start", info)``, ``("step", step)`` per group of pieces fed, then ``("done", summary)``.

    Raises :class:`RequestError` before the first message if the options or the input are unusable."""
    kind = detect_kind(req.input) if req.input_kind == "auto" else req.input_kind
    text, pieces, sse_meta = _pieces(req, kind)
    options: dict[str, Any] = {"tools": req.tools, "calls_in_reasoning": req.calls_in_reasoning}
    if req.start_in_reasoning is not None:
        options["start_in_reasoning"] = req.start_in_reasoning
    derived: dict[str, Any] | None = None
    try:
        if req.chat_template:
            parser, derived = derived_parser(req.chat_template, options)
        else:
            parser = build_parser(req.model or None, _formats(req.formats), **options)
    except (ValueError, TypeError) as exc:  # unknown format name, bad tool definitions, underivable template
        raise RequestError(str(exc)) from None
    writer = OpenAIChunkWriter(req.model or sse_meta.get("model") or "model", id="chatcmpl-playground", created=0)
    aligner = Aligner(text)
    group = max(1, math.ceil(len(pieces) / LIMITS["steps"]))
    steps = math.ceil(len(pieces) / group)
    yield (
        "start",
        {
            "input": text,
            "input_kind": kind,
            "pieces": len(pieces),
            "steps": steps,
            "per_step": group,
            "formats": list(parser.formats),
            "preset": _preset(parser),
            "start_in_reasoning": req.start_in_reasoning,
            "sse": sse_meta or None,
            # Every chunk of a replay shares these fields: steps carry only each chunk's choice (a third of
            # the bytes), and the page puts the chunk together again when it shows one.
            "chunk_envelope": {k: v for k, v in writer.chunk({}).items() if k != "choices"},
            "derived": derived,
        },
    )
    consumed = 0
    open_calls: dict[int, str] = {}
    for n in range(steps):
        fed = pieces[n * group : (n + 1) * group]
        start = consumed
        events: list[Event] = []
        for piece_kind, piece in fed:
            if piece_kind == "reasoning":  # reasoning the server split off itself: not parser input
                events.append(ReasoningDelta(piece))
                continue
            events.extend(parser.feed(piece))
            consumed += len(piece)
        spans = _place_all(aligner, events, consumed)
        _track_calls(open_calls, events)
        yield "step", _step(n, start, consumed, events, spans, aligner, open_calls, writer)
    events = parser.close()
    spans = _place_all(aligner, events, consumed) + aligner.finish()
    _track_calls(open_calls, events)
    final = _step(steps, consumed, consumed, events, spans, aligner, open_calls, writer, closing=True)
    final["openai"] += [chunk["choices"][0] for chunk in writer.finish(sse_meta.get("finish_reason"))]
    final["sse"] = SSE_DONE.decode()
    yield "step", final
    yield "done", _summary(parser, aligner)


def _track_calls(open_calls: dict[int, str], events: list[Event]) -> None:
    for ev in events:
        if isinstance(ev, ToolCallStart):
            open_calls[ev.index] = ev.name
        elif isinstance(ev, ToolCallEnd | ToolCallRejected):
            open_calls.pop(ev.index, None)


def _step(
    n: int,
    start: int,
    end: int,
    events: list[Event],
    spans: list[list[Any]],
    aligner: Aligner,
    open_calls: dict[int, str],
    writer: OpenAIChunkWriter,
    *,
    closing: bool = False,
) -> dict[str, Any]:
    return {
        "n": n,
        "closing": closing,
        "fed": [start, end],
        "events": [event_to_dict(ev) for ev in events],
        "spans": spans,
        "held": [min(aligner.cursor, end), end],
        "open_call": min(open_calls) if open_calls else None,
        "openai": [chunk["choices"][0] for chunk in writer.write(events)],  # see "chunk_envelope"
    }


def _summary(parser: StreamParser, aligner: Aligner) -> dict[str, Any]:
    return {
        "finish_reason": parser.finish_reason,
        "metadata": parser.metadata,
        "stats": parser.stats.model_dump(),
        "unplaced": aligner.lost,
    }
