"""The ASGI response for a streamed upstream reply (:class:`Relay`), and the upstream asked again when a
call is rejected under ``on_reject="retry"``.

Under ``retry`` the number of retries is known only at the end, after the headers went out: where the
server has the ASGI ``http.response.trailers`` extension (``streamparse serve`` does, ``trailers.py``) it is
announced as ``Trailer: x-streamparse-retries`` and sent in the chunked body's trailer section; the last
chunk's ``streamparse_retries`` field says it too, for clients that cannot read trailers."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping

import anyio
import httpx
from starlette.types import Receive, Scope, Send

from ..events import ToolCallRejected
from ..parser import StreamParser
from ..providers.sse import SSELimitError
from .metrics import Metrics
from .stream import ChatRewriter
from .trailers import EXTENSION

__all__ = ["Relay", "Retry", "RETRY_HEADER"]

RETRY_HEADER = "x-streamparse-retries"  # how many times the upstream was asked again

log = logging.getLogger("streamparse.server")

# Ask the upstream again for a rejected call: its reply and the parser for it, or why it could not be made.
Retry = Callable[[ToolCallRejected], Awaitable[tuple[httpx.Response, StreamParser] | str]]


class Relay:
    """The ASGI response for a streamed upstream reply: relays (``rewriter=None``) or rewrites it, sends
    ``: ping`` comments while the client would otherwise hear nothing for ``ping_interval`` seconds, and
    stops reading (closing the upstream response) the moment the client leaves."""

    def __init__(
        self,
        metrics: Metrics,
        resp: httpx.Response,
        rewriter: ChatRewriter | None,
        headers: Mapping[str, str],
        ping_interval: float,
        retry: Retry | None = None,
    ) -> None:
        self.metrics, self.resp, self.rewriter, self.retry = metrics, resp, rewriter, retry
        self.headers = headers
        self.ping_interval = ping_interval
        self.last = time.monotonic()
        self.gone = False
        self.broken = False  # a relayed body was cut: the client's body must be cut too, not completed
        self._send: Send | None = None
        self._lock = anyio.Lock()

    async def _out(self, data: bytes) -> bool:
        assert self._send is not None
        async with self._lock:
            if self.gone:
                return False
            try:
                await self._send({"type": "http.response.body", "body": data, "more_body": True})
            except Exception:  # the client's connection is gone (uvicorn raises OSError subclasses)
                self.gone = True
                return False
            self.last = time.monotonic()
            return True

    async def _watch(self, receive: Receive, scope: anyio.CancelScope) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.gone = True
                self.metrics.inc("client_gone_total", "streaming")
                scope.cancel()
                return

    async def _pings(self) -> None:
        while True:
            wait = self.last + self.ping_interval - time.monotonic()
            if wait > 0:
                await anyio.sleep(wait)
            elif not await self._out(b": ping\n\n"):
                return

    async def _pump(self) -> None:
        rw = self.rewriter
        try:
            while True:
                pieces = self.resp.aiter_raw() if rw is None else self.resp.aiter_bytes()
                async for raw in pieces:
                    data = raw if rw is None else rw.feed(raw)
                    if data and not await self._out(data):
                        return
                    if rw is not None and (rw.done or rw.retry is not None):
                        break
                if rw is None or rw.retry is None:
                    break
                if not await self._again(rw):
                    return
            tail = b"" if rw is None else rw.end()
        except httpx.HTTPError as exc:
            log.warning("upstream reply failed mid-stream: %r", exc)
            what = f"the upstream connection failed mid-reply ({type(exc).__name__})"
            tail = b"" if rw is None else rw.fail(what)
            if rw is None:
                self.broken = True
                self.metrics.inc("upstream_errors_total", "broken")
        except SSELimitError as exc:
            tail = b"" if rw is None else rw.fail(str(exc), "upstream_error", 502)
        except Exception:
            log.exception("unexpected error while relaying a reply")
            tail = b"" if rw is None else rw.fail("internal error in the proxy", "internal_error", 500, count=False)
        if tail:
            await self._out(tail)

    async def _again(self, rw: ChatRewriter) -> bool:
        """Replace the upstream reply by the answer to the rejected call (``rw.retry``); False when the
        stream ended instead (the retry could not be made: the rejection's note ends it)."""
        assert rw.retry is not None
        await self.resp.aclose()
        outcome = "no retry callback" if self.retry is None else await self.retry(rw.retry)
        if isinstance(outcome, str):
            await self._out(rw.give_up_stream(outcome))
            return False
        self.resp, parser = outcome
        rw.restart(parser)
        return True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self._send = send
        metrics = self.metrics
        metrics.streams_open += 1
        try:
            headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in self.headers.items()]
            rw = self.rewriter
            trailers = rw is not None and rw.retries_left > 0 and EXTENSION in scope.get("extensions", {})
            if trailers:
                headers.append((b"trailer", RETRY_HEADER.encode()))
            start = {"type": "http.response.start", "status": self.resp.status_code, "headers": headers}
            await send({**start, "trailers": True} if trailers else start)
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._watch, receive, tg.cancel_scope)
                if self.ping_interval > 0 and self.rewriter is not None:
                    tg.start_soon(self._pings)
                await self._pump()
                tg.cancel_scope.cancel()
            if not self.gone and not self.broken:  # a cut relay ends without its last chunk: the client sees the cut
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                if trailers and rw is not None:
                    retries = [(RETRY_HEADER.encode(), str(rw.retries).encode())]
                    await send({"type": "http.response.trailers", "headers": retries, "more_trailers": False})
        except Exception:  # the client vanished mid-send; nothing more can be said to it
            log.debug("streamed reply ended early", exc_info=True)
        finally:
            metrics.streams_open -= 1
            with anyio.CancelScope(shield=True):
                await self.resp.aclose()
