"""An OpenAI-compatible proxy that turns tool calls written in the model's text into structured
``tool_calls``: put it in front of any server that leaves them in ``content`` (llama.cpp without
``--jinja``, Ollama ``/v1`` with an unknown template, vLLM without a tool parser, LM Studio, ...).

``POST /v1/chat/completions`` is rewritten: the request goes upstream unchanged (byte for byte, so no
``stream_options`` or other field is added), the reply's ``content`` runs through a
:class:`~streamparse.StreamParser` chosen from the request's ``model`` (``StreamParser.for_model``; the
server's ``preset``/``formats`` win) and validated against the request's ``tools``. Streaming replies are
parsed incrementally: text and reasoning flow on as they arrive, each call is sent as a structured
``delta.tool_calls`` entry once it is complete and valid (fail closed: a candidate rejected later never
reaches the client). Replies that already carry structured ``tool_calls`` pass through untouched, as do
errors (same status and body) and every other ``/v1/*`` route.

The upstream URL is the base URL an ``openai`` client would use (``http://127.0.0.1:8080/v1``); a bare
``http://host:port`` gets ``/v1`` appended. ``/v1/X`` on the proxy maps to ``{upstream}/X``.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from .events import Event, ParseResult
from .parser import StreamParser, build_parser
from .providers.openai_writer import SSE_DONE, OpenAIChunkWriter, to_sse
from .providers.sse import SSEDecoder, encode_sse

__all__ = ["create_app"]

log = logging.getLogger("streamparse.server")

# RFC 9110 7.6.1 hop-by-hop fields, plus the ones the proxy recomputes for the body it sends.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
DEFAULT_TIMEOUT = httpx.Timeout(600.0, connect=10.0)


def _request_headers(headers: Mapping[str, str], *, drop: Sequence[str] = ()) -> dict[str, str]:
    skip = _HOP_BY_HOP.union(drop)
    return {k: v for k, v in headers.items() if k.lower() not in skip}


def _response_headers(headers: httpx.Headers, *, decoded: bool) -> dict[str, str]:
    # A body that httpx decoded (gzip -> plain) must not keep its content-encoding.
    drop = ("content-encoding",) if decoded else ()
    return _request_headers(headers, drop=drop)


def _upstream_base(upstream: str) -> str:
    base = upstream.rstrip("/")
    if urlsplit(base).path in ("", "/"):
        base += "/v1"
    return base


def _error(status: int, message: str, etype: str = "upstream_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": etype, "code": status}}, status_code=status)


class _ClosingStream(StreamingResponse):
    """A streaming response that always closes its body generator, however the response ends.

    Starlette stops iterating on a client disconnect (cancellation) or a failed send, but leaves a
    generator suspended at a ``yield`` for the garbage collector; the proxy's generators own an open
    upstream response, which must be closed now so the upstream stops generating."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()


