"""Anthropic Messages SSE in: :class:`AnthropicSSEReader` and the event generators over it.

``content_block_delta`` with ``text_delta`` is text, ``thinking_delta`` is reasoning; ``message_delta``
carries ``stop_reason``; ``message_stop`` ends; an ``error`` event raises :class:`ProviderError`.
``tool_use`` blocks (``content_block_start``, ``input_json_delta`` pieces, ``content_block_stop``) become
:class:`ProviderCall` items: validated against the tools and emitted in order with calls written in text.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterable, Generator, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..aio import aparse, iter_parse
from ..events import Event
from .base import (
    ProviderCall,
    ProviderDelta,
    ProviderDone,
    ProviderError,
    ProviderItem,
    ProviderMeta,
    error_from_payload,
    loads_payload,
    make_stream,
)
from .sse import SSEDecoder

if TYPE_CHECKING:
    from ..parser import StreamParser


_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}


class AnthropicSSEReader:
    """Push reader: ``feed(bytes | str | dict) -> list[ProviderItem]`` (dicts: decoded event payloads,
    each with its ``type``)."""

    def __init__(self) -> None:
        self._sse = SSEDecoder()
        self.id: str | None = None
        self.model: str | None = None
        self.stop_reason: str | None = None  # as Anthropic says it
        self.finish_reason: str | None = None  # the same in OpenAI's words, as the other readers give it
        self.usage: dict[str, Any] | None = None
        self.done = False
        self._tool_blocks: set[Any] = set()  # indices of the open tool_use blocks
        # A tool_use block that stopped, held until the next event says whether the message was cut there
        # (``message_delta`` with ``stop_reason: "max_tokens"`` comes right after its ``content_block_stop``).
        self._stopped: Any = None
        self.payloads = 0  # SSE events / event dicts read: none in a non-empty input means it was not SSE

    def feed(self, piece: bytes | str | Mapping[str, Any] | Any) -> list[ProviderItem]:
        if self.done:
            return []
        if not isinstance(piece, bytes | bytearray | str):
            dump = getattr(piece, "model_dump", None)
            return self.feed_event(piece if isinstance(piece, Mapping) or not callable(dump) else dump())
        return self._sse_events(self._sse.feed(piece))

    def close(self) -> list[ProviderItem]:
        return self._sse_events(self._sse.close(dispatch_incomplete=True))

    def _sse_events(self, events: Iterable[Any]) -> list[ProviderItem]:
        out: list[ProviderItem] = []
        for ev in events:
            if self.done:
                break
            try:
                payload = loads_payload(ev.data)
                if isinstance(payload, Mapping) and "type" not in payload:
                    payload = {**payload, "type": ev.event}
                out.extend(self.feed_event(payload))
            except ProviderError as exc:
                exc.pending[:0] = out
                raise
        return out

    def feed_event(self, ev: Any) -> list[ProviderItem]:
        """Read one decoded event payload."""
        if self.done or not isinstance(ev, Mapping):
            return []
        self.payloads += 1
        if self._stopped is None or ev.get("type") in ("message_delta", "ping"):
            return self._event(ev)
        return [*self._release(cut=False), *self._event(ev)]

    def _release(self, cut: bool) -> list[ProviderItem]:
        if self._stopped is None:
            return []
        key, self._stopped = self._stopped, None
        return [ProviderCall(key, end=True, cut=cut)]

    def _event(self, ev: Mapping[str, Any]) -> list[ProviderItem]:
        kind = ev.get("type")
        if kind == "error" or (kind is None and "error" in ev):
            raise error_from_payload(ev)
        if kind == "message_start":
            msg = ev.get("message")
            if isinstance(msg, Mapping):
                self.id, self.model = msg.get("id"), msg.get("model")
                return [ProviderMeta(self.id, self.model, None)]
        elif kind == "content_block_start":
            block = ev.get("content_block")
            if isinstance(block, Mapping):  # a start block may already hold text
                if block.get("type") == "text" and block.get("text"):
                    return [ProviderDelta("text", str(block["text"]))]
                if block.get("type") == "thinking" and block.get("thinking"):
                    return [ProviderDelta("reasoning", str(block["thinking"]))]
                if block.get("type") == "tool_use":
                    return [self._tool_start(ev.get("index"), block)]
        elif kind == "content_block_stop":
            if ev.get("index") in self._tool_blocks:
                self._tool_blocks.discard(ev.get("index"))
                self._stopped = ev.get("index")
        elif kind == "content_block_delta":
            delta = ev.get("delta")
            if isinstance(delta, Mapping) and delta.get("type") == "input_json_delta":
                piece = delta.get("partial_json")
                if ev.get("index") in self._tool_blocks and isinstance(piece, str) and piece:
                    return [ProviderCall(ev.get("index"), arguments=piece)]
            elif isinstance(delta, Mapping):
                if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                    return [ProviderDelta("text", delta["text"])]
                if delta.get("type") == "thinking_delta" and isinstance(delta.get("thinking"), str):
                    return [ProviderDelta("reasoning", delta["thinking"])]
        elif kind == "message_delta":
            delta = ev.get("delta")
            if isinstance(delta, Mapping) and isinstance(delta.get("stop_reason"), str):
                self.stop_reason = delta["stop_reason"]
                self.finish_reason = _FINISH.get(self.stop_reason, self.stop_reason)
            usage = ev.get("usage")
            if isinstance(usage, Mapping):
                self.usage = dict(usage)
            return self._release(cut=self.stop_reason == "max_tokens")
        elif kind == "message_stop":
            self.done = True
            return [ProviderDone(self.finish_reason, self.usage)]
        return []

    def _tool_start(self, index: Any, block: Mapping[str, Any]) -> ProviderCall:
        self._tool_blocks.add(index)
        name, call_id, start = block.get("name"), block.get("id"), block.get("input")
        # Anthropic sends ``input: {}`` and the arguments as deltas; a server that sends them here is read too.
        args = json.dumps(start, ensure_ascii=False) if isinstance(start, Mapping) and start else ""
        return ProviderCall(
            index,
            name if isinstance(name, str) else None,
            call_id if isinstance(call_id, str) and call_id else None,
            args,
            format="anthropic_tool_use",
        )


def anthropic_sse_events(
    pieces: Iterable[bytes | str | Mapping[str, Any]],
    *,
    parser: StreamParser | None = None,
    reader: AnthropicSSEReader | None = None,
    **options: Any,
) -> Generator[Event, None, None]:
    """Events from an Anthropic Messages stream (see :func:`~streamparse.providers.openai_sse_events`
    for ``parser=``/``reader=`` and the error rule)."""
    stream = make_stream(reader if reader is not None else AnthropicSSEReader(), parser, options)
    return iter_parse(pieces, parser=stream)


def aanthropic_sse_events(
    pieces: AsyncIterable[bytes | str | Mapping[str, Any]],
    *,
    parser: StreamParser | None = None,
    reader: AnthropicSSEReader | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None]:
    """The async twin of :func:`anthropic_sse_events`."""
    stream = make_stream(reader if reader is not None else AnthropicSSEReader(), parser, options)
    return aparse(pieces, parser=stream)
