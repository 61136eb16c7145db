"""``streamparse demo``: replay a recorded model stream through the parser, with early tool dispatch.

The recordings (``streamparse/recordings/*.json``) are real-looking outputs of several model families,
already cut into token-sized chunks (special tokens whole, other text in 1-6 character pieces), so the
demo needs no network and replays identically every time. Each accepted call is dispatched to a small
fake tool the moment its ``ToolCallEnd`` arrives (:class:`~streamparse.dispatch.ToolRunner`), while the
rest of the stream is still being replayed.

Two renderings: a live ``rich`` view for terminals, and a plain line-oriented log for pipes and CI.
"""

from __future__ import annotations

import json
import random
import re
import sys
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import IO, Any

import anyio

from .dispatch import ToolResult, ToolRunner
from .events import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
)
from .parser import StreamParser

__all__ = [
    "DEMO_TOOLS",
    "Recording",
    "DemoState",
    "find_recording",
    "load_recordings",
    "make_recording",
    "run_demo",
    "tokenish_chunks",
]

# Seconds per chunk at --speed 1 (about 40-50 tokens/s, a typical local server) and per tool call.
CHUNK_DELAY = 0.022
TOOL_LATENCY = 0.35

# --------------------------------------------------------------------------------------------------
# The fake tools: OpenAI-style definitions (the parser validates against them) and deterministic bodies.


