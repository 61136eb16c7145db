"""Anthropic Messages output: :class:`AnthropicEventWriter` turns streamparse events into the Messages
streaming events (``message_start``, ``content_block_*``, ``message_delta``, ``message_stop``)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import Any, Literal

from ..events import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallRejected,
)
from ..messages import finish_reason as turn_finish_reason

_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "content_filter": "refusal"}


def to_sse_event(event: dict[str, Any]) -> bytes:
    """One Messages event as SSE: ``event: <type>`` then its JSON ``data:``."""
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


class AnthropicEventWriter:
    """``write(events) -> list[dict]`` then ``finish(upstream_reason) -> list[dict]``; each dict is one
    event payload (its ``type`` is the SSE event name; :func:`to_sse_event` frames it).

    Text and reasoning open ``text`` / ``thinking`` content blocks (a change of kind closes the open
    block). Calls are fail closed as in :class:`~streamparse.providers.OpenAIChunkWriter`: a call is sent
    only at its ``ToolCallEnd``, as a ``tool_use`` block (``input: {}``) with one ``input_json_delta``;
    rejected candidates are never sent. ``include_thinking=False`` drops reasoning (thinking blocks
    produced here carry no signature, which some clients insist on when the thinking is sent back).
    """

    def __init__(
        self,
        model: str,
        id: str | None = None,
        *,
        include_thinking: bool = True,
        input_tokens: int = 0,
    ) -> None:
        self.model = model
        self.id = id or "msg_" + uuid.uuid4().hex[:24]
        self.include_thinking = include_thinking
        self.input_tokens = input_tokens
        self.calls_completed = 0
        self.cut = False  # a call was rejected as truncated: the output hit its limit
        self._index = -1  # index of the last content block opened
        self._open: Literal["text", "thinking"] | None = None
        self._started = False
        self._finished = False

    def _begin(self) -> list[dict[str, Any]]:
        if self._started:
            return []
        self._started = True
        message: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": 0},
        }
        return [{"type": "message_start", "message": message}]

    def _close_block(self) -> list[dict[str, Any]]:
        if self._open is None:
            return []
        self._open = None
        return [{"type": "content_block_stop", "index": self._index}]

    def _text(self, kind: Literal["text", "thinking"], text: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._open != kind:
            out.extend(self._close_block())
            self._index += 1
            self._open = kind
            block: dict[str, Any] = {"type": kind, kind: ""}  # {"type": "text", "text": ""} or thinking
            out.append({"type": "content_block_start", "index": self._index, "content_block": block})
        delta = {"type": f"{kind}_delta", kind: text}  # text_delta / thinking_delta
        out.append({"type": "content_block_delta", "index": self._index, "delta": delta})
        return out

    def write(self, events: Event | Iterable[Event]) -> list[dict[str, Any]]:
        if self._finished:
            raise RuntimeError("write() after finish()")
        out = self._begin()
        for ev in [events] if not isinstance(events, Iterable) else events:
            if isinstance(ev, TextDelta) and ev.text:
                out.extend(self._text("text", ev.text))
            elif isinstance(ev, ReasoningDelta) and ev.text and self.include_thinking:
                out.extend(self._text("thinking", ev.text))
            elif isinstance(ev, ToolCallEnd):
                self.calls_completed += 1
                out.extend(self._close_block())
                self._index += 1
                call = ev.call
                start = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
                out.append({"type": "content_block_start", "index": self._index, "content_block": start})
                if call.arguments_json:
                    delta = {"type": "input_json_delta", "partial_json": call.arguments_json}
                    out.append({"type": "content_block_delta", "index": self._index, "delta": delta})
                out.append({"type": "content_block_stop", "index": self._index})
            elif isinstance(ev, ToolCallRejected):  # fail closed: a rejected call is never sent
                self.cut = self.cut or ev.reason == "truncated"
        return out

    def finish(self, finish_reason: str | None = None, *, output_tokens: int = 0) -> list[dict[str, Any]]:
        """Close the open block, then ``message_delta`` (``stop_reason`` ``"tool_use"`` when any call
        completed, else ``"max_tokens"`` when a call was truncated, else the upstream's reason mapped to
        Anthropic's words, else ``"end_turn"``) and ``message_stop``. ``finish_reason`` may be given in
        OpenAI's or Anthropic's words."""
        out = self._begin()
        out.extend(self._close_block())
        self._finished = True
        reason = turn_finish_reason(bool(self.calls_completed), self.cut, finish_reason)
        stop = _STOP.get(reason, reason)
        out.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            }
        )
        out.append({"type": "message_stop"})
        return out
