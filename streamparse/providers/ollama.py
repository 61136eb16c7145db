"""Ollama's native ``/api/chat`` (and ``/api/generate``) NDJSON stream in: :class:`OllamaNDJSONReader`.

Each line is one JSON object: ``message.content`` (``response`` for ``/api/generate``) is text,
``message.thinking`` (``thinking``) is reasoning, ``"done": true`` ends the response with
``done_reason``; ``{"error": "..."}`` is an error. Lines may be split anywhere across pieces.
``message.tool_calls`` (calls Ollama already parsed, each complete in one line) become :class:`ProviderCall`
items, validated and emitted in order with the calls written in the text.
"""

from __future__ import annotations

import codecs
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

if TYPE_CHECKING:
    from ..parser import StreamParser

_USAGE_KEYS = ("prompt_eval_count", "eval_count", "total_duration", "eval_duration")


class OllamaNDJSONReader:
    """Push reader: ``feed(bytes | str | dict) -> list[ProviderItem]``; already-decoded dicts (e.g. from
    the ``ollama`` Python client) are accepted too."""

    def __init__(self) -> None:
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buf = ""
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.done = False
        self._meta_sent = False
        self._calls = 0  # structured calls read so far (each one's key)
        self.payloads = 0  # JSON lines / objects read

    def feed(self, piece: bytes | str | Mapping[str, Any] | Any) -> list[ProviderItem]:
        if self.done:
            return []
        if not isinstance(piece, bytes | bytearray | str):
            dump = getattr(piece, "model_dump", None)
            return self.feed_object(piece if isinstance(piece, Mapping) or not callable(dump) else dump())
        text = self._utf8.decode(piece) if isinstance(piece, bytes | bytearray) else piece
        self._buf += text
        if "\n" not in text:
            return []
        *lines, self._buf = self._buf.split("\n")
        return self._lines(lines)

    def close(self) -> list[ProviderItem]:
        tail = self._buf + self._utf8.decode(b"", final=True)
        self._buf = ""
        return [] if self.done else self._lines(tail.split("\n"))

    def _lines(self, lines: list[str]) -> list[ProviderItem]:
        out: list[ProviderItem] = []
        for line in lines:
            if self.done:
                break
            line = line.strip()
            if not line:
                continue
            try:
                out.extend(self.feed_object(loads_payload(line)))
            except ProviderError as exc:
                exc.pending[:0] = out
                raise
        return out

    def feed_object(self, obj: Any) -> list[ProviderItem]:
        """Read one decoded NDJSON object."""
        if self.done:
            return []
        self.payloads += 1
        if not isinstance(obj, Mapping):
            raise ProviderError(f"upstream sent a non-object line: {obj!r:.200}", type="invalid_chunk")
        if "error" in obj:
            raise error_from_payload(obj)
        out: list[ProviderItem] = []
        if not self._meta_sent and obj.get("model"):
            self._meta_sent = True
            self.model = str(obj["model"])
            out.append(ProviderMeta(None, self.model, None))
        msg = obj.get("message")
        src: Mapping[str, Any] = msg if isinstance(msg, Mapping) else obj
        thinking = src.get("thinking")
        if isinstance(thinking, str) and thinking:
            out.append(ProviderDelta("reasoning", thinking))
        content = src.get("content") if isinstance(msg, Mapping) else obj.get("response")
        if isinstance(content, str) and content:
            out.append(ProviderDelta("text", content))
        calls = src.get("tool_calls") if isinstance(msg, Mapping) else None
        if isinstance(calls, list):
            for entry in calls:
                out.append(self._call(entry))
        if obj.get("done") is True:
            self.done = True
            reason = obj.get("done_reason")
            self.finish_reason = reason if isinstance(reason, str) and reason else None
            usage = {k: obj[k] for k in _USAGE_KEYS if k in obj}
            self.usage = usage or None
            out.append(ProviderDone(self.finish_reason, self.usage))
        return out

    def _call(self, entry: Any) -> ProviderCall:
        """One complete call: ``{"function": {"name", "arguments": {...}}}`` (newer Ollama adds ``id``)."""
        self._calls += 1
        fn = entry.get("function") if isinstance(entry, Mapping) else None
        fn = fn if isinstance(fn, Mapping) else {}
        name, call_id, args = (
            fn.get("name"),
            entry.get("id") if isinstance(entry, Mapping) else None,
            fn.get("arguments"),
        )
        if not isinstance(args, str):
            args = json.dumps(args if args is not None else {}, ensure_ascii=False)
        return ProviderCall(
            self._calls,
            name if isinstance(name, str) else None,
            call_id if isinstance(call_id, str) and call_id else None,
            args,
            end=True,
            format="ollama_tool_calls",
        )


def ollama_ndjson_events(
    pieces: Iterable[bytes | str | Mapping[str, Any]],
    *,
    parser: StreamParser | None = None,
    reader: OllamaNDJSONReader | None = None,
    **options: Any,
) -> Generator[Event, None, None]:
    """Events from an Ollama ``/api/chat`` stream (see :func:`~streamparse.providers.openai_sse_events`
    for ``parser=``/``reader=`` and the error rule)."""
    stream = make_stream(reader if reader is not None else OllamaNDJSONReader(), parser, options)
    return iter_parse(pieces, parser=stream)


def aollama_ndjson_events(
    pieces: AsyncIterable[bytes | str | Mapping[str, Any]],
    *,
    parser: StreamParser | None = None,
    reader: OllamaNDJSONReader | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None]:
    """The async twin of :func:`ollama_ndjson_events`."""
    stream = make_stream(reader if reader is not None else OllamaNDJSONReader(), parser, options)
    return aparse(pieces, parser=stream)
