"""``--on-reject retry[:N]`` through a real proxy (uvicorn) in front of a real fake upstream, both on
127.0.0.1: the upstream is asked again with the rejected call and its validation error, only the corrected
call reaches the client, attempts are bounded, and unknown tools are never retried."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import h11
import httpx
import openai
import pytest
from loopback import ServerThread
from serve_process import ServeProcess
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from streamparse.cli.main import make_argparser
from streamparse.server import create_app
from streamparse.server.options import from_args

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
QWEN = "Qwen/Qwen3-8B"
BAD = '<tool_call>\n{"name": "get_weather", "arguments": {"city": 5}}\n</tool_call>'
GOOD = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
UNKNOWN = '<tool_call>\n{"name": "rm_rf", "arguments": {"path": "/"}}\n</tool_call>'


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    obj = {"id": "u", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


class Upstream:
    """Answers the n-th request of a scenario with the n-th reply of its script (the last one after that)."""

    SCRIPTS = {
        "fixed": ["Let me check. " + BAD, "Sorry, fixed: " + GOOD],
        "never": ["Let me check. " + BAD],
        "unknown": ["Let me check. " + UNKNOWN],
    }

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.chat, methods=["POST"])])

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        self.bodies.append(body)
        script = self.SCRIPTS[request.headers["x-script"]]
        text = script[min(len(self.bodies) - 1, len(script) - 1)]
        if not body.get("stream"):
            message = {"role": "assistant", "content": text}
            return JSONResponse({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                                 "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})  # fmt: skip
        frames = [_chunk({"role": "assistant", "content": ""})]
        frames += [_chunk({"content": text[i : i + 7]}) for i in range(0, len(text), 7)]
        frames += [_chunk({}, "stop"), b"data: [DONE]\n\n"]
        return StreamingResponse(iter(frames), media_type="text/event-stream")


@pytest.fixture
def upstream() -> Iterator[tuple[Upstream, int]]:
    fake = Upstream()
    with ServerThread(fake.app()) as srv:
        yield fake, srv.port


def _proxy(up_port: int, **options: Any) -> ServerThread:
    return ServerThread(create_app(f"http://127.0.0.1:{up_port}/v1", on_reject="retry", **options))


def _stream(port: int, script: str) -> list[Any]:
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0, timeout=10)
    with client:
        messages = [{"role": "user", "content": "weather?"}]
        stream = client.chat.completions.create(
            model=QWEN, messages=messages, tools=TOOLS, stream=True, extra_headers={"x-script": script}
        )
        return list(stream)


def _calls(chunks: list[Any]) -> list[tuple[str, Any]]:
    """The streamed calls, their deltas joined by index."""
    calls: dict[int, list[str]] = {}
    for c in chunks:
        for tc in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            entry = calls.setdefault(tc.index, ["", ""])
            entry[0] += tc.function.name or ""
            entry[1] += tc.function.arguments or ""
    return [(name, json.loads(args)) for name, args in calls.values()]


def test_a_schema_violation_is_retried_and_only_the_corrected_call_is_streamed(
    upstream: tuple[Upstream, int],
) -> None:
    fake, up_port = upstream
    with _proxy(up_port) as srv:
        chunks = _stream(srv.port, "fixed")
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == "Let me check."  # no note, and nothing of the correction's own text
    assert _calls(chunks) == [("get_weather", {"city": "Oslo"})]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert chunks[-1].model_extra["streamparse_retries"] == 1
    assert len(fake.bodies) == 2
    first, second = fake.bodies
    assert second["messages"][: len(first["messages"])] == first["messages"]
    asked, told = second["messages"][len(first["messages"]) :]
    assert asked["role"] == "assistant" and asked["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": 5}',
    }
    assert told["role"] == "tool" and told["tool_call_id"] == asked["tool_calls"][0]["id"]
    assert "5 is not of type 'string'" in told["content"]
    assert second["tools"] == first["tools"]


def test_retries_are_bounded_and_then_the_rejection_is_noted(upstream: tuple[Upstream, int]) -> None:
    fake, up_port = upstream
    with _proxy(up_port, retries=2) as srv:
        chunks = _stream(srv.port, "never")
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(fake.bodies) == 3  # the request and two retries
    assert content.startswith("Let me check.[tool call 'get_weather' rejected (schema_violation)")
    assert _calls(chunks) == []
    assert chunks[-1].model_extra["streamparse_retries"] == 2
    assert len(fake.bodies[2]["messages"]) == len(fake.bodies[0]["messages"]) + 4  # each attempt is quoted


def test_a_call_to_a_tool_the_client_did_not_offer_is_never_retried(upstream: tuple[Upstream, int]) -> None:
    fake, up_port = upstream
    with _proxy(up_port) as srv:
        chunks = _stream(srv.port, "unknown")
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(fake.bodies) == 1
    assert "rejected (unknown_tool)" in content


def test_a_non_streaming_reply_gets_the_corrected_call_and_a_retry_count_header(
    upstream: tuple[Upstream, int],
) -> None:
    fake, up_port = upstream
    with _proxy(up_port) as srv:
        body = {"model": QWEN, "messages": [{"role": "user", "content": "weather?"}], "tools": TOOLS}
        resp = httpx.post(
            f"http://127.0.0.1:{srv.port}/v1/chat/completions", json=body, headers={"x-script": "fixed"}, timeout=10
        )
    assert resp.status_code == 200 and resp.headers["x-streamparse-retries"] == "1"
    message = resp.json()["choices"][0]["message"]
    assert message["content"] == "Let me check."
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message["tool_calls"]] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert resp.json()["choices"][0]["finish_reason"] == "tool_calls"
    assert "streamparse_rejections" not in resp.json()
    assert len(fake.bodies) == 2


def test_without_retry_the_rejection_is_a_note_and_the_upstream_is_asked_once(upstream: tuple[Upstream, int]) -> None:
    fake, up_port = upstream
    with ServerThread(create_app(f"http://127.0.0.1:{up_port}/v1")) as srv:
        chunks = _stream(srv.port, "fixed")
    assert len(fake.bodies) == 1
    assert "rejected (schema_violation)" in "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


@pytest.mark.parametrize(
    ("flag", "mode", "retries"), [("retry", "retry", 1), ("retry:3", "retry", 3), ("note", "note", 1)]
)
def test_on_reject_retry_takes_an_optional_count(flag: str, mode: str, retries: int) -> None:
    args = make_argparser().parse_args(["serve", "--upstream", "http://127.0.0.1:9/v1", "--on-reject", flag])
    options = from_args(args)
    assert (options.on_reject, options.retries) == (mode, retries)


@pytest.mark.parametrize("flag", ["retry:0", "retry:x", "note:2", "again"])
def test_bad_on_reject_values_are_refused(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        make_argparser().parse_args(["serve", "--upstream", "http://127.0.0.1:9/v1", "--on-reject", flag])
    assert "--on-reject" in capsys.readouterr().err


def _h11_stream(port: int, script: str, http_version: bytes = b"1.1") -> tuple[h11.Response, bytes, list[Any]]:
    """One streamed chat request read with a raw h11 client: the response head, the body, the trailers."""
    body = json.dumps({"model": QWEN, "messages": [{"role": "user", "content": "weather?"}], "tools": TOOLS,
                       "stream": True}).encode()  # fmt: skip
    conn = h11.Connection(h11.CLIENT)
    head = [("host", "127.0.0.1"), ("content-type", "application/json"), ("content-length", str(len(body))),
            ("x-script", script)]  # fmt: skip
    request = h11.Request(method="POST", target="/v1/chat/completions", headers=head, http_version=http_version)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(conn.send(request) + conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage()))
        response, data = None, b""
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(sock.recv(65536))
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                data += event.data
            elif isinstance(event, h11.EndOfMessage):
                assert response is not None
                return response, data, list(event.headers)


@pytest.fixture(scope="module")
def served_retry() -> Iterator[tuple[Upstream, ServeProcess]]:
    """``streamparse serve --on-reject retry`` as its own process (its h11 protocol has the trailers)."""
    fake = Upstream()
    with ServerThread(fake.app()) as up, ServeProcess(f"http://127.0.0.1:{up.port}/v1", "--on-reject", "retry") as srv:
        yield fake, srv


@pytest.mark.parametrize(("script", "retries"), [("fixed", b"1"), ("unknown", b"0")])
def test_a_streamed_reply_announces_and_sends_its_retry_count_as_a_trailer(
    served_retry: tuple[Upstream, ServeProcess], script: str, retries: bytes
) -> None:
    fake, srv = served_retry
    fake.bodies.clear()
    response, data, trailers = _h11_stream(srv.port, script)
    assert response.status_code == 200 and (b"trailer", b"x-streamparse-retries") in response.headers
    assert (b"transfer-encoding", b"chunked") in response.headers
    assert trailers == [(b"x-streamparse-retries", retries)]
    assert data.endswith(b"data: [DONE]\n\n") and len(fake.bodies) == 1 + int(retries)


def test_an_http_1_0_client_gets_the_stream_without_trailers(served_retry: tuple[Upstream, ServeProcess]) -> None:
    _, srv = served_retry
    body = json.dumps({"model": QWEN, "messages": [{"role": "user", "content": "weather?"}], "tools": TOOLS,
                       "stream": True}).encode()  # fmt: skip
    head = (f"POST /v1/chat/completions HTTP/1.0\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            f"x-script: fixed\r\ncontent-length: {len(body)}\r\n\r\n").encode()  # fmt: skip
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
        sock.sendall(head + body)
        raw = b""
        while piece := sock.recv(65536):  # HTTP/1.0: the body ends when the server closes
            raw += piece
    head_out, _, data = raw.partition(b"\r\n\r\n")
    assert head_out.startswith(b"HTTP/1.1 200 ") and b"transfer-encoding" not in head_out.lower()
    assert b'"Oslo' in data and data.endswith(b"data: [DONE]\n\n")  # no trailer section after it


def test_a_keep_alive_connection_carries_one_reply_with_trailers_after_another(
    served_retry: tuple[Upstream, ServeProcess],
) -> None:
    fake, srv = served_retry
    body = {"model": QWEN, "messages": [{"role": "user", "content": "weather?"}], "tools": TOOLS, "stream": True}
    url = f"http://127.0.0.1:{srv.port}/v1/chat/completions"
    ports = set()
    with httpx.Client(timeout=10, limits=httpx.Limits(max_connections=1)) as client:
        for _ in range(3):
            fake.bodies.clear()
            with client.stream("POST", url, json=body, headers={"x-script": "fixed"}) as resp:
                data = resp.read()
                ports.add(resp.extensions["network_stream"].get_extra_info("client_addr")[1])
            assert resp.status_code == 200 and b'"Oslo' in data and data.endswith(b"data: [DONE]\n\n")
            assert len(fake.bodies) == 2
    assert len(ports) == 1  # one connection: each message ended with its trailer and the next one followed
