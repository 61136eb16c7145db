"""Put the proxy in front of a server that writes tool calls as text: clients get structured ``tool_calls``.

In production this is one command (``pip install 'streamparse-llm[cli]'``)::

    streamparse serve --upstream http://127.0.0.1:8080/v1 --port 8001

Here both servers run on 127.0.0.1 inside this script: the upstream is a local stand-in
(``FakeOpenAIServer``), the proxy is the real app that ``streamparse serve`` runs.
"""

import openai

from streamparse.server import create_app
from streamparse.testing import FakeOpenAIServer, serve_app

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
ASK = [{"role": "user", "content": "Weather in Paris?"}]

with FakeOpenAIServer(REPLY) as upstream, serve_app(create_app(upstream.url)) as proxy:
    client = openai.OpenAI(base_url=proxy + "/v1", api_key="unused")

    reply = client.chat.completions.create(model="Qwen/Qwen3-8B", messages=ASK, tools=TOOLS)
    message = reply.choices[0].message
    print("content:", repr(message.content))
    for call in message.tool_calls or []:
        print("tool_call:", call.function.name, call.function.arguments)
    print("finish_reason:", reply.choices[0].finish_reason)

    # Streaming: each call arrives as structured delta.tool_calls once it is complete and valid.
    stream = client.chat.completions.create(model="Qwen/Qwen3-8B", messages=ASK, tools=TOOLS, stream=True)
    calls: dict[int, list[str]] = {}
    for chunk in stream:
        for call in chunk.choices[0].delta.tool_calls or [] if chunk.choices else []:
            name, arguments = calls.setdefault(call.index, ["", ""])
            calls[call.index] = [name + (call.function.name or ""), arguments + (call.function.arguments or "")]
    print("streamed tool_calls:", calls)
