"""Servers for tests: uvicorn in a daemon thread on a free 127.0.0.1 port, stopped on exit."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn


class ServerThread:
    """``with ServerThread(app) as srv: srv.port``. ``app`` may be set after construction (the port is
    bound first, so an app can be told its own address)."""

    def __init__(self, app: Any = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        self.app = app

    def __enter__(self) -> ServerThread:
        config = uvicorn.Config(self.app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.sock.close()