def _fn(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


_S: dict[str, Any] = {"type": "string"}
DEMO_TOOLS: list[dict[str, Any]] = [
    _fn(
        "get_weather",
        "Forecast for a city.",
        {"city": _S, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        ["city"],
    ),
    _fn("write_file", "Write a text file in the workspace.", {"path": _S, "content": _S}, ["path", "content"]),
    _fn("run_tests", "Run a test file.", {"path": _S, "verbose": {"type": "boolean"}}, ["path"]),
    _fn("lookup_order", "Fetch an order record.", {"order_id": _S}, ["order_id"]),
    _fn(
        "track_shipment",
        "Carrier status of an order's shipment.",
        {"order_id": _S, "include_events": {"type": "boolean"}},
        ["order_id"],
    ),
    _fn(
        "convert_currency",
        "Convert an amount at today's rate.",
        {"amount": {"type": "number"}, "from_currency": _S, "to_currency": _S},
        ["amount", "from_currency", "to_currency"],
    ),
    _fn("search_docs", "Search the internal docs.", {"query": _S, "limit": {"type": "integer"}}, ["query"]),
    _fn(
        "create_event",
        "Put an event on the calendar.",
        {"title": _S, "start": _S, "duration_minutes": {"type": "integer"}},
        ["title", "start"],
    ),
]

_RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 168.4, "CHF": 0.96}


def _get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
    seed = sum(map(ord, city))
    temp_c = 12 + seed % 15
    temp = temp_c if unit == "celsius" else round(temp_c * 9 / 5 + 32)
    sky = ["sunny", "partly cloudy", "light rain", "overcast"][seed % 4]
    return {"city": city, "temperature": temp, "unit": unit, "sky": sky, "rain_chance": (seed * 7) % 90}


def _write_file(path: str, content: str) -> dict[str, Any]:
    # A fake: the demo never touches the disk.
    return {"path": path, "bytes_written": len(content.encode()), "lines": content.count("\n") + 1}


def _run_tests(path: str, verbose: bool = False) -> dict[str, Any]:
    return {"path": path, "passed": 7, "failed": 0, "duration_s": 0.42, "verbose": verbose}


def _lookup_order(order_id: str) -> dict[str, Any]:
    return {"order_id": order_id, "status": "shipped", "carrier": "DHL", "placed": "2025-06-02"}


def _track_shipment(order_id: str, include_events: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"order_id": order_id, "status": "in transit", "eta": "2025-06-11"}
    if include_events:
        out["events"] = ["06-03 picked up, Leipzig", "06-05 customs cleared", "06-09 at local depot"]
    return out


def _convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
    rate = _RATES.get(to_currency.upper(), 1.0) / _RATES.get(from_currency.upper(), 1.0)
    return {
        "amount": amount,
        "from": from_currency,
        "to": to_currency,
        "rate": round(rate, 4),
        "result": round(amount * rate, 2),
    }


def _search_docs(query: str, limit: int = 5) -> dict[str, Any]:
    titles = [f"{query.title()}: overview", f"How-to: {query}", f"FAQ: {query}", f"Runbook: {query}"]
    return {"query": query, "hits": titles[: max(0, min(limit, len(titles)))]}


def _create_event(title: str, start: str, duration_minutes: int = 30) -> dict[str, Any]:
    event_id = "evt_" + format(zlib.crc32(f"{title}|{start}".encode()) % 10**6, "06d")
    return {
        "event_id": event_id,
        "title": title,
        "start": start,
        "duration_minutes": duration_minutes,
        "status": "confirmed",
    }


_FAKE_TOOLS: dict[str, Callable[..., Any]] = {
    "get_weather": _get_weather,
    "write_file": _write_file,
    "run_tests": _run_tests,
    "lookup_order": _lookup_order,
    "track_shipment": _track_shipment,
    "convert_currency": _convert_currency,
    "search_docs": _search_docs,
    "create_event": _create_event,
}


def make_tools(latency: float) -> dict[str, Callable[..., Any]]:
    """The fake tools as async callables that take ``latency`` seconds (0: answer at once)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        async def tool(**kwargs: Any) -> Any:
            if latency > 0:
                await anyio.sleep(latency)
            return fn(**kwargs)

        tool.__name__ = fn.__name__
        return tool

    return {name: wrap(fn) for name, fn in _FAKE_TOOLS.items()}


# --------------------------------------------------------------------------------------------------
# Recordings


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
        from .cli import build_parser

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
    return resources.files("streamparse").joinpath("recordings")


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


# --------------------------------------------------------------------------------------------------
# State shared by both renderings


@dataclass
class CallView:
    index: int
    name: str
    id: str
    arguments: str = ""  # the JSON text streamed so far
    status: str = "streaming"  # streaming -> running -> done | failed; or rejected
    parsed: dict[str, Any] | None = None
    result: str | None = None
    reason: str | None = None


@dataclass
class DemoState:
    """The view model: blocks in order of appearance (text, reasoning, calls), plus counters."""

    blocks: list[tuple[str, Any]] = field(default_factory=list)  # ("text"|"reasoning", [str]) | ("call", CallView)
    calls: dict[int, CallView] = field(default_factory=dict)
    finish_reason: str | None = None

    def _append_text(self, kind: str, text: str) -> None:
        if self.blocks and self.blocks[-1][0] == kind:
            self.blocks[-1][1].append(text)
        else:
            self.blocks.append((kind, [text]))

    def apply(self, item: Event | ToolResult) -> None:
        if isinstance(item, TextDelta):
            self._append_text("text", item.text)
        elif isinstance(item, ReasoningDelta):
            self._append_text("reasoning", item.text)
        elif isinstance(item, ToolCallStart):
            view = CallView(item.index, item.name, item.id)
            self.calls[item.index] = view
            self.blocks.append(("call", view))
        elif isinstance(item, ToolCallDelta):
            if item.index in self.calls:
                self.calls[item.index].arguments += item.arguments
        elif isinstance(item, ToolCallEnd):
            view = self.calls.get(item.index) or CallView(item.index, item.call.name, item.call.id)
            if item.index not in self.calls:
                self.calls[item.index] = view
                self.blocks.append(("call", view))
            view.arguments, view.parsed, view.status = item.call.arguments_json, item.call.arguments, "running"
        elif isinstance(item, ToolCallRejected):
            view = self.calls.get(item.index) or CallView(item.index, item.name or "?", "")
            if item.index not in self.calls:
                self.calls[item.index] = view
                self.blocks.append(("call", view))
            view.status, view.reason = "rejected", f"{item.reason}{': ' + item.detail if item.detail else ''}"
        elif isinstance(item, ToolResult):
            done = self.calls.get(item.index)
            if done is not None:
                done.status = "done" if item.ok else "failed"
                done.result = item.content()

    @property
    def accepted(self) -> list[CallView]:
        return [c for c in self.calls.values() if c.parsed is not None]


# --------------------------------------------------------------------------------------------------
# Renderings


class PlainPrinter:
    """Line-oriented log: whole lines of text/reasoning with a prefix, one line per call event."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._kind: str | None = None
        self._line = ""
        self._names: dict[int, str] = {}

    def _flush(self) -> None:
        if self._line.strip():
            self._emit(f"{self._kind:<9} | {self._line}")
        self._line = ""

    def _emit(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def _text(self, kind: str, text: str) -> None:
        if kind != self._kind:
            self._flush()
            self._kind = kind
        *done, self._line = (self._line + text).split("\n")
        for line in done:
            if line.strip():
                self._emit(f"{kind:<9} | {line}")

    def _event_line(self, line: str) -> None:
        self._flush()
        self._kind = None
        self._emit(line)

    def apply(self, item: Event | ToolResult) -> None:
        if isinstance(item, TextDelta):
            self._text("text", item.text)
        elif isinstance(item, ReasoningDelta):
            self._text("reasoning", item.text)
        elif isinstance(item, ToolCallStart):
            self._names[item.index] = item.name
            self._event_line(f"call #{item.index} {item.name}: started (id {item.id})")
        elif isinstance(item, ToolCallEnd):
            c = item.call
            self._event_line(f"call #{item.index} {c.name}: accepted ({c.format}) {c.arguments_json}")
        elif isinstance(item, ToolCallRejected):
            what = item.name or self._names.get(item.index, "?")
            self._event_line(f"call #{item.index} {what}: rejected ({item.reason}) {item.detail}".rstrip())
        elif isinstance(item, ToolResult):
            state = "result" if item.ok else "error"
            self._event_line(f"call #{item.index} {item.call.name}: {state} {item.content()}")

    def close(self) -> None:
        self._flush()


def _render_live(rec: Recording, state: DemoState, done: bool) -> Any:
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = [
        Text.assemble(
            ("streamparse demo ", "bold"),
            (f"· {rec.name} · {rec.model} · formats: {_formats_label(rec)}", "cyan"),
        )
    ]
    styles = {"streaming": "yellow", "running": "blue", "done": "green", "failed": "red", "rejected": "red"}
    for kind, payload in state.blocks:
        if kind == "reasoning":
            parts.append(Text.assemble(("thinking › ", "bold dim"), ("".join(payload).strip("\n"), "dim italic")))
        elif kind == "text":
            text = "".join(payload).strip("\n")
            if text:
                parts.append(Text(text))
        else:
            view: CallView = payload
            body: Any
            if view.parsed is not None:
                grid = Table.grid(padding=(0, 1))
                grid.add_column(style="bold")
                grid.add_column()
                for key, value in view.parsed.items():
                    grid.add_row(key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
                body = grid
            else:
                body = Text(_readable(view.arguments) or "…", style="yellow")
            rows: list[Any] = [body]
            if view.status == "running":
                rows.append(Text("⏳ running…", style="blue"))
            elif view.result is not None:
                rows.append(Text(("→ " if view.status == "done" else "✗ ") + view.result, style=styles[view.status]))
            if view.reason:
                rows.append(Text(f"✗ rejected: {view.reason}", style="red"))
            parts.append(
                Panel(
                    Group(*rows),
                    title=f"[bold]{view.name}[/] [dim]{view.id}[/]",
                    subtitle=view.status,
                    border_style=styles.get(view.status, "white"),
                    title_align="left",
                    subtitle_align="right",
                )
            )
    if done:
        parts.append(Text(f"finish_reason: {state.finish_reason}", style="bold magenta"))
    return Group(*parts)


_ESCAPES = re.compile(r'\\(["\\/nt])')
_UNESCAPE = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t"}


def _readable(partial_json: str) -> str:
    """Arguments JSON still streaming, for the eye: common string escapes shown as what they stand for,
    so a code argument fills in as lines of code rather than one long escaped line."""
    return _ESCAPES.sub(lambda m: _UNESCAPE[m.group(1)], partial_json)


def _formats_label(rec: Recording) -> str:
    return rec.formats if isinstance(rec.formats, str) else ", ".join(rec.formats)


# --------------------------------------------------------------------------------------------------
# The replay


async def _replay(rec: Recording, speed: float, on_item: Callable[[Event | ToolResult], None]) -> str:
    parser = rec.parser(tools=DEMO_TOOLS)
    scale = 0.0 if speed <= 0 else 1.0 / speed
    runner = ToolRunner(make_tools(TOOL_LATENCY * scale), max_concurrency=4, timeout=10.0)
    rng = random.Random(1)  # jitter, deterministic like the chunks

    async def source() -> AsyncIterator[str]:
        for chunk in rec.chunks:
            if scale:
                await anyio.sleep(CHUNK_DELAY * scale * rng.uniform(0.4, 1.6))
            yield chunk

    from .aio import aparse

    async with runner.run(aparse(source(), parser=parser)) as run:
        async for item in run:
            on_item(item)
    return parser.finish_reason


def run_demo(
    rec: Recording,
    *,
    speed: float = 1.0,
    plain: bool | None = None,
    out: IO[str] | None = None,
) -> DemoState:
    """Replay ``rec``; ``plain=None`` picks the live view only when ``out`` is a terminal."""
    out = out if out is not None else sys.stdout
    if plain is None:
        plain = not (hasattr(out, "isatty") and out.isatty())
    state = DemoState()
    if plain:
        printer = PlainPrinter(out)
        printer._emit(f"streamparse demo · {rec.name} · {rec.model} · formats: {_formats_label(rec)}")

        def on_plain(item: Event | ToolResult) -> None:
            state.apply(item)
            printer.apply(item)

        state.finish_reason = anyio.run(_replay, rec, speed, on_plain)
        printer.close()
        n_ok = len(state.accepted)
        n_rej = sum(1 for c in state.calls.values() if c.status == "rejected")
        printer._emit(f"finish_reason: {state.finish_reason} · {n_ok} call(s) accepted, {n_rej} rejected")
        return state

    from rich.console import Console
    from rich.live import Live

    console = Console(file=out)
    with Live(
        _render_live(rec, state, False), console=console, refresh_per_second=24, vertical_overflow="visible"
    ) as live:

        def on_live(item: Event | ToolResult) -> None:
            state.apply(item)
            live.update(_render_live(rec, state, False))

        state.finish_reason = anyio.run(_replay, rec, speed, on_live)
        live.update(_render_live(rec, state, True), refresh=True)
    return state
