"""The README's first example: feed chunks as they arrive, react to each event, then close()."""

from __future__ import annotations

from streamparse import StreamParser, TextDelta, ToolCallDelta, ToolCallEnd, parse

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
        },
    }
]


def main() -> None:
    parser = StreamParser(formats=["hermes"], tools=TOOLS)
    chunks = ["Let me check.<tool", '_call>{"name": "lookup_order", ', '"arguments": {"order_id": "A-1"}}']
    chunks.append("</tool_call>")
    for chunk in chunks:
        for event in parser.feed(chunk):
            if isinstance(event, TextDelta):
                print("text:", event.text)
            elif isinstance(event, ToolCallDelta):
                print("args so far:", event.arguments)
            elif isinstance(event, ToolCallEnd):
                print("call:", event.call.name, event.call.arguments)
    parser.close()
    print("finish_reason:", parser.finish_reason)

    text = "<think>Which order?</think>Checking.\n" + "".join(chunks[1:]).replace("_call>", "<tool_call>", 1)
    result = parse(text, formats="auto", tools=TOOLS)
    print("parse():", repr(result.reasoning), repr(result.text), [c.to_openai() for c in result.tool_calls])


if __name__ == "__main__":
    main()
