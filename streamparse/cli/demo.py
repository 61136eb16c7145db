"""``streamparse demo``: replay a recorded model stream through the parser, with early tool dispatch.

The recordings (:mod:`streamparse.recordings`) are real-looking outputs of several model families,
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
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import IO, Any

import anyio

from ..dispatch import ToolResult, ToolRunner
from ..events import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
)
from ..recordings import (
    DEMO_TOOLS,
    Recording,
    find_recording,
    load_recordings,
    make_recording,
    make_tools,
    tokenish_chunks,
)

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

    from ..aio import aparse

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
