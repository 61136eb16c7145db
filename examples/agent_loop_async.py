"""The agent loop of ``agent_loop.py``, async: ``AsyncOpenAI`` and ``aopenai_sse_events``.

Each turn goes back with ``ParseResult.to_openai_message()``; valid calls run; rejected calls are answered
with ``ToolCallRejected.to_tool_message()``, which tells the model what to fix.
"""

from __future__ import annotations

import asyncio
from typing import Any

import openai
from agent_loop import REPLIES, TOOLS, get_weather  # the tool, its definition, the scripted model

from streamparse import StreamParser, TextDelta
from streamparse.providers import aopenai_sse_events
from streamparse.testing import FakeOpenAIServer


async def run_agent(client: openai.AsyncOpenAI, messages: list[dict[str, Any]], max_turns: int = 5) -> str:
    for _ in range(max_turns):
        stream = await client.chat.completions.create(
            model="Qwen/Qwen3-8B", messages=messages, tools=TOOLS, stream=True
        )
        parser = StreamParser(formats=["hermes"], tools=TOOLS, record=True)
        async for event in aopenai_sse_events(stream, parser=parser):
            if isinstance(event, TextDelta):
                print("text:", repr(event.text))
        result = parser.result()
        messages.append(result.to_openai_message())
        if not result.tool_calls and not result.rejected:
            return result.text
        for call in result.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**call.arguments)})
        for rejected in result.rejected:
            messages.append(rejected.to_tool_message(tools=TOOLS))
            print("told the model:", messages[-1]["content"])
    raise RuntimeError("no answer after max_turns")


async def main(url: str) -> None:
    client = openai.AsyncOpenAI(base_url=url, api_key="unused")
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris for three days?"}]
    print("answer:", await run_agent(client, messages))
    print("turns:", len(messages))


if __name__ == "__main__":
    with FakeOpenAIServer(REPLIES[0], then=REPLIES[1:]) as server:
        asyncio.run(main(server.url))
