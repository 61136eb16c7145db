"""The agent loop: send each turn back, run the valid calls, answer the rejected ones with what to fix.

The model's first call has an argument of the wrong type; its rejection goes back as a ``tool`` message
naming the argument and the type expected, the model calls again, the tool runs, the model answers.
``FakeOpenAIServer`` plays the model (one reply per request): use your server's URL instead.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from streamparse import StreamParser
from streamparse.providers import openai_sse_events
from streamparse.testing import FakeOpenAIServer

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]


def get_weather(city: str, days: int = 1) -> str:
    return f"{city}: 18 C, light rain for {days} day(s)"


def run_agent(client: openai.OpenAI, messages: list[dict[str, Any]], max_turns: int = 5) -> str:
    for _ in range(max_turns):
        stream = client.chat.completions.create(model="Qwen/Qwen3-8B", messages=messages, tools=TOOLS, stream=True)
        parser = StreamParser(formats=["hermes"], tools=TOOLS, record=True)  # record=True: parser.result()
        for event in openai_sse_events(stream, parser=parser):
            print("event:", type(event).__name__)  # a UI would draw text and call cards here
        result = parser.result()
        messages.append(result.to_openai_message())  # the assistant turn, rejected calls included
        if not result.tool_calls and not result.rejected:
            return result.text
        for call in result.tool_calls:  # valid: run it
            messages.append({"role": "tool", "tool_call_id": call.id, "content": get_weather(**call.arguments)})
        for rejected in result.rejected:  # invalid: tell the model what to fix
            reply = rejected.to_tool_message(tools=TOOLS)
            print("rejected:", reply["content"])
            messages.append(reply)
    raise RuntimeError("no answer after max_turns")


REPLIES = [
    ['<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "a few"}}</tool_call>'],
    ['<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>'],
    ["Light rain in Paris for the next three days, around 18 C."],
]

if __name__ == "__main__":
    with FakeOpenAIServer(REPLIES[0], then=REPLIES[1:]) as server:
        client = openai.OpenAI(base_url=server.url, api_key="unused")
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris for three days?"}]
        print("answer:", run_agent(client, messages))
        print("roles:", [m["role"] for m in messages])
        print("last request:", json.dumps(server.requests[-1]["messages"][-1]))