class _ChatStream:
    """Rewrites one upstream SSE stream: ``on_event(event, data) -> bytes`` to send on."""

    def __init__(self, parser: StreamParser, model: str | None) -> None:
        self.parser = parser
        self.model = model
        self.writer: OpenAIChunkWriter | None = None
        self.passthrough = False  # the upstream structured its calls itself: relay the rest as is
        self.finished = False
        self.saw_done = False

    def _writer(self, payload: Mapping[str, Any]) -> OpenAIChunkWriter:
        if self.writer is None:
            created = payload.get("created")
            fp = payload.get("system_fingerprint")
            self.writer = OpenAIChunkWriter(
                str(payload.get("model") or self.model or "unknown"),
                id=payload.get("id") if isinstance(payload.get("id"), str) else None,
                created=created if isinstance(created, int) else None,
                system_fingerprint=fp if isinstance(fp, str) else None,
            )
        return self.writer

    def _write(self, events: list[Event], payload: Mapping[str, Any] | None = None) -> bytes:
        writer = self._writer(payload or {})
        return b"".join(to_sse(c) for c in writer.write(events))

    def _finish(self, payload: Mapping[str, Any], reason: str | None, usage: Any) -> bytes:
        """Flush the parser and send the last chunk (``finish_reason``; usage only if upstream sent it)."""
        self.finished = True
        out = self._write(self.parser.close(), payload)
        assert self.writer is not None
        chunks = self.writer.finish(reason, usage=usage if isinstance(usage, dict) else None)
        return out + b"".join(to_sse(c) for c in chunks)

    def on_event(self, event: str, data: str) -> bytes:
        if data.strip() == "[DONE]":
            self.saw_done = True
            out = b"" if self.finished or self.passthrough else self._finish({}, None, None)
            return out + SSE_DONE
        try:
            payload = json.loads(data)
        except ValueError:
            payload = None
        if self.passthrough or self.finished or event != "message" or not isinstance(payload, dict):
            # Usage-only chunks after the finish, error events, anything we do not understand: as sent.
            return encode_sse(data, event=None if event == "message" else event)
        choices = payload.get("choices")
        choice = None
        if isinstance(choices, list):
            choice = next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)
        if choice is None:
            return encode_sse(data)  # a usage chunk, an error object, another choice
        delta: dict[str, Any] = choice["delta"] if isinstance(choice.get("delta"), dict) else {}
        if delta.get("tool_calls"):
            # Structured calls from upstream: flush what the parser holds, then relay everything untouched.
            self.passthrough = True
            return self._write(self.parser.close(), payload) + encode_sse(data)
        out = self._write([], payload)  # the role chunk, once
        writer = self._writer(payload)
        for key in ("reasoning_content", "reasoning"):
            reasoning = delta.get(key)
            if isinstance(reasoning, str) and reasoning:
                out += to_sse(writer.chunk({key: reasoning}))
                break
        content = delta.get("content")
        if isinstance(content, str) and content:
            out += self._write(self.parser.feed(content), payload)
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason:
            out += self._finish(payload, reason, payload.get("usage"))
        return out

    def on_end(self) -> bytes:
        """The upstream body ended: finish if it never said so (a cut stream still ends cleanly)."""
        if self.finished or self.passthrough or self.saw_done:
            return b""
        return self._finish({}, None, None)


