"""What provider readers emit, and :class:`ProviderStream`, which joins a reader to a parser.

A reader turns one provider's wire format (SSE chunks, NDJSON lines, SDK objects) into a flat list of
:class:`ProviderDelta` (text to parse, or reasoning the server already separated), :class:`ProviderCall`
(a piece of a tool call the server already structured), :class:`ProviderMeta` and :class:`ProviderDone`.
It never parses the model's text itself: that is the parser's job, so the proxy can reuse a reader with
its own parser and writer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from ..events import Event
from ..messages import finish_reason

if TYPE_CHECKING:
    from ..parser import StreamParser


@dataclass(frozen=True, slots=True)
class ProviderDelta:
    """``kind="text"``: model output to run through the parser; ``"reasoning"``: reasoning the server
    already split off (``reasoning_content``, ``thinking``), passed on as ``ReasoningDelta`` as is."""

    kind: Literal["text", "reasoning"]
    text: str


@dataclass(frozen=True, slots=True)
class ProviderMeta:
    """Response metadata, emitted once, with the first chunk that carries it."""

    id: str | None = None
    model: str | None = None
    created: int | None = None


@dataclass(frozen=True, slots=True)
class ProviderDone:
    """The upstream said the response is over (``[DONE]``, ``message_stop``, ``"done": true``)."""

    finish_reason: str | None = None
    usage: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ProviderCall:
    """A piece of a tool call the server already structured: vLLM/OpenAI ``delta.tool_calls``, Ollama
    ``message.tool_calls``, an Anthropic ``tool_use`` block. ``key`` tells the server's calls apart (the
    ``tool_calls`` index, the content-block index); the first piece of a key opens the call (``name``,
    ``id``), ``arguments`` pieces join to its arguments JSON, ``end`` closes it (``cut``: the output ended
    inside it). :class:`ProviderStream` turns them into the parser's call events, validated against the tools."""

    key: Any
    name: str | None = None
    id: str | None = None
    arguments: str = ""
    end: bool = False
    cut: bool = False
    format: str = "structured"  # ToolCall.format of the call: which wire shape it came in


ProviderItem: TypeAlias = ProviderDelta | ProviderCall | ProviderMeta | ProviderDone


class ProviderError(Exception):
    """The upstream sent an error payload instead of (or in the middle of) a response.

    ``pending`` holds what the same ``feed()`` decoded before the error, so nothing is lost.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        type: str | None = None,
        body: Any = None,
        pending: list[ProviderItem] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.type = type
        self.body = body
        self.pending: list[ProviderItem] = pending if pending is not None else []

    def __str__(self) -> str:
        tags = ", ".join(str(x) for x in (self.status, self.type) if x is not None)
        return f"{self.message} ({tags})" if tags else self.message


def error_from_payload(payload: Any) -> ProviderError:
    """Build a :class:`ProviderError` from the error shapes servers send:
    ``{"error": {"message", "type", "code"}}`` (OpenAI, vLLM, OpenRouter), ``{"error": "text"}``
    (Ollama, llama.cpp), ``{"object": "error", "message", ...}`` (older vLLM), Anthropic's
    ``{"type": "error", "error": {"type", "message"}}``."""
    err: Any = payload.get("error", payload) if isinstance(payload, Mapping) else payload
    if isinstance(err, Mapping):
        message = str(err.get("message") or err.get("detail") or json.dumps(err, default=str))
        code = err.get("code", err.get("status"))
        if code is None and isinstance(payload, Mapping):
            code = payload.get("status")
        status = code if isinstance(code, int) and not isinstance(code, bool) else None
        if status is None and isinstance(code, str) and code.isdigit():
            status = int(code)
        etype = err.get("type")
        if etype is None and isinstance(code, str) and not code.isdigit():
            etype = code
        etype = etype if isinstance(etype, str) else None
        return ProviderError(message, status=status, type=etype, body=payload)
    return ProviderError(str(err), body=payload)


def loads_payload(data: str) -> Any:
    """JSON-decode one wire payload; a broken payload is the upstream's fault, reported as such."""
    try:
        return json.loads(data)
    except ValueError as exc:
        raise ProviderError(f"upstream sent invalid JSON: {data[:200]!r}", type="invalid_chunk") from exc


class Reader(Protocol):
    """A push reader of one provider's wire format."""

    finish_reason: str | None
    done: bool

    def feed(self, piece: Any) -> list[ProviderItem]: ...

    def close(self) -> list[ProviderItem]: ...


