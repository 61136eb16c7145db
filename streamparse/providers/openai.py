"""OpenAI-compatible chat-completion streams in (vLLM, llama.cpp server, LM Studio, OpenRouter, Ollama
``/v1``, the ``openai`` SDK): :class:`OpenAISSEReader` and the event generators over it.

Only ``choices[0]`` is read (``n > 1`` is not supported). Tool calls the upstream already structured
(``delta.tool_calls``, as vLLM with a tool parser or OpenAI send them) become :class:`ProviderCall` pieces:
a call ends when the next one begins or the choice finishes, so it is validated and dispatched as early
as the server allows, in order with the calls written in ``content``.
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


def _as_dict(chunk: Any) -> Mapping[str, Any]:
    if isinstance(chunk, Mapping):
        return chunk
    dump = getattr(chunk, "model_dump", None)  # openai SDK objects are pydantic models
    if callable(dump):
        data = dump()
        if isinstance(data, Mapping):
            return data
    raise TypeError(f"expected an SSE piece (bytes/str), a chunk dict or an SDK chunk, got {type(chunk)!r}")


class OpenAISSEReader:
    """Push reader: ``feed(piece) -> list[ProviderItem]``.

    A piece is raw SSE (``bytes``/``str``, split anywhere), or an already-decoded chunk: a dict or an
    ``openai`` SDK ``ChatCompletionChunk``. Content becomes ``ProviderDelta("text")``;
    ``reasoning_content`` (vLLM, llama.cpp, DeepSeek) or ``reasoning`` (OpenRouter, Ollama, newer vLLM)
    becomes ``ProviderDelta("reasoning")``. An error payload raises :class:`ProviderError`.
    After ``[DONE]`` further input is ignored. ``id``, ``model``, ``created``, ``finish_reason`` and
    ``usage`` are kept as attributes.
    """

    def __init__(self) -> None:
        self._sse = SSEDecoder()
        self.id: str | None = None
        self.model: str | None = None
        self.created: int | None = None
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.done = False
        self._meta_sent = False
        # The structured call being streamed: its key (a count), the server's tool_calls index and id.
        self._call: int | None = None
        self._index: Any = None
        self._id: str | None = None
        self._calls = 0
        self.payloads = 0  # SSE events / chunks read: none in a non-empty input means it was not SSE

    def feed(self, piece: bytes | str | Mapping[str, Any] | Any) -> list[ProviderItem]:
        if self.done:
            return []
        if not isinstance(piece, bytes | bytearray | str):
            return self.feed_chunk(piece)
        out: list[ProviderItem] = []
        for ev in self._sse.feed(piece):
            try:
                out.extend(self._on_sse(ev.event, ev.data))
            except ProviderError as exc:
                exc.pending[:0] = out
                raise
            if self.done:
                break
        return out

    def close(self) -> list[ProviderItem]:
        out: list[ProviderItem] = []
        for ev in self._sse.close(dispatch_incomplete=True):
            if self.done:
                break
            try:
                out.extend(self._on_sse(ev.event, ev.data))
            except ProviderError as exc:
                exc.pending[:0] = out
                raise
        return out

    def _on_sse(self, event: str, data: str) -> list[ProviderItem]:
        if data.strip() == "[DONE]":
            self.payloads += 1
            self.done = True
            return [ProviderDone(self.finish_reason, self.usage)]
        payload = loads_payload(data)
        if event == "error":
            raise error_from_payload(payload)
        return self.feed_chunk(payload)

    def feed_chunk(self, chunk: Mapping[str, Any] | Any) -> list[ProviderItem]:
        """Read one decoded chunk (dict or SDK object)."""
        if self.done:
            return []
        self.payloads += 1
        c = _as_dict(chunk)
        if "error" in c or c.get("object") == "error":
            raise error_from_payload(c)
        out: list[ProviderItem] = []
        if not self._meta_sent and (c.get("id") or c.get("model")):
            self._meta_sent = True
            self.id, self.model = c.get("id"), c.get("model")
            created = c.get("created")
            self.created = created if isinstance(created, int) else None
            out.append(ProviderMeta(self.id, self.model, self.created))
        usage = c.get("usage")
        if isinstance(usage, Mapping):
            self.usage = dict(usage)
        choices = c.get("choices") or []
        choice = next((ch for ch in choices if isinstance(ch, Mapping) and ch.get("index", 0) == 0), None)
        if choice is None:
            return out
        delta = choice.get("delta")
        if not isinstance(delta, Mapping):
            delta = choice.get("message")  # a non-streaming response passed through the same path
        if isinstance(delta, Mapping):
            # Servers differ in the key; some (newer vLLM) send both with the same text: take one.
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                out.append(ProviderDelta("reasoning", reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                out.append(ProviderDelta("text", content))
            calls = delta.get("tool_calls")
            if isinstance(calls, list):
                self._tool_calls(calls, out)
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            self.finish_reason = reason
            if self._call is not None:
                out.append(ProviderCall(self._call, end=True, cut=reason == "length"))
                self._call = self._index = self._id = None
        return out

    def _tool_calls(self, entries: list[Any], out: list[ProviderItem]) -> None:
        for position, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                continue
            index = entry.get("index", position)
            fn = entry.get("function")
            fn = fn if isinstance(fn, Mapping) else {}
            args = fn.get("arguments")
            if isinstance(args, Mapping):  # some servers send the object itself
                args = json.dumps(args, ensure_ascii=False)
            args = args if isinstance(args, str) else ""
            name, call_id = fn.get("name"), entry.get("id")
            name = name if isinstance(name, str) and name else None
            call_id = call_id if isinstance(call_id, str) and call_id else None
            # A new call: a new index, or (servers that reuse index 0 for every call) a name with a new id.
            new = index != self._index or (name is not None and call_id is not None and call_id != self._id)
            if new:
                if self._call is not None:  # the next call begins: the previous one is complete
                    out.append(ProviderCall(self._call, end=True))
                self._calls += 1
                self._call, self._index, self._id = self._calls, index, call_id
                out.append(ProviderCall(self._call, name, call_id, args, format="openai_tool_calls"))
            elif args:
                out.append(ProviderCall(self._call, arguments=args))


def openai_sse_events(
    pieces: Iterable[bytes | str | Mapping[str, Any] | Any],
    *,
    parser: StreamParser | None = None,
    reader: OpenAISSEReader | None = None,
    **options: Any,
) -> Generator[Event, None, None]:
    """Events from an OpenAI-compatible stream: raw SSE bytes/str (e.g. ``httpx``'s
    ``response.iter_bytes()``), chunk dicts, or the SDK's ``client.chat.completions.create(stream=True)``.

    ``options`` go to :class:`~streamparse.StreamParser` (or pass ``parser=``). Pass ``reader=`` to read
    ``finish_reason``/``model``/``id``/``usage`` afterwards. A :class:`ProviderError` is raised after the
    parser's held text has been yielded.
    """
    stream = make_stream(reader if reader is not None else OpenAISSEReader(), parser, options)
    return iter_parse(pieces, parser=stream)


def aopenai_sse_events(
    pieces: AsyncIterable[bytes | str | Mapping[str, Any] | Any],
    *,
    parser: StreamParser | None = None,
    reader: OpenAISSEReader | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None]:
    """The async twin of :func:`openai_sse_events` (``AsyncOpenAI`` streams, ``aiter_bytes()``)."""
    stream = make_stream(reader if reader is not None else OpenAISSEReader(), parser, options)
    return aparse(pieces, parser=stream)
