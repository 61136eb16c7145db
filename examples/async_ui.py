"""Render a streaming reply as it arrives: reasoning, visible text and a tool call forming live.

A UI consumes ``aparse`` with ``async for``: each event is drawn the moment the parser is sure of it.
The model is simulated by an async generator (Qwen3 style: ``<think>`` then text then a hermes call).
Run: ``python examples/async_ui.py [asyncio|trio]`` (trio: ``pip install 'streamparse-llm[trio]'``).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import AsyncIterator

import anyio

from streamparse import (
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
    aparse,
)

MODEL_OUTPUT = (
    "<think>The user wants the weather in Paris. I should call the tool.</think>"
    "Sure, checking the forecast for Paris now.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>'
)


async def model_stream() -> AsyncIterator[str]:
    for i in range(0, len(MODEL_OUTPUT), 5):
        await anyio.sleep(0.005)
        yield MODEL_OUTPUT[i : i + 5]


def write(s: str) -> None:
    sys.stdout.write(s)
    sys.stdout.flush()


async def main() -> None:
    mode = None  # what is being drawn: "reasoning", "text" or "call"
    async for ev in aparse(model_stream(), formats=["hermes"]):
        if isinstance(ev, ReasoningDelta):
            if mode != "reasoning":
                write("thinking: ")
                mode = "reasoning"
            write(ev.text)
        elif isinstance(ev, TextDelta):
            if mode != "text":
                write("\nassistant: ")
                mode = "text"
            write(ev.text)
        elif isinstance(ev, ToolCallStart):
            write(f"\ncalling {ev.name} ")
            mode = "call"
        elif isinstance(ev, ToolCallDelta):
            write(ev.arguments)  # the arguments appear as they are generated
        elif isinstance(ev, ToolCallEnd):
            write(f"\ncall ready: {ev.call.name}({ev.call.arguments}) id={ev.call.id}\n")
            mode = None
        elif isinstance(ev, ToolCallRejected):
            write(f"\ncall rejected: {ev.reason}\n")
            mode = None
    write("stream finished\n")


if __name__ == "__main__":
    backend = sys.argv[1] if len(sys.argv) > 1 else "asyncio"
    if backend == "trio" and importlib.util.find_spec("trio") is None:
        sys.exit("the trio backend needs trio: pip install 'streamparse-llm[trio]'")
    anyio.run(main, backend=backend)