@dataclass
class ProviderStream:
    """A reader and a parser as one push object: ``feed(piece) -> list[Event]``, ``close()``.

    Text deltas go through the parser; reasoning deltas become ``ReasoningDelta`` directly; structured
    calls become the same Start / Delta / End or Rejected events as calls written in the text, with indices
    of the same stream, checked against the parser's tools. If the reader raises :class:`ProviderError`,
    the items it decoded before the error are applied and kept, so a following ``close()`` returns them
    with the parser's flushed text (this is how :func:`~streamparse.aparse` loses nothing on a provider error).
    """

    reader: Reader
    parser: StreamParser
    meta: ProviderMeta | None = field(default=None, init=False)
    upstream_done: ProviderDone | None = field(default=None, init=False)
    _carry: list[Event] = field(default_factory=list, init=False, repr=False)
    _closed: bool = field(default=False, init=False, repr=False)
    _calls: dict[Any, int] = field(default_factory=dict, init=False, repr=False)  # open structured calls

    @property
    def done(self) -> bool:
        return self.upstream_done is not None

    @property
    def finish_reason(self) -> str:
        """``"tool_calls"`` when a call was accepted (from the text or structured), else ``"length"`` when the
        output was cut, else the upstream's reason, else ``"stop"``."""
        ours = self.parser.finish_reason
        return finish_reason(ours == "tool_calls", ours == "length", self.reader.finish_reason)

    def feed(self, piece: Any) -> list[Event]:
        try:
            items = self.reader.feed(piece)
        except ProviderError as exc:
            self._carry.extend(self._apply(exc.pending))
            raise
        return self._apply(items)

    def close(self) -> list[Event]:
        """Flush the reader and the parser. If the reader's last bytes hold an error payload (Ollama
        sends an error as one JSON line, often unterminated), the error is raised and a second
        ``close()`` returns the flushed events."""
        if self._closed:
            out, self._carry = self._carry, []
            return out
        self._closed = True
        try:
            items = self.reader.close()
        except ProviderError as exc:
            self._carry.extend(self._apply(exc.pending))
            self._carry.extend(self.parser.close())
            raise
        out, self._carry = self._carry, []
        out.extend(self._apply(items))
        out.extend(self._end_calls(cut=True))
        # The upstream's reason decides an open call's fate as close() documents ("stop": a complete body
        # whose closer a stop sequence ate is accepted; "length" or a dropped stream: truncated).
        out.extend(self.parser.close(self.reader.finish_reason))
        if self.parser.finish_reason in ("tool_calls", "length"):  # the reader, read afterwards, agrees too
            self.reader.finish_reason = self.parser.finish_reason
        return out

    def _end_calls(self, cut: bool) -> list[Event]:
        out: list[Event] = []
        for index in self._calls.values():
            out.extend(self.parser.close_call(index, cut=cut))
        self._calls.clear()
        return out

    def _apply(self, items: list[ProviderItem]) -> list[Event]:
        out: list[Event] = []
        for item in items:
            if isinstance(item, ProviderDelta):
                if not item.text:
                    continue
                if item.kind == "reasoning":
                    out.extend(self.parser.feed_reasoning(item.text))
                else:
                    out.extend(self.parser.feed(item.text))
            elif isinstance(item, ProviderCall):
                out.extend(self._call(item))
            elif isinstance(item, ProviderMeta):
                self.meta = item
            elif isinstance(item, ProviderDone):
                out.extend(self._end_calls(cut=item.finish_reason == "length"))
                self.upstream_done = item
        return out

    def _call(self, item: ProviderCall) -> list[Event]:
        parser = self.parser
        index = self._calls.get(item.key)
        out: list[Event] = []
        if index is None:
            index, out = parser.open_call(item.name, item.id, item.format)
            self._calls[item.key] = index
        out.extend(parser.call_arguments(index, item.arguments))
        if item.end:
            del self._calls[item.key]
            out.extend(parser.close_call(index, cut=item.cut))
        return out


def make_stream(reader: Reader, parser: StreamParser | None, options: dict[str, Any]) -> ProviderStream:
    if parser is not None and options:
        raise TypeError("pass either parser= or StreamParser options, not both")
    if parser is None:
        from ..parser import build_parser

        parser = build_parser(options.pop("model", None), options.pop("formats", None), **options)
    return ProviderStream(reader, parser)
