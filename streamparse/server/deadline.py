"""Deadlines for slow clients, at the socket, in front of the app (uvicorn has none for a request head or
body: a client sending one byte every few seconds holds its socket forever, and each such socket costs a
file descriptor and a protocol object).

:class:`GuardedH11Protocol` is uvicorn's h11 protocol with two clocks, per connection:

* **head**: a request head (request line and headers) must be complete ``head_timeout`` seconds after the
  connection opens or after the previous response ended (idle keep-alive connections are closed sooner
  by uvicorn's own ``timeout_keep_alive``). Else the connection gets a 408 and is closed.
* **body**: once the head is in, the body must keep arriving at ``body_min_rate`` bytes/s on average over
  each ``body_rate_window`` seconds (checked at the end of each window; a window in which the server
  itself paused reading does not count). Else the connection is closed (the app sees a disconnect).

Nothing is checked while the app works or streams its reply: a client waiting minutes for a long
completion is not slow, it is waiting.

It also gives the app the ASGI ``http.response.trailers`` extension (``trailers.py``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .trailers import EXTENSION, TrailerCycle

__all__ = ["Deadlines", "GuardedH11Protocol", "server_settings"]


@dataclass(frozen=True)
class Deadlines:
    head_timeout: float = 30.0
    body_min_rate: int = 1024
    body_rate_window: float = 10.0


class GuardedH11Protocol(H11Protocol):
    """uvicorn's ``H11Protocol`` plus the head and body deadlines (``deadlines`` is set by ``serve``)."""

    deadlines = Deadlines()
    closed_slow = 0  # connections closed by a deadline, in this process (tests and logs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer: asyncio.TimerHandle | None = None
        self._received = 0  # bytes received on this connection
        self._mark = 0  # _received at the start of the current body window
        self._requests = 0  # request heads completed on this connection

    # -- the clocks ----------------------------------------------------------------------------

    def _arm(self, delay: float, check: Any) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(delay, check)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head_clock(self) -> None:
        self._arm(self.deadlines.head_timeout, lambda n=self._requests: self._head_expired(n))

    def _head_expired(self, requests: int) -> None:
        self._timer = None
        if self._requests != requests or self.transport.is_closing():
            return
        if self.conn.their_state is not h11.IDLE or self.conn.our_state is not h11.IDLE:
            return  # between a head and its response: not ours to cut
        type(self).closed_slow += 1
        if self._received:
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        self.transport.close()

    def _body_clock(self) -> None:
        self._mark = self._received
        self._arm(self.deadlines.body_rate_window, self._body_check)

    def _body_check(self) -> None:
        self._timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.SEND_BODY:
            return
        got = self._received - self._mark
        if self.flow.read_paused or got >= self.deadlines.body_min_rate * self.deadlines.body_rate_window:
            self._body_clock()  # on time, or we stopped reading: a fresh window
            return
        type(self).closed_slow += 1
        self.transport.close()  # the app's receive() reports a disconnect

    # -- uvicorn's hooks -----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_clock()

    def data_received(self, data: bytes) -> None:
        self._received += len(data)
        super().data_received(data)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and self.cycle is not None:  # a new head came in
            self._requests += 1
            # Its app task has not run yet: the cycle it will send through can still gain trailers.
            self.cycle.__class__ = TrailerCycle
            self.cycle.scope.setdefault("extensions", {})[EXTENSION] = {}
            if self.conn.their_state is h11.SEND_BODY:
                self._body_clock()
            else:
                self._disarm()
        elif self._timer is not None and self.conn.their_state is h11.DONE:
            self._disarm()  # the body is complete

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._head_clock()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def server_settings(options: Any) -> dict[str, Any]:
    """uvicorn settings for ``options`` (a ``ServerOptions``): the guarded protocol, its deadlines set."""
    GuardedH11Protocol.deadlines = Deadlines(options.head_timeout, options.body_min_rate, options.body_rate_window)
    return {"http": GuardedH11Protocol, "timeout_keep_alive": 5}
