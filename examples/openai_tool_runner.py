"""Early dispatch over the openai SDK: each tool runs the moment its call is complete, while the
model's stream goes on (``ToolRunner``), then the results go back as ``role: "tool"`` messages.

The server is a local stand-in (``FakeOpenAIServer`` on 127.0.0.1) that writes two hermes calls as text.
"""

import asyncio

import openai

from streamparse import TextDelta, ToolCallEnd
from streamparse.dispatch import ToolResult, ToolRunner
from streamparse.providers import aopenai_sse_events
from streamparse.testing import FakeOpenAIServer


async def get_weather(city: str) -> str:  # async tools are awaited on the loop
    return f"{city}: 18 C, light rain"


def lookup_order(order_id: str) -> dict[str, str]:  # sync tools run in a worker thread
    return {"order_id": order_id, "status": "shipped"}


TOOLS = [get_weather, lookup_order]  # plain functions work as tool definitions: their signatures are the schema
REPLY = [
    "Looking both up.\n",
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n',
    '<tool_call>{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}</tool_call>',
]


async def main(base_url: str) -> None:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="unused")
    stream = await client.chat.completions.create(
        model="Qwen/Qwen3-8B", messages=[{"role": "user", "content": "Weather and my order?"}], stream=True
    )
    runner = ToolRunner(TOOLS, timeout=10.0)
    async with runner.run(aopenai_sse_events(stream, formats=["hermes"], tools=TOOLS)) as run:
        async for item in run:  # events and tool results, in the order they happen
            if isinstance(item, TextDelta):
                print("text:", repr(item.text))
            elif isinstance(item, ToolCallEnd):
                print("dispatched:", item.call.name, item.call.arguments)
            elif isinstance(item, ToolResult):
                print("result:", item.call.name, "->", item.content())
    for result in run.results:  # in call order, ready for the next request
        print("message:", result.to_message())


with FakeOpenAIServer(REPLY) as server:
    asyncio.run(main(server.url))
