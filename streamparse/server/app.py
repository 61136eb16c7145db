"""An OpenAI-compatible proxy that turns tool calls written in the model's text into structured
``tool_calls``: put it in front of any server that leaves them in ``content`` (llama.cpp without
``--jinja``, Ollama ``/v1`` with an unknown template, vLLM without a tool parser, LM Studio, ...).

``POST /v1/chat/completions`` is rewritten: the request goes upstream unchanged (byte for byte, unless
``tools_in_prompt``), the reply's ``content`` runs through a :class:`~streamparse.StreamParser` chosen
from the request (its ``model``'s preset, its ``chat_template_kwargs``; the server's ``preset``/
``formats`` win) and validated against the request's ``tools`` (see ``stream.py`` for the wire rules).
Replies that already carry structured ``tool_calls`` pass through, as do upstream errors (same status
and body) and every other ``/v1/*`` route; ``GET /health`` and ``GET /metrics`` are the proxy's own.

Resources are bounded: the request body (413, drained so the client sees it), the JSON and tools of a
chat request (``limits.py``), an upstream SSE line, a call's size, the upstream pool (sized for thousands
of streams, with a pool timeout: 503), and a request whose client leaves while it waits for a connection
is never sent. Before any of that, ``guard.py`` checks the Host, the API key and the content type; slow
clients are cut at the socket (``deadline.py``). Paths are confined under ``/v1`` (``paths.py``). No
traceback reaches a client: anything unexpected is logged and answered with an OpenAI error object.
docs/deploying.md has the whole list.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import httpx
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Router
from starlette.types import Message, Receive, Scope, Send

from ..events import ToolCallRejected
from ..parser import StreamParser, build_parser
from ..playground import mount as playground_routes
from ..presets import preset_for
from .guard import OPEN_PATHS, authorized, content_type_problem, host_problem, upstream_headers
from .limits import BodyRefused, ChatBody, in_pieces, parse_chat_body
from .logs import setup_logging
from .metrics import Metrics
from .options import ServerOptions, env_options, upstream_base
from .paths import BadPath, confined_path
from .relay import RETRY_HEADER, Relay, Retry
from .retry import complete_retries, correction_messages, retry_body
from .stream import CallRejectedError, ChatRewriter, error_object, id_mapper
from .toolprompt import prompt_format, rewrite_for_prompted_tools

__all__ = ["create_app", "app_from_env", "HOP_HEADER", "ProxyApp"]

log = logging.getLogger("streamparse.server")

HOP_HEADER = "x-streamparse-hop"  # sent upstream; a request coming back with our own id is a loop
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
_OWN_RESPONSE_HEADERS = ("date", "server")  # uvicorn writes its own
_SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no"}


def _headers(headers: Mapping[str, str], *, drop: Sequence[str] = ()) -> dict[str, str]:
    skip = _HOP_BY_HOP.union(drop)
    return {k: v for k, v in headers.items() if k.lower() not in skip}


def _error(
    status: int, message: str, etype: str = "upstream_error", code: str | None = None, **headers: str
) -> JSONResponse:
    body = error_object(message, etype, code or status)
    return JSONResponse(body, status_code=status, headers={k.replace("_", "-"): v for k, v in headers.items()})


def _no_cors(headers: dict[str, str]) -> dict[str, str]:
    """Without the upstream's CORS grants (vLLM allows any origin by default): relayed, they would let
    any web page the user opens read replies from the proxy with the user's network position."""
    return {k: v for k, v in headers.items() if not k.lower().startswith("access-control-")}


PLAYGROUND = "/playground"


