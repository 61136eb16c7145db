"""Parse the openai SDK's stream from a server that writes tool calls as text.

The server is a local stand-in (``streamparse.testing.FakeOpenAIServer`` on 127.0.0.1) replying the way
Qwen3 behind llama.cpp without ``--jinja`` does: the call is ``<tool_call>`` JSON inside ``content``.
Point ``base_url`` at your own server and drop the ``with`` line to run it for real.
"""

import openai

from streamparse import StreamParser, TextDelta, ToolCallEnd, ToolCallRejected
from streamparse.providers import openai_sse_events
from streamparse.testing import FakeOpenAIServer

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
REPLY = ["Let me check.\n<tool_call>\n", '{"name": "get_weather", "arguments": ', '{"city": "Paris"}}\n</tool_call>']

with FakeOpenAIServer(REPLY) as server:
    client = openai.OpenAI(base_url=server.url, api_key="unused")
    stream = client.chat.completions.create(
        model="Qwen/Qwen3-8B",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=TOOLS,
        stream=True,
    )
    parser = StreamParser.for_model("Qwen/Qwen3-8B", tools=TOOLS)  # hermes <tool_call>, validated
    for event in openai_sse_events(stream, parser=parser):  # SDK chunks in, streamparse events out
        if isinstance(event, TextDelta):
            print("text:", repr(event.text))
        elif isinstance(event, ToolCallEnd):  # complete and valid: safe to run now
            print("call:", event.call.name, event.call.arguments)
        elif isinstance(event, ToolCallRejected):  # never run
            print("rejected:", event.reason, event.detail)
    print("finish_reason:", parser.finish_reason)
