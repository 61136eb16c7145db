"""The ASGI ``http.response.trailers`` extension for uvicorn's h11 protocol, which has none.

A streamed reply's headers go out before the proxy knows what it will say at the end (how many times the
upstream was asked again, ``--on-reject retry``). HTTP/1.1 has a place for that: the trailer section of a
chunked body. An app that finds ``"http.response.trailers"`` in ``scope["extensions"]`` starts its response
with ``"trailers": True``; its last ``http.response.body`` then does not end the message, the
``http.response.trailers`` message after it does (h11 ``EndOfMessage(headers=...)``).

Trailers exist only in a chunked body: for an HTTP/1.0 client, a ``content-length`` response or a
``HEAD``, the message ends without them (h11 would refuse them, and its connection would be unusable).
"""

from __future__ import annotations

from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import RequestResponseCycle

__all__ = ["TrailerCycle", "EXTENSION"]

EXTENSION = "http.response.trailers"
_NO_BODY = frozenset({204, 304})


class TrailerCycle(RequestResponseCycle):
    """uvicorn's request/response cycle plus trailers. The protocol turns each new cycle into one by
    assigning ``__class__`` before the app runs (uvicorn builds the cycle itself), so the state lives in
    class-level defaults rather than an ``__init__``."""

    _trailers = False  # the app asked for trailers, and the body is chunked: they can be sent
    _asked = False  # the app asked for trailers (it will send the message even when they cannot be)
    _last_body = False  # the app's last body message went out: only its trailers may follow
    _pending: list[tuple[bytes, bytes]] | None = None

    async def send(self, message: Any) -> None:
        kind = message["type"]
        if kind == "http.response.start" and not self.response_started:
            self._asked = bool(message.get("trailers"))
            headers = [(bytes(k).lower(), v) for k, v in message.get("headers", [])]
            self._trailers = (
                self._asked
                and self.scope["http_version"] == "1.1"
                and self.scope["method"] != "HEAD"
                and int(message["status"]) not in _NO_BODY
                and not any(k == b"content-length" for k, _ in headers)
            )
            await super().send(message)
            return
        if not self._asked or self.disconnected or self.response_complete or not self.response_started:
            await super().send(message)
            return
        if kind == "http.response.body" and not self._last_body:
            last = not message.get("more_body", False)
            body = {"type": kind, "body": message.get("body", b""), "more_body": True}
            await super().send(body)  # type: ignore[arg-type]  # the message ends with the trailers
            self._last_body = last
            return
        if kind != "http.response.trailers" or not self._last_body:
            raise RuntimeError(f"unexpected ASGI message {kind!r} for a response with trailers")
        self._pending = [*(self._pending or []), *message.get("headers", [])]
        if not message.get("more_trailers", False):
            await self._end(self._pending if self._trailers else [])

    async def _end(self, trailers: list[tuple[bytes, bytes]]) -> None:
        """uvicorn's end of a response, with the trailer section in the last chunk."""
        if self.flow.write_paused and not self.disconnected:
            await self.flow.drain()
        if self.disconnected:
            return
        self.response_complete = True
        self.message_event.set()
        self.transport.write(self.conn.send(event=h11.EndOfMessage(headers=trailers)) or b"")
        if self.conn.our_state is h11.MUST_CLOSE or not self.keep_alive:
            self.conn.send(event=h11.ConnectionClosed())
            self.transport.close()
        self.on_response()
