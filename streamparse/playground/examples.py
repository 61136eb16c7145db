"""The playground's one-click examples: the bundled demo recordings, plus two written for the page
(rejections with their reasons, and a captured OpenAI SSE stream whose calls sit in ``content``)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

__all__ = ["examples"]


def _recordings() -> list[dict[str, Any]]:
    """The bundled demo recordings, with the tools they call (so their calls are validated)."""
    from streamparse.recordings import DEMO_TOOLS, load_recordings

    tools = json.dumps(DEMO_TOOLS, indent=2)
    return [
        {
            "name": rec.name,
            "title": rec.title,
            "kind": "recording",
            "state": {
                "input": rec.text,
                "input_kind": "text",
                "model": rec.model,
                "formats": [] if rec.formats == "auto" else list(rec.formats),
                "start_in_reasoning": rec.start_in_reasoning,
                "tools": tools,
            },
        }
        for rec in load_recordings()
    ]


_WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    }
]

_REJECTIONS = (
    "Let me check both cities.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_weather", "arguments": {"town": "Lyon"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "book_flight", "arguments": {"to": "Rome"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Ni'
)


def _sse_capture() -> str:
    """A llama.cpp-style stream without ``--jinja``: the hermes call arrives as plain ``content``."""
    pieces = ["I'll look", " that up.", "\n<tool_call>", '\n{"name": "get_weather", ', '"arguments": {"city": ']
    pieces += ['"Oslo"}}', "\n</tool_call>"]
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "qwen2.5-7b"}
    lines = []
    for i, piece in enumerate(pieces):
        delta: dict[str, Any] = {"content": piece} if i else {"role": "assistant", "content": piece}
        lines.append({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    lines.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    body = "".join(f"data: {json.dumps(line)}\n\n" for line in lines)
    return body + "data: [DONE]\n\n"


def _written() -> list[dict[str, Any]]:
    return [
        {
            "name": "rejections",
            "title": "Hermes calls checked against a schema: one accepted, three rejected with reasons",
            "kind": "example",
            "state": {
                "input": _REJECTIONS,
                "input_kind": "text",
                "model": "NousResearch/Hermes-3-Llama-3.1-8B",
                "formats": ["hermes"],
                "tools": json.dumps(_WEATHER_TOOLS, indent=2),
            },
        },
        {
            "name": "sse-capture",
            "title": "A captured OpenAI SSE stream whose tool call is still text in content",
            "kind": "example",
            "state": {"input": _sse_capture(), "input_kind": "openai-sse", "model": "qwen2.5-7b-instruct"},
        },
    ]


@lru_cache(maxsize=1)
def examples() -> tuple[dict[str, Any], ...]:
    """Every one-click example: ``{"name", "title", "kind", "state"}`` (``state`` as the page stores it)."""
    return tuple(_recordings() + _written())