class ProxyApp:
    """The ASGI application (see the module docstring); ``create_app`` builds it."""

    def __init__(
        self,
        upstream: str,
        options: ServerOptions,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: httpx.Timeout | float | None = None,
    ) -> None:
        self.base = upstream_base(upstream)
        self.options = options
        self.transport = transport
        self.timeout = (
            timeout
            if timeout is not None
            else httpx.Timeout(
                connect=options.connect_timeout,
                read=options.read_timeout,
                write=options.write_timeout,
                pool=options.pool_timeout,
            )
        )
        self.metrics = Metrics()
        self.hop_id = uuid.uuid4().hex
        self._client: httpx.AsyncClient | None = None
        # ``serve --playground``: the page and its replay API under PLAYGROUND, answered before any proxying.
        self.playground = Router(routes=playground_routes(PLAYGROUND)) if options.playground else None
        if options.formats is not None:
            build_parser(None, options.formats)  # an unknown format name fails now, not on the first request
        if options.chat_template is not None:  # derive once at start-up: a template that cannot be read says so now
            StreamParser.for_model("", chat_template=options.chat_template, template_first=True)

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            limits = httpx.Limits(
                max_connections=self.options.max_connections,
                max_keepalive_connections=self.options.max_keepalive,
                keepalive_expiry=30.0,
            )
            self._client = httpx.AsyncClient(transport=self.transport, timeout=self.timeout, limits=limits)
        return self._client

    # -- ASGI ------------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        refused = self._refused(Request(scope, receive))
        if refused is not None:
            await refused(scope, receive, send)
            return
        if self.playground is not None and (scope["path"] == PLAYGROUND or scope["path"].startswith(PLAYGROUND + "/")):
            await self.playground(scope, receive, send)
            return
        try:
            response = await self._route(Request(scope, receive))
        except Exception:
            log.exception("unexpected error while handling %s %s", scope.get("method"), scope.get("path"))
            response = _error(500, "internal error in the proxy", "internal_error")
        if response is None:  # the client left before there was anything to answer
            return
        try:
            await response(scope, receive, send)
        except Exception:
            log.debug("response not delivered", exc_info=True)

    def _refused(self, request: Request) -> Response | None:
        """The origin, key and content-type checks (``guard.py``): an error response, or None."""
        opts, headers, path = self.options, request.headers, request.scope["path"]
        if path in OPEN_PATHS:  # probes (which use the pod's address as Host) and scrapers: counters only
            return None
        problem = host_problem(headers, opts.allowed_hosts)
        playground = self.playground is not None and (path == PLAYGROUND or path.startswith(PLAYGROUND + "/"))
        if problem is None and not playground and not authorized(headers, opts.api_keys):
            self.metrics.inc("refused_total", "401")
            return _error(
                401, "a valid API key is required (Authorization: Bearer <key>)", "invalid_request_error",
                "invalid_api_key", www_authenticate="Bearer",
            )  # fmt: skip
        if problem is None and not playground:
            problem = content_type_problem(request.method, headers)
        if problem is None:
            return None
        self.metrics.inc("refused_total", str(problem[0]))
        return _error(problem[0], problem[1], "invalid_request_error", connection="close")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message: Message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._client is not None:
                    await self._client.aclose()
                    self._client = None
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _route(self, request: Request) -> Response | Relay | None:
        path, method = request.scope["path"], request.method
        if path == "/health" and method in ("GET", "HEAD"):
            return JSONResponse({"status": "ok", "streams_open": self.metrics.streams_open})
        if path == "/metrics" and method == "GET":
            return PlainTextResponse(self.metrics.render(), media_type="text/plain; version=0.0.4")
        raw = request.scope.get("raw_path") or path.encode()
        try:
            rest = confined_path(raw.decode("latin-1"))
        except BadPath as exc:
            status = 404 if "not under" in str(exc) else 400
            self.metrics.inc("refused_total", str(status))
            return _error(status, str(exc), "invalid_request_error")
        if method == "OPTIONS":  # a CORS preflight: never granted (see _no_cors), never sent upstream
            self.metrics.inc("refused_total", "405")
            return _error(405, "the proxy answers no CORS preflight", "invalid_request_error", allow="GET, POST")
        if request.headers.get(HOP_HEADER) == self.hop_id:
            self.metrics.inc("refused_total", "508")
            return _error(508, "the upstream URL points back at this proxy", "invalid_request_error")
        query = request.scope.get("query_string", b"").decode("latin-1")
        url = self.base + rest + (f"?{query}" if query else "")
        chat = rest == "/chat/completions" and method == "POST"
        self.metrics.inc("requests_total", "chat" if chat else "other")
        body = await self._body(request)
        if not isinstance(body, bytearray):
            return body
        if chat:
            return await self.chat(request, url, body)
        return await self.passthrough(request, url, body)

    async def _body(self, request: Request) -> bytearray | Response | None:
        """The body, in one buffer (preallocated when its length is declared: no copies). Over the limit:
        413, after reading and discarding up to ``max_drain_bytes`` so that the client, which is still
        sending, reads the 413 rather than a connection reset (beyond that, the connection is closed)."""
        limit = self.options.max_body_bytes
        declared = request.headers.get("content-length", "")
        size = int(declared) if declared.isdigit() else None
        buf = bytearray(size) if size is not None and size <= limit else bytearray()
        got = 0
        if size is not None and size > limit and "100-continue" in request.headers.get("expect", "").lower():
            return await self._too_big(None, 0)  # the client waits for our go before sending: it never comes
        try:
            stream = request.stream()
            async for piece in stream:
                if got + len(piece) > limit or (size is not None and size > limit):
                    return await self._too_big(stream, got + len(piece))
                if size is not None and got + len(piece) <= size:
                    buf[got : got + len(piece)] = piece
                else:
                    buf += piece
                got += len(piece)
        except ClientDisconnect:
            self.metrics.inc("client_gone_total", "body")
            return None
        if size is not None and got < size:
            del buf[got:]
        return buf  # a bytearray: converting it to bytes would hold the body twice

    async def _too_big(self, stream: Any | None, drained: int) -> Response:
        self.metrics.inc("refused_total", "413")
        limit, bound = self.options.max_body_bytes, self.options.max_drain_bytes
        if bound > 0 and stream is not None:
            with anyio.move_on_after(self.options.body_rate_window):
                async for piece in stream:
                    drained += len(piece)
                    if drained > bound:
                        break
        message = f"the request body is larger than {limit} bytes"
        return _error(413, message, "invalid_request_error", connection="close")

    # -- upstream --------------------------------------------------------------------------------------

    async def _send(
        self, request: Request, method: str, url: str, headers: dict[str, str], body: bytes | bytearray
    ) -> httpx.Response | Response | None:
        """Send upstream unless the client leaves first (also while waiting for a pooled connection)."""
        headers = dict(upstream_headers(headers, self.options.api_keys, self.options.upstream_api_key))
        headers[HOP_HEADER] = self.hop_id
        if body:  # sent in pieces from the buffer: httpx would first copy a bytearray whole into bytes
            headers["content-length"] = str(len(body))
        try:
            req = self.client.build_request(method, url, headers=headers, content=in_pieces(body) if body else None)
        except (httpx.HTTPError, ValueError, TypeError) as exc:
            return _error(400, f"the request cannot be forwarded: {exc}", "invalid_request_error")
        resp: httpx.Response | None = None
        failure: Exception | None = None
        gone = False
        async with anyio.create_task_group() as tg:

            async def watch() -> None:
                nonlocal gone
                while True:
                    message = await request.receive()
                    if message["type"] == "http.disconnect":
                        gone = True
                        tg.cancel_scope.cancel()
                        return

            tg.start_soon(watch)
            await anyio.lowlevel.checkpoint()  # a disconnect that already happened is seen before sending
            if not gone:
                try:
                    resp = await self.client.send(req, stream=True)
                except Exception as exc:
                    failure = exc
            tg.cancel_scope.cancel()
        if gone:
            self.metrics.inc("client_gone_total", "before_upstream")
            if resp is not None:
                await resp.aclose()
            return None
        if isinstance(failure, httpx.PoolTimeout):
            self.metrics.inc("upstream_errors_total", "pool_timeout")
            return _error(503, "no upstream connection free within the pool timeout", "upstream_busy")
        if failure is not None:
            self.metrics.inc("upstream_errors_total", "request")
            log.warning("upstream request failed: %r", failure)
            return _error(502, f"upstream request failed: {type(failure).__name__}: {failure}")
        return resp

    async def _read(self, resp: httpx.Response) -> bytes:
        try:
            return await resp.aread()
        finally:
            await resp.aclose()

    def _reply_headers(self, resp: httpx.Response, *, keep_type: bool = False) -> dict[str, str]:
        # x-request-id, rate-limit and processing-time headers reach the client; the body is re-encoded.
        drop = ("content-encoding", *_OWN_RESPONSE_HEADERS, *(() if keep_type else ("content-type",)))
        return _no_cors(_headers(resp.headers, drop=drop))

    # -- routes ----------------------------------------------------------------------------------------

    def make_parser(self, payload: ChatBody) -> tuple[StreamParser, str | None]:
        """The request's parser, and the format the prompt teaches in ``tools_in_prompt`` mode."""
        opts = self.options
        model = payload.get("model")
        name = opts.preset or (model if isinstance(model, str) else None)
        # A random prefix keeps call ids unique across responses too (clients key tool results by id).
        options: dict[str, Any] = {
            "id_prefix": f"call_{uuid.uuid4().hex[:12]}_",
            "max_call_chars": opts.max_call_chars,
            "separators": opts.separators,
        }
        kwargs = payload.get("chat_template_kwargs")
        if isinstance(kwargs, dict):  # enable_thinking / thinking decide where the reply starts
            options["chat_template_kwargs"] = kwargs
        formats = opts.formats
        if opts.chat_template is not None and formats is None:  # serve --chat-template: see for_model
            options.update(chat_template=opts.chat_template, template_first=opts.chat_template_first)
            name = name or "unknown-model"
        tools = payload.tools
        if payload.tools_problem is not None:  # a tool list the validator cannot use: parse, but do not validate
            log.warning("request tools not usable for validation (%s); calls are not validated", payload.tools_problem)
        taught = None
        if opts.tools_in_prompt and tools and payload.get("tool_choice") != "none":
            known = formats if formats is not None else (preset_for(name).formats if name else "auto")
            taught = prompt_format(known)
            if not isinstance(known, str) and taught not in known:
                formats = [*known, taught]
        if tools:
            try:
                return build_parser(name, formats, tools=tools, **options), taught
            except Exception as exc:  # a tool list the validator cannot use: parse, but do not validate
                log.warning("request tools not usable for validation (%s); calls are not validated", exc)
        return build_parser(name, formats, **options), taught

    def _call_ids(self, parser: StreamParser) -> Callable[[str], str] | None:
        style = getattr(parser.preset, "id_style", "openai")
        if "mistral" in parser.formats and self.options.formats is not None:
            style = "alnum9"
        return id_mapper(style)

    async def chat(self, request: Request, url: str, body: bytearray) -> Response | Relay | None:
        try:
            payload = parse_chat_body(body, self.options)  # the body stays as sent; tools stay bytes
        except BodyRefused as exc:
            self.metrics.inc("refused_total", str(exc.status))
            return _error(exc.status, str(exc), "invalid_request_error", exc.code)
        parser, taught = self.make_parser(payload)
        if taught is not None:
            body = bytearray(
                json.dumps(rewrite_for_prompted_tools(payload.payload(), taught), ensure_ascii=False).encode()
            )
        headers = _headers(request.headers, drop=("accept-encoding",))
        resp = await self._send(request, "POST", url, headers, body)
        if not isinstance(resp, httpx.Response):
            return resp
        ctype = resp.headers.get("content-type", "")
        if resp.status_code >= 400 or not ("text/event-stream" in ctype or "json" in ctype):
            data = await self._read(resp)  # errors and anything unexpected: as the upstream sent it
            return Response(data, resp.status_code, headers=self._reply_headers(resp, keep_type=True))
        model = payload.get("model")
        rewriter = ChatRewriter(
            parser, model if isinstance(model, str) else None, self.options, self.metrics, self._call_ids(parser)
        )
        again = self._retry(url, headers, payload, taught)
        if "text/event-stream" in ctype:
            headers = {**self._reply_headers(resp), **_SSE_HEADERS}
            return Relay(self.metrics, resp, rewriter, headers, self.options.ping_interval, again)
        try:
            data = await self._read(resp)
        except httpx.HTTPError as exc:
            self.metrics.inc("upstream_errors_total", "broken")
            return _error(502, f"the upstream reply was cut: {type(exc).__name__}")
        try:
            completion = rewriter.complete(json.loads(data))
            await complete_retries(rewriter, completion, again)
        except ValueError:
            return Response(data, resp.status_code, headers=self._reply_headers(resp, keep_type=True))
        except CallRejectedError as exc:
            return _error(502, str(exc), "tool_call_rejected")
        headers = self._reply_headers(resp)
        if self.options.on_reject == "retry":
            headers[RETRY_HEADER] = str(rewriter.retries)
        return JSONResponse(completion, status_code=resp.status_code, headers=headers)

    def _retry(self, url: str, headers: dict[str, str], payload: ChatBody, taught: str | None) -> Retry:
        """``on_reject="retry"``: the request again, with the rejected call and its validation error as a
        tool message appended (each attempt adds its own pair, spliced into the body as sent); the reply's
        parser comes with it."""
        added: list[dict[str, Any]] = []

        async def again(ev: ToolCallRejected) -> tuple[httpx.Response, StreamParser] | str:
            added.extend(correction_messages(ev))
            body = retry_body(payload, added, taught)
            resp = await self._send_plain(url, dict(headers), body)
            if isinstance(resp, str):
                return resp
            ctype = resp.headers.get("content-type", "")
            if resp.status_code >= 400 or not ("text/event-stream" in ctype or "json" in ctype):
                await resp.aclose()
                return f"the upstream answered the retry with {resp.status_code} {ctype or 'untyped'}"
            return resp, self.make_parser(payload)[0]

        return again

    async def _send_plain(self, url: str, headers: dict[str, str], body: bytes) -> httpx.Response | str:
        headers = upstream_headers(headers, self.options.api_keys, self.options.upstream_api_key)
        headers[HOP_HEADER] = self.hop_id
        try:
            return await self.client.send(
                self.client.build_request("POST", url, headers=headers, content=body), stream=True
            )
        except Exception as exc:  # the retry is best effort: the rejection's note is sent instead
            self.metrics.inc("upstream_errors_total", "retry")
            return f"{type(exc).__name__}: {exc}"

    async def passthrough(self, request: Request, url: str, body: bytearray) -> Response | Relay | None:
        resp = await self._send(request, request.method, url, _headers(request.headers), body)
        if not isinstance(resp, httpx.Response):
            return resp
        headers = _no_cors(_headers(resp.headers, drop=_OWN_RESPONSE_HEADERS))
        if "content-length" in resp.headers:  # relayed raw (still encoded): the length holds
            headers["content-length"] = resp.headers["content-length"]
        return Relay(self.metrics, resp, None, headers, 0.0)


def create_app(
    upstream: str,
    *,
    options: ServerOptions | None = None,
    preset: str | None = None,
    formats: Sequence[str] | str | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout: httpx.Timeout | float | None = None,
    **settings: Any,
) -> ProxyApp:
    """The proxy app. ``options`` (or keyword ``settings`` naming its fields) configure it; ``preset``: a
    model id whose parser preset every request uses (default: each request's ``model``); ``formats``:
    explicit format names (win over any preset); ``transport``: an httpx transport for the upstream
    (tests); ``timeout``: an httpx timeout replacing the ``*_timeout`` options. Raises ``ValueError`` for
    an unusable upstream URL or format name."""
    opts = options or ServerOptions()
    if preset is not None:
        settings["preset"] = preset
    if formats is not None:
        settings["formats"] = formats
    if settings:
        opts = dataclasses.replace(opts, **settings)
    return ProxyApp(upstream, opts, transport, timeout)


def app_from_env() -> ProxyApp:
    """The app of one uvicorn worker process (``streamparse serve --workers N``), from its environment."""
    from .deadline import server_settings

    upstream, options, level = env_options()
    setup_logging(level)
    server_settings(options)  # this process's protocol class gets the deadlines
    return create_app(upstream, options=options)
