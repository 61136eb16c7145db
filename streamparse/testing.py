"""Local stand-ins for tests, examples and the README: real servers on 127.0.0.1, nothing external.

- :class:`FakeOpenAIServer`: an OpenAI-compatible chat server whose replies are canned text, like a server
  that leaves tool calls in ``content`` (llama.cpp without ``--jinja``, vLLM without a tool parser, Ollama's
  ``/v1`` with an unknown template). Standard library only.
- :func:`serve_app`: runs an ASGI app (e.g. the proxy from :func:`streamparse.server.create_app`) with
  uvicorn in a background thread on a free loopback port. Needs the ``cli`` extra.

Both are context managers that stop their server on exit, and their threads are daemons, so a forgotten
server never keeps a process alive.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeOpenAIServer", "serve_app"]

_START_TIMEOUT = 10.0  # seconds a server may take to start listening before we give up


class FakeOpenAIServer:
    """``POST /v1/chat/completions`` answers with ``pieces`` (and optional ``reasoning`` pieces) as the
    assistant's text: streamed as one SSE chunk per piece when the request says ``"stream": true``, else as
    one ``chat.completion``. ``then`` holds the replies of the following requests, one each, for a
    conversation of several turns (the last reply repeats). ``GET /v1/models`` lists ``model``. Request
    bodies are kept in ``requests``.

    ::

        with FakeOpenAIServer(["Sure.", '<tool_call>{"name": "f", "arguments": {}}</tool_call>']) as server:
            client = openai.OpenAI(base_url=server.url, api_key="unused")
    """

    def __init__(
        self,
        pieces: Sequence[str],
        *,
        reasoning: Sequence[str] = (),
        model: str = "fake-model",
        then: Sequence[Sequence[str]] = (),
    ) -> None:
        self.pieces = list(pieces)
        self.replies = [self.pieces, *(list(reply) for reply in then)]
        self.reasoning = list(reasoning)
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes: ``http://127.0.0.1:PORT/v1``."""
        if self._httpd is None:
            raise RuntimeError("the server is not running (use it as a context manager)")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=_START_TIMEOUT)
            self._thread = None

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        payload = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        return b"data: " + json.dumps(payload).encode() + b"\n\n"

    def _reply_pieces(self) -> list[str]:
        """The reply to the request just received (``requests`` holds it already)."""
        return self.replies[min(len(self.requests), len(self.replies)) - 1]

    def _stream(self) -> Iterator[bytes]:
        yield self._chunk({"role": "assistant", "content": ""})
        for piece in self.reasoning:
            yield self._chunk({"reasoning_content": piece})
        for piece in self._reply_pieces():
            yield self._chunk({"content": piece})
        yield self._chunk({}, "stop")
        yield b"data: [DONE]\n\n"

    def _completion(self) -> bytes:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self._reply_pieces())}
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        payload = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
        return json.dumps(payload).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            # HTTP/1.0: the connection closes after each reply, which ends a streamed body without chunking.
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read stdout
                pass

            def _reply(self, status: int, content_type: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    models = {"object": "list", "data": [{"id": fake.model, "object": "model", "owned_by": "fake"}]}
                    self._reply(200, "application/json", json.dumps(models).encode())
                else:
                    self._reply(404, "application/json", b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._reply(400, "application/json", b'{"error": {"message": "invalid JSON"}}')
                    return
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._reply(404, "application/json", b'{"error": {"message": "not found"}}')
                    return
                fake.requests.append(body)
                if not body.get("stream"):
                    self._reply(200, "application/json", fake._completion())
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for data in fake._stream():
                    self.wfile.write(data)
                    self.wfile.flush()

        return Handler


@contextmanager
def serve_app(app: Any) -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn on a free 127.0.0.1 port in a daemon thread; yield its base
    URL (``http://127.0.0.1:PORT``); stop it on exit. Needs the ``cli`` extra (uvicorn)."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + _START_TIMEOUT
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=_START_TIMEOUT)
        sock.close()
