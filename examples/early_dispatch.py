"""Early tool dispatch: each tool starts the moment its call is complete, while the model keeps talking.

The "model" is simulated by an async generator that yields small chunks with short sleeps, as a real
streaming response would. Run: ``python examples/early_dispatch.py [asyncio|trio]``
(trio: ``pip install 'streamparse-llm[trio]'``).
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import AsyncIterator

import anyio

from streamparse import TextDelta, ToolCallEnd, ToolCallRejected, aparse
from streamparse.dispatch import ToolResult, ToolRunner

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
        },
    },
]

MODEL_OUTPUT = (
    "Let me look both up.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}\n</tool_call>\n'
    "While those run: Paris in spring is usually mild, and orders placed before noon ship the same day, "
    "so your package may already be on its way. I will put both answers together as soon as the tools "
    "report back, with the forecast first and the delivery status second."
)

START = time.monotonic()


def stamp(msg: str) -> None:
    print(f"[{time.monotonic() - START:5.2f}s] {msg}", flush=True)


async def get_weather(city: str) -> str:  # an async tool: awaited on the event loop
    await anyio.sleep(0.1)
    return f"{city}: 18 C, light rain"


def lookup_order(order_id: str) -> dict[str, str]:  # a sync tool: run in a worker thread
    time.sleep(0.1)
    return {"order_id": order_id, "status": "shipped"}


MODEL_STOPPED: list[float] = []


async def model_stream() -> AsyncIterator[str]:
    for i in range(0, len(MODEL_OUTPUT), 8):
        await anyio.sleep(0.01)
        yield MODEL_OUTPUT[i : i + 8]
    MODEL_STOPPED.append(time.monotonic())
    stamp("model: generation stopped")


async def main() -> None:
    runner = ToolRunner([get_weather, lookup_order], max_concurrency=4, timeout=5.0)
    events = aparse(model_stream(), formats=["hermes"], tools=TOOLS)
    first_result_at: float | None = None
    text: list[str] = []
    async with runner.run(events) as run:
        async for item in run:
            if isinstance(item, ToolCallEnd):
                stamp(f"model: call #{item.index} {item.call.name}{item.call.arguments} complete -> dispatched")
            elif isinstance(item, ToolCallRejected):
                stamp(f"model: candidate #{item.index} rejected ({item.reason}); not run")
            elif isinstance(item, ToolResult):
                first_result_at = first_result_at or time.monotonic()
                stamp(f"tool: {item.call.name} finished in {item.elapsed:.2f}s -> {item.content()}")
            elif isinstance(item, TextDelta):
                text.append(item.text)
    # Iteration ends once the model has stopped *and* every dispatched tool has finished.
    stamp("all done")
    early = first_result_at is not None and first_result_at < MODEL_STOPPED[0]
    print(f"tool finished before the model stopped: {'yes' if early else 'no'}")
    print("visible text:", " ".join("".join(text).split()))
    for r in run.results:
        print("result in call order:", r.to_message())


if __name__ == "__main__":
    backend = sys.argv[1] if len(sys.argv) > 1 else "asyncio"
    if backend == "trio" and importlib.util.find_spec("trio") is None:
        sys.exit("the trio backend needs trio: pip install 'streamparse-llm[trio]'")
    anyio.run(main, backend=backend)
