"""Drive a vLLM tool parser the way vLLM's serving loop does, on a tokenizer built offline."""

from __future__ import annotations

from typing import Any

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest


def chat_request(**fields: Any) -> ChatCompletionRequest:
    return ChatCompletionRequest(model=fields.pop("model", "test-model"), messages=fields.pop("messages", []), **fields)


def detokenize(tokenizer: Any, ids: list[int], interval: int = 1) -> list[tuple[list[int], str]]:
    """(token ids, new text) per step, decoded incrementally as vLLM's detokenizer does: a step whose text
    ends inside a multi-byte character holds it back until the character is complete."""
    out = []
    sent = ""
    for i in range(0, len(ids), interval):
        text = tokenizer.decode(ids[: i + interval])
        if text.endswith("\ufffd") and i + interval < len(ids):
            out.append((ids[i : i + interval], ""))
            continue
        out.append((ids[i : i + interval], text[len(sent) :]))
        sent = text
    return out


def stream(parser: Any, tokenizer: Any, request: Any, text: str, interval: int = 1) -> list[Any]:
    """Feed ``text`` in chunks of ``interval`` tokens; the non-None DeltaMessages, in order.

    A legacy parser gets the accumulated text each time; an engine-based one (``engine_based_streaming``)
    gets only the new text and a ``finish_streaming()`` at the end, as vLLM's ``DelegatingParser`` does.
    """
    engine = getattr(parser, "engine_based_streaming", False)
    ids = tokenizer.encode(text)
    previous_text = ""
    previous_ids: list[int] = []
    out = []
    for i in range(0, len(ids), interval):
        chunk = ids[i : i + interval]
        delta_text = tokenizer.decode(chunk)
        current_text = previous_text + delta_text
        current_ids = previous_ids + chunk
        if engine:
            delta = parser.extract_tool_calls_streaming("", delta_text, delta_text, [], chunk, chunk, request)
        else:
            delta = parser.extract_tool_calls_streaming(
                previous_text, current_text, delta_text, previous_ids, current_ids, chunk, request
            )
        previous_text, previous_ids = current_text, current_ids
        if delta is not None:
            out.append(delta)
    if engine:
        final = parser.finish_streaming()
        if final is not None:
            out.append(final)
    return out


def tool_deltas(deltas: list[Any]) -> list[Any]:
    return [tc for d in deltas if d.tool_calls for tc in d.tool_calls]


def joined_arguments(deltas: list[Any], index: int | None = None) -> str:
    return "".join(tc.function.arguments or "" for tc in tool_deltas(deltas) if index is None or tc.index == index)