class _Proxy:
    def __init__(
        self,
        upstream: str,
        preset: str | None,
        formats: Sequence[str] | str | None,
        transport: httpx.AsyncBaseTransport | None,
        timeout: httpx.Timeout | float | None,
    ) -> None:
        self.base = _upstream_base(upstream)
        self.preset = preset
        self.formats = formats
        self.transport = transport
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self._client: httpx.AsyncClient | None = None
        if formats is not None:
            build_parser(None, formats)  # an unknown format name fails now, not on the first request

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(transport=self.transport, timeout=self.timeout)
        return self._client

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            if self._client is not None:
                await self._client.aclose()
                self._client = None

    def _url(self, request: Request) -> str:
        rest = request.url.path[len("/v1") :]
        query = request.url.query
        return self.base + rest + (f"?{query}" if query else "")

    def make_parser(self, model: Any, tools: Any) -> StreamParser:
        # A random prefix keeps call ids unique across responses too (clients key tool results by id).
        options: dict[str, Any] = {"id_prefix": f"call_{uuid.uuid4().hex[:12]}_"}
        name = self.preset or (model if isinstance(model, str) else None)
        if tools:
            try:
                return build_parser(name, self.formats, tools=tools, **options)
            except Exception as exc:  # a tool list the validator cannot use: parse, but do not validate
                log.warning("request tools not usable for validation (%s); calls are not validated", exc)
        return build_parser(name, self.formats, **options)

    async def _send(self, method: str, url: str, headers: dict[str, str], body: bytes) -> httpx.Response:
        req = self.client.build_request(method, url, headers=headers, content=body or None)
        return await self.client.send(req, stream=True)

    async def chat(self, request: Request) -> Response:
        body = await request.body()
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if not isinstance(payload, dict):
            return await self.passthrough(request, body)
        headers = _request_headers(request.headers, drop=("accept-encoding",))
        try:
            resp = await self._send("POST", self._url(request), headers, body)
        except httpx.HTTPError as exc:
            return _error(502, f"upstream request failed: {exc!r}")
        ctype = resp.headers.get("content-type", "")
        if resp.status_code >= 400 or not (
            "text/event-stream" in ctype or "json" in ctype
        ):  # errors and anything unexpected: as the upstream sent it
            try:
                data = await resp.aread()
            finally:
                await resp.aclose()
            return Response(data, resp.status_code, headers=_response_headers(resp.headers, decoded=True))
        parser = self.make_parser(payload.get("model"), payload.get("tools"))
        if "text/event-stream" in ctype:
            return _ClosingStream(
                self._stream(resp, _ChatStream(parser, payload.get("model"))),
                status_code=resp.status_code,
                media_type="text/event-stream",
                headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
            )
        try:
            data = await resp.aread()
        finally:
            await resp.aclose()
        try:
            completion = json.loads(data)
        except ValueError:
            return Response(data, resp.status_code, headers=_response_headers(resp.headers, decoded=True))
        return JSONResponse(rewrite_completion(completion, parser), status_code=resp.status_code)

    async def _stream(self, resp: httpx.Response, chat: _ChatStream) -> AsyncIterator[bytes]:
        sse = SSEDecoder()
        try:
            async for raw in resp.aiter_bytes():
                out = b"".join(chat.on_event(ev.event, ev.data) for ev in sse.feed(raw))
                if out:
                    yield out
            out = b"".join(chat.on_event(ev.event, ev.data) for ev in sse.close(dispatch_incomplete=True))
            out += chat.on_end()
            if out:
                yield out
        except httpx.HTTPError as exc:  # the upstream connection broke mid-stream: end our stream cleanly
            log.warning("upstream stream failed: %r", exc)
            out = chat.on_end()
            if out:
                yield out
        finally:
            await resp.aclose()

    async def passthrough(self, request: Request, body: bytes | None = None) -> Response:
        if body is None:
            body = await request.body()
        try:
            resp = await self._send(request.method, self._url(request), _request_headers(request.headers), body)
        except httpx.HTTPError as exc:
            return _error(502, f"upstream request failed: {exc!r}")

        async def relay() -> AsyncIterator[bytes]:
            try:
                async for piece in resp.aiter_raw():
                    yield piece
            finally:
                await resp.aclose()

        return _ClosingStream(
            relay(), status_code=resp.status_code, headers=_response_headers(resp.headers, decoded=False)
        )


def rewrite_completion(completion: Any, parser: StreamParser) -> Any:
    """Parse a non-streaming ``chat.completion``'s ``message.content`` in place: visible text, reasoning
    (appended to any the upstream split off) and ``tool_calls``. Replies that already have structured
    ``tool_calls``, or no text, are returned unchanged."""
    try:
        choice = completion["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        return completion
    if not isinstance(message, dict) or message.get("tool_calls"):
        return completion
    content = message.get("content")
    if not isinstance(content, str) or not content:
        return completion
    events = parser.feed(content) + parser.close()
    result = ParseResult.from_events(events, parser.finish_reason)
    message["content"] = result.text or (None if result.tool_calls else "")
    if result.reasoning:
        key = "reasoning" if "reasoning" in message and "reasoning_content" not in message else "reasoning_content"
        before = message.get(key)
        message[key] = f"{before}\n{result.reasoning}" if isinstance(before, str) and before else result.reasoning
    if result.tool_calls:
        message["tool_calls"] = [c.to_openai() for c in result.tool_calls]
        choice["finish_reason"] = "tool_calls"
    return completion


def create_app(
    upstream: str,
    *,
    preset: str | None = None,
    formats: Sequence[str] | str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: httpx.Timeout | float | None = None,
) -> Starlette:
    """The proxy app. ``preset``: a model id whose parser preset every request uses (default: each
    request's ``model``); ``formats``: explicit format names (win over any preset); ``transport``: an
    httpx transport for the upstream (tests); ``timeout``: upstream timeout (default 600 s, 10 s connect)."""
    proxy = _Proxy(upstream, preset, formats, transport, timeout)
    routes = [
        Route("/v1/chat/completions", proxy.chat, methods=["POST"]),
        Route("/v1/{path:path}", proxy.passthrough, methods=_METHODS),
    ]
    app = Starlette(routes=routes, lifespan=proxy.lifespan)
    app.state.proxy = proxy
    return app
