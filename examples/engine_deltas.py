"""What a serving engine streams with streamparse as its parser: one piece per chunk, shaped like vLLM's
``DeltaMessage`` and SGLang's ``StreamingParseResult`` (content, reasoning, tool-call fragments).

The vLLM and SGLang adapters (``streamparse.integrations.vllm`` / ``.sglang``) run exactly this session per
request; this script drives it directly, so it runs without either engine installed.
"""

from streamparse import StreamParser
from streamparse.integrations import RequestSession

OUTPUT = [
    "<think>The user wants",
    " Paris.</think>Checking.",
    '<tool_call>{"name": "get_weather", ',
    '"arguments": {"city": "Par',
    'is"}}</tool_call>',
]

parser = StreamParser.for_model("Qwen/Qwen3-8B", calls_in_reasoning="promote")  # hermes; as the adapters set it
session = RequestSession(parser)
for chunk in OUTPUT:
    piece = session.push(chunk)  # None when the chunk made nothing certain: the engine sends nothing
    print(f"{chunk!r:42} -> {piece}")
print("end of stream ->", session.finish())
print("accepted:", [(c.name, c.arguments) for c in session.accepted])
