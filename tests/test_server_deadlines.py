"""Slow clients against ``streamparse serve`` (its own process, on 127.0.0.1): 300 connections sending their
request head one byte a second do not stop normal requests and are all closed by the head deadline; slow
bodies are closed by the minimum body rate; a client waiting for a slow reply is never cut. Every loop is
bounded and stops by itself."""

from __future__ import annotations

import asyncio
import select
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from loopback import ServerThread
from serve_process import ServeProcess
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

HEAD_TIMEOUT = 3.0
WINDOW = 2.0
FLAGS = ("--head-timeout", str(HEAD_TIMEOUT), "--body-min-rate", "200", "--body-rate-window", str(WINDOW))
CHAT = b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'


async def _reply(request: Request) -> Response:
    await request.body()
    if "x-slow" in request.headers:
        await asyncio.sleep(float(request.headers["x-slow"]))
    message = {"role": "assistant", "content": "ok"}
    return JSONResponse({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                         "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})  # fmt: skip


@pytest.fixture(scope="module")
def served() -> Iterator[ServeProcess]:
    upstream = ServerThread(Starlette(routes=[Route("/v1/chat/completions", _reply, methods=["POST"])]))
    with upstream, ServeProcess(f"http://127.0.0.1:{upstream.port}/v1", *FLAGS) as srv:
        yield srv


def _chat(port: int, **headers: str) -> int:
    headers = {"content-type": "application/json", **headers}
    resp = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", content=CHAT, headers=headers, timeout=30)
    return resp.status_code


class Trickle:
    """``count`` connections that send ``first`` and then one byte a second; which ones the server closed."""

    def __init__(self, port: int, count: int, first: bytes) -> None:
        self.socks = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]
        for s in self.socks:
            s.sendall(first)
            s.setblocking(False)
        self.closed: set[socket.socket] = set()

    def _poll(self) -> None:
        readable, _, _ = select.select([s for s in self.socks if s not in self.closed], [], [], 0)
        for s in readable:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data or data.startswith(b"HTTP/1.1 408"):  # a 408 comes right before the close
                self.closed.add(s)

    def tick(self) -> None:
        for s in self.socks:
            if s not in self.closed:
                try:
                    s.send(b"x")
                except OSError:
                    self.closed.add(s)
        self._poll()

    def run(self, seconds: float, during: list[int] | None = None, port: int = 0) -> None:
        """Trickle for up to ``seconds`` (stopping once all are closed); one normal request per second."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and len(self.closed) < len(self.socks):
            self.tick()
            if during is not None:
                during.append(_chat(port))
            time.sleep(1.0)
        self._poll()

    def close(self) -> None:
        for s in self.socks:
            s.close()


def test_300_slow_heads_leave_normal_requests_alone_and_are_all_closed_by_the_deadline(served: ServeProcess) -> None:
    trickle = Trickle(served.port, 300, b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nx-a: ")
    try:
        during: list[int] = []
        trickle.run(HEAD_TIMEOUT + 6, during, served.port)
        assert during and set(during) == {200}  # answered while the 300 were connected
        assert len(trickle.closed) == 300
    finally:
        trickle.close()
    assert _chat(served.port) == 200


def test_a_connection_that_sends_nothing_is_closed_by_the_head_deadline(served: ServeProcess) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=HEAD_TIMEOUT + 5) as s:
        assert s.recv(100) == b""  # closed by the server (no bytes: no 408 for a silent client)


def test_slow_bodies_are_closed_by_the_minimum_rate(served: ServeProcess) -> None:
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        b"content-length: 100000\r\n\r\n{"
    )
    trickle = Trickle(served.port, 50, head)
    try:
        during: list[int] = []
        trickle.run(2 * WINDOW + 6, during, served.port)
        assert during and set(during) == {200}
        assert len(trickle.closed) == 50
    finally:
        trickle.close()


def test_a_client_waiting_for_a_slow_reply_is_not_cut(served: ServeProcess) -> None:
    assert _chat(served.port, **{"x-slow": str(HEAD_TIMEOUT + 2 * WINDOW)}) == 200


def test_a_keep_alive_connection_gets_a_new_head_deadline_per_request(served: ServeProcess) -> None:
    with httpx.Client(timeout=30) as client:  # one connection, reused
        for _ in range(3):
            url = f"http://127.0.0.1:{served.port}/v1/chat/completions"
            assert client.post(url, content=CHAT, headers={"content-type": "application/json"}).status_code == 200
            time.sleep(1.0)
