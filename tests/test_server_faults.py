"""Fault injection for ``streamparse serve``: a real proxy (uvicorn) in front of a real fake upstream
(uvicorn), both on 127.0.0.1 in daemon threads, one test per fault of issue 12. The fake upstream plays
the scenario named by the request's ``x-fault`` header; the official ``openai`` client is used where the
wire shape matters. Every wait is bounded (client timeouts, event waits), and the servers stop with the
module."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import openai
import pytest
from loopback import ServerThread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from streamparse.cli.main import main as cli_entry
from streamparse.cli.main import make_argparser
from streamparse.server import create_app

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
MESSAGES = [{"role": "user", "content": "go"}]
QWEN = "Qwen/Qwen3-8B"
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'


def _sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return _sse(
        {
            "id": "chatcmpl-up",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def _text_stream(*pieces: str) -> list[bytes]:
    return [_chunk({"role": "assistant", "content": ""}), *(_chunk({"content": p}) for p in pieces)]


END = [_chunk({}, "stop"), b"data: [DONE]\n\n"]


class Upstream:
    """The fake upstream: what it received, and gates tests open to pace it."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []  # (x-fault, body)
        self.admin_hits = 0
        self.release = threading.Event()  # opens "hold" streams
        self.call_seen = threading.Event()  # the eager test saw the call's first arguments

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
                Route("/v1/files/cut", self.cut_file, methods=["GET"]),
                Route("/{path:path}", self.admin, methods=["GET", "POST"]),
            ]
        )

    async def admin(self, request: Request) -> Response:
        self.admin_hits += 1
        return JSONResponse({"admin": request.url.path})

    async def cut_file(self, request: Request) -> Response:
        return StreamingResponse(self._play([b"x" * 1000, 0.05, "CUT"]), media_type="application/octet-stream")

    async def models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "m", "object": "model"}]})

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        fault = request.headers.get("x-fault", "")
        self.requests.append((fault, body))
        frames = getattr(self, "f_" + fault)(body)
        headers = {"x-request-id": "req-42", "x-ratelimit-remaining-requests": "99"} if fault == "headers" else {}
        if not body.get("stream"):
            text = "".join(json.loads(f[6:])["choices"][0]["delta"].get("content") or "" for f in frames[:-2])
            message = {"role": "assistant", "content": text}
            return JSONResponse(
                {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                 "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]},
                headers=headers,
            )  # fmt: skip
        return StreamingResponse(self._play(frames), media_type="text/event-stream", headers=headers)

    async def _play(self, frames: list[Any]) -> AsyncIterator[bytes]:
        for frame in frames:
            if isinstance(frame, float):
                await asyncio.sleep(frame)
            elif frame == "CUT":
                raise RuntimeError("connection dropped")  # uvicorn aborts the chunked body mid-way
            elif frame == "HOLD":
                await asyncio.to_thread(self.release.wait, 10)
            elif frame == "WAIT_CALL_SEEN":
                await asyncio.to_thread(self.call_seen.wait, 10)
            else:
                yield frame
                await asyncio.sleep(0)

    # -- scenarios (f_<x-fault>) -------------------------------------------------------------------

    def f_cut_in_call(self, body: Any) -> list[Any]:
        return [*_text_stream("Checking.", '<tool_call>\n{"name": "get_weather", "arguments": {"ci'), "CUT"]

    def f_cut_in_text(self, body: Any) -> list[Any]:
        return [*_text_stream("Hello wor"), "CUT"]

    def f_cut_no_finish(self, body: Any) -> list[Any]:
        return _text_stream("Hello wor")  # the body ends cleanly, but without a finish or [DONE]

    def f_error_event(self, body: Any) -> list[Any]:
        error = {"error": {"message": "engine died", "type": "server_error", "code": 500}}
        return [*_text_stream("Hi"), _sse(error), b"data: [DONE]\n\n"]

    def f_undeclared(self, body: Any) -> list[Any]:
        return [*_text_stream('<tool_call>\n{"name": "rm_rf", "arguments": {"path": "/"}}\n</tool_call>'), *END]

    def f_invalid(self, body: Any) -> list[Any]:
        return [*_text_stream('<tool_call>\n{"name": "get_weather", "arguments": {"city": 5}}\n</tool_call>'), *END]

    def f_ok(self, body: Any) -> list[Any]:
        return [*_text_stream("Sure.", CALL), *END]

    def f_hold(self, body: Any) -> list[Any]:
        return [*_text_stream("wait"), "HOLD", *END]

    def f_big_call(self, body: Any) -> list[Any]:
        big = "x" * 5000
        call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "' + big + '"}}\n</tool_call>'
        return [*_text_stream(*[call[i : i + 100] for i in range(0, len(call), 100)]), *END]

    def f_long_line(self, body: Any) -> list[Any]:
        return [*_text_stream("a" * 5000), *END]

    def f_ping(self, body: Any) -> list[Any]:
        return [*_text_stream("one "), b": ping\n\n", *_text_stream("two")[1:], *END]

    def f_slow_call(self, body: Any) -> list[Any]:
        return [*_text_stream("<tool_call>\n"), 1.2, *_text_stream(CALL[len("<tool_call>\n") :])[1:], *END]

    def f_silent(self, body: Any) -> list[Any]:
        return [*_text_stream("thinking..."), 3.0, *END]

    def f_headers(self, body: Any) -> list[Any]:
        return [*_text_stream("hi"), *END]

    def f_eager(self, body: Any) -> list[Any]:
        head = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Os'
        return [*_text_stream(head), "WAIT_CALL_SEEN", *_text_stream('lo"}}\n</tool_call>')[1:], *END]

    def f_mistral(self, body: Any) -> list[Any]:
        return [*_text_stream('[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}'), *END]

    def f_ws(self, body: Any) -> list[Any]:
        return [*_text_stream("<think>", "plan", "</think>", "\n\n", CALL, "\n"), *END]

    def f_primed(self, body: Any) -> list[Any]:
        return [*_text_stream("Hello there."), *END]

    def f_prompted(self, body: Any) -> list[Any]:
        return [*_text_stream("Sure.\n", CALL), *END]


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[Upstream, int]]:
    fake = Upstream()
    with ServerThread(fake.app()) as srv:
        yield fake, srv.port


def _proxy(up_port: int, **options: Any) -> ServerThread:
    return ServerThread(create_app(f"http://127.0.0.1:{up_port}/v1", **options))


def _client(port: int, timeout: float = 10) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0, timeout=timeout)


@pytest.fixture(scope="module")
def proxy(upstream: tuple[Upstream, int]) -> Iterator[int]:
    """A proxy with default options."""
    with _proxy(upstream[1]) as srv:
        yield srv.port


def _stream(port: int, fault: str, model: str = QWEN, **extra: Any) -> tuple[list[Any], BaseException | None]:
    """The chunks the openai client yields, and the exception it raised (if any)."""
    client = _client(port)
    chunks: list[Any] = []
    try:
        stream = client.chat.completions.create(
            model=model, messages=MESSAGES, tools=TOOLS, stream=True, extra_headers={"x-fault": fault}, **extra
        )
        for chunk in stream:
            chunks.append(chunk)
    except openai.APIError as exc:
        return chunks, exc
    finally:
        client.close()
    return chunks, None


def _finishes(chunks: list[Any]) -> list[str]:
    return [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]


def _tool_calls(chunks: list[Any]) -> list[Any]:
    return [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]


def _content(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def _raw(port: int, request: bytes) -> bytes:
    """One raw HTTP/1.1 exchange (paths exactly as written: no client-side normalisation)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        data = b""
        while True:
            try:
                piece = sock.recv(65536)
            except TimeoutError:
                break
            if not piece:
                break
            data += piece
    return data


def _get(port: int, path: str) -> tuple[int, bytes]:
    data = _raw(port, f"GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n".encode())
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


# -- 1. a broken upstream is an error, never a normal finish ------------------------------------------


def test_upstream_cut_inside_a_call_raises_in_the_client_and_sends_no_call(
    proxy: int, upstream: tuple[Upstream, int]
) -> None:
    chunks, exc = _stream(proxy, "cut_in_call")
    assert isinstance(exc, openai.APIError)
    assert _finishes(chunks) == [] and _tool_calls(chunks) == []


def test_upstream_cut_inside_text_raises_in_the_client(proxy: int) -> None:
    chunks, exc = _stream(proxy, "cut_in_text")
    assert isinstance(exc, openai.APIError) and _finishes(chunks) == []


def test_upstream_body_ending_without_a_finish_is_an_error(proxy: int) -> None:
    chunks, exc = _stream(proxy, "cut_no_finish")
    assert isinstance(exc, openai.APIError) and _finishes(chunks) == []


def test_a_relayed_body_cut_upstream_is_cut_for_the_client_too(proxy: int) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.get(f"http://127.0.0.1:{proxy}/v1/files/cut", timeout=10)


def test_upstream_error_event_is_relayed_without_a_stop_chunk_after_it(proxy: int) -> None:
    chunks, exc = _stream(proxy, "error_event")
    assert isinstance(exc, openai.APIError) and "engine died" in exc.message
    # On the wire: the error event is the last thing sent (no finish chunk, no [DONE] after it).
    raw = _raw_stream(proxy, "error_event")
    assert raw.rstrip().endswith(b'"code": 500}}') and b'finish_reason":"stop' not in raw
    assert b'"finish_reason":"stop"' not in raw and b"[DONE]" not in raw


# -- 2. rejections are visible ------------------------------------------------------------------------


def test_undeclared_tool_is_noted_in_the_stream_logged_and_counted(
    proxy: int, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="streamparse"):
        chunks, exc = _stream(proxy, "undeclared")
    assert exc is None and _tool_calls(chunks) == []
    notes = [c.model_extra["streamparse_rejection"] for c in chunks if "streamparse_rejection" in c.model_extra]
    assert [(n["name"], n["reason"]) for n in notes] == [("rm_rf", "unknown_tool")]
    assert "rejected (unknown_tool)" in _content(chunks)
    assert any("rm_rf" in r.getMessage() and r.name.startswith("streamparse") for r in caplog.records)
    status, metrics = _get(proxy, "/metrics")
    assert status == 200 and b'streamparse_rejections_total{reason="unknown_tool"} 1' in metrics


def test_on_reject_error_ends_the_stream_with_an_error_object(upstream: tuple[Upstream, int]) -> None:
    with _proxy(upstream[1], on_reject="error") as srv:
        chunks, exc = _stream(srv.port, "undeclared")
    assert isinstance(exc, openai.APIError) and exc.body["type"] == "tool_call_rejected"  # type: ignore[index]
    assert exc.body["code"] == "unknown_tool" and _finishes(chunks) == []  # type: ignore[index]


def test_pass_invalid_hands_a_schema_invalid_call_to_the_client(upstream: tuple[Upstream, int]) -> None:
    with _proxy(upstream[1], pass_invalid=True) as srv:
        chunks, exc = _stream(srv.port, "invalid")
        undeclared, _ = _stream(srv.port, "undeclared")
    calls = _tool_calls(chunks)
    assert exc is None and calls[0].function.name == "get_weather"
    assert json.loads("".join(tc.function.arguments or "" for tc in calls)) == {"city": 5}
    assert _finishes(chunks) == ["tool_calls"]
    assert _tool_calls(undeclared) == []  # unknown tools stay fail-closed


# -- 3. pool, timeouts, clients that left -------------------------------------------------------------


def test_other_routes_answer_while_more_than_100_streams_are_open(proxy: int, upstream: tuple[Upstream, int]) -> None:
    fake = upstream[0]
    fake.release.clear()

    async def scenario() -> int:
        async with httpx.AsyncClient(timeout=10, limits=httpx.Limits(max_connections=200)) as client:
            body = {"model": QWEN, "messages": MESSAGES, "stream": True}
            url = f"http://127.0.0.1:{proxy}/v1/chat/completions"
            streams = [client.stream("POST", url, json=body, headers={"x-fault": "hold"}) for _ in range(110)]
            opened = await asyncio.gather(*(s.__aenter__() for s in streams))
            try:
                models = await client.get(f"http://127.0.0.1:{proxy}/v1/models", timeout=5)
                return models.status_code
            finally:
                fake.release.set()
                for s in streams:
                    await s.__aexit__(None, None, None)
                del opened

    try:
        assert asyncio.run(scenario()) == 200
    finally:
        fake.release.set()


def test_request_whose_client_left_while_waiting_for_a_connection_is_never_sent(
    upstream: tuple[Upstream, int],
) -> None:
    fake = upstream[0]
    fake.release.clear()
    held = [f for f, _ in fake.requests].count("hold")
    with _proxy(upstream[1], max_connections=1, max_keepalive=1) as srv:
        holder = threading.Thread(target=_stream, args=(srv.port, "hold"), daemon=True)
        holder.start()
        deadline = time.monotonic() + 5
        while [f for f, _ in fake.requests].count("hold") == held and time.monotonic() < deadline:
            time.sleep(0.02)
        body = json.dumps({"model": QWEN, "messages": MESSAGES, "stream": True}).encode()
        request = (
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"x-fault: ok\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as sock:
            sock.sendall(request)
            time.sleep(0.3)  # waiting in the pool behind the held stream; then the client leaves
        time.sleep(0.3)
        fake.release.set()
        holder.join(timeout=10)
        time.sleep(0.3)
    assert [f for f, _ in fake.requests].count("ok") == 0


def test_read_timeout_option_ends_a_silent_stream_with_an_error(upstream: tuple[Upstream, int]) -> None:
    with _proxy(upstream[1], read_timeout=0.3) as srv:
        chunks, exc = _stream(srv.port, "silent")
    assert isinstance(exc, openai.APIError) and _finishes(chunks) == []


def test_timeouts_and_pool_are_settable_from_the_cli() -> None:
    from streamparse.server.options import from_args

    args = make_argparser().parse_args(
        ["serve", "--upstream", "http://127.0.0.1:8080/v1", "--read-timeout", "5", "--pool-timeout", "2",
         "--connect-timeout", "1", "--max-connections", "3000", "--ping-interval", "7"]
    )  # fmt: skip
    options = from_args(args)
    assert (options.read_timeout, options.pool_timeout, options.connect_timeout) == (5, 2, 1)
    assert options.max_connections == 3000 and options.ping_interval == 7
    assert args.port != 8000  # vLLM's default port, the most common upstream


# -- 4. limits ----------------------------------------------------------------------------------------


def test_oversized_request_body_gets_413_and_is_not_sent(upstream: tuple[Upstream, int]) -> None:
    before = len(upstream[0].requests)
    with _proxy(upstream[1], max_body_bytes=100_000) as srv:
        body = {"model": QWEN, "messages": [{"role": "user", "content": "x" * 200_000}]}
        resp = httpx.post(f"http://127.0.0.1:{srv.port}/v1/chat/completions", json=body, timeout=10)
    assert resp.status_code == 413 and resp.json()["error"]["code"] == 413
    assert len(upstream[0].requests) == before


def test_sse_line_over_the_limit_ends_the_stream_with_an_error(upstream: tuple[Upstream, int]) -> None:
    with _proxy(upstream[1], max_sse_line_chars=1000) as srv:
        chunks, exc = _stream(srv.port, "long_line")
    assert isinstance(exc, openai.APIError) and _finishes(chunks) == []


def test_call_over_max_call_chars_is_rejected_too_large(upstream: tuple[Upstream, int]) -> None:
    with _proxy(upstream[1], max_call_chars=1000) as srv:
        chunks, exc = _stream(srv.port, "big_call")
    notes = [c.model_extra["streamparse_rejection"] for c in chunks if "streamparse_rejection" in c.model_extra]
    assert exc is None and _tool_calls(chunks) == [] and [n["reason"] for n in notes] == ["too_large"]


# -- 5. keep-alives -----------------------------------------------------------------------------------


def _raw_stream(port: int, fault: str, model: str = QWEN) -> bytes:
    body = {"model": model, "messages": MESSAGES, "tools": TOOLS, "stream": True}
    with httpx.stream(
        "POST", f"http://127.0.0.1:{port}/v1/chat/completions", json=body, headers={"x-fault": fault}, timeout=10
    ) as resp:
        return b"".join(resp.iter_raw())


def test_upstream_ping_comments_are_forwarded(proxy: int) -> None:
    assert b": ping\n\n" in _raw_stream(proxy, "ping")


def test_proxy_pings_while_it_buffers_a_call(upstream: tuple[Upstream, int]) -> None:
    with _proxy(upstream[1], ping_interval=0.2) as srv:
        raw = _raw_stream(srv.port, "slow_call")
    # The upstream is silent for 1.2 s inside the call: the client hears pings before the call arrives.
    assert raw.count(b": ping\n\n") >= 2 and raw.index(b": ping") < raw.index(b'"tool_calls"')


# -- 6. paths -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/../admin", "/v1/%2e%2e/admin", "/v1/models/../../admin", "/v1/%2E%2e/slots"])
def test_paths_cannot_escape_v1(proxy: int, upstream: tuple[Upstream, int], path: str) -> None:
    before = upstream[0].admin_hits
    status, body = _get(proxy, path)
    assert status == 400 and json.loads(body)["error"]["type"] == "invalid_request_error"
    assert upstream[0].admin_hits == before


def test_malformed_path_gets_400_json_without_a_traceback(proxy: int) -> None:
    status, body = _get(proxy, "/v1/foo%00bar")
    assert status == 400 and b"Traceback" not in body and "error" in json.loads(body)


def test_dot_segments_inside_v1_are_normalised(proxy: int) -> None:
    status, body = _get(proxy, "/v1/chat/../models")
    assert status == 200 and json.loads(body)["data"][0]["id"] == "m"


# -- 7. health, start-up checks, headers --------------------------------------------------------------


def test_health_endpoint_answers(proxy: int) -> None:
    status, body = _get(proxy, "/health")
    assert status == 200 and json.loads(body)["status"] == "ok"


def test_upstream_pointing_back_at_the_proxy_is_refused() -> None:
    srv = ServerThread()
    srv.app = create_app(f"http://127.0.0.1:{srv.port}/v1")
    with srv:
        resp = httpx.get(f"http://127.0.0.1:{srv.port}/v1/models", timeout=5)
    assert resp.status_code == 508


def test_scheme_less_or_self_upstream_is_refused_at_start(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError):
        create_app("127.0.0.1:8080")
    code = cli_entry(["serve", "--upstream", "http://localhost:9123/v1", "--port", "9123"])
    assert code == 2 and "own address" in capsys.readouterr().err


def test_upstream_headers_reach_a_streaming_client(proxy: int) -> None:
    client = _client(proxy)
    try:
        raw = client.chat.completions.with_raw_response.create(
            model=QWEN, messages=MESSAGES, stream=True, extra_headers={"x-fault": "headers"}
        )
        assert raw.headers.get("x-request-id") == "req-42"
        assert raw.headers.get("x-ratelimit-remaining-requests") == "99"
        assert _content(list(raw.parse())) == "hi"
    finally:
        client.close()


# -- 8. eager arguments ---------------------------------------------------------------------------------


def test_eager_sends_the_call_before_it_ends(upstream: tuple[Upstream, int]) -> None:
    fake = upstream[0]
    fake.call_seen.clear()
    with _proxy(upstream[1], eager=True) as srv:
        client = _client(srv.port)
        try:
            stream = client.chat.completions.create(
                model=QWEN, messages=MESSAGES, tools=TOOLS, stream=True, extra_headers={"x-fault": "eager"}
            )
            chunks = []
            for chunk in stream:
                chunks.append(chunk)
                if _tool_calls([chunk]):
                    fake.call_seen.set()  # the upstream holds the call's end until the client saw it start
        finally:
            client.close()
    seen_early = [c for c in chunks if _tool_calls([c])]
    assert len(seen_early) >= 2 and _finishes(chunks) == ["tool_calls"]
    args = "".join(tc.function.arguments or "" for tc in _tool_calls(chunks))
    assert json.loads(args) == {"city": "Oslo"}


# -- 9. ids and schema-invalid calls --------------------------------------------------------------------


def test_mistral_call_ids_are_nine_alphanumerics(proxy: int) -> None:
    chunks, exc = _stream(proxy, "mistral", model="mistralai/Mistral-Small-3.2-24B-Instruct-2506")
    ids = [tc.id for tc in _tool_calls(chunks) if tc.id]
    assert exc is None and len(ids) == 1 and len(ids[0]) == 9 and ids[0].isalnum() and ids[0].isascii()


# -- 11. whitespace -------------------------------------------------------------------------------------


def test_whitespace_between_reasoning_and_a_call_is_not_content(proxy: int) -> None:
    chunks, exc = _stream(proxy, "ws")
    assert exc is None and _content(chunks) == "" and len(_tool_calls(chunks)) >= 1
    client = _client(proxy)
    try:
        resp = client.chat.completions.create(
            model=QWEN, messages=MESSAGES, tools=TOOLS, extra_headers={"x-fault": "ws"}
        )
    finally:
        client.close()
    assert resp.choices[0].message.content is None and resp.choices[0].message.tool_calls


# -- 10. upstreams without tool support; request-aware parsing ----------------------------------------


def test_tools_in_prompt_removes_tools_and_describes_them_in_the_system_prompt(
    upstream: tuple[Upstream, int],
) -> None:
    with _proxy(upstream[1], tools_in_prompt=True) as srv:
        chunks, exc = _stream(srv.port, "prompted", tool_choice="auto")
    sent = next(body for fault, body in reversed(upstream[0].requests) if fault == "prompted")
    assert "tools" not in sent and "tool_choice" not in sent
    system = sent["messages"][0]
    assert system["role"] == "system" and "get_weather" in system["content"] and "<tool_call>" in system["content"]
    assert exc is None and _tool_calls(chunks)[0].function.name == "get_weather"


def test_chat_template_kwargs_disabling_thinking_keeps_a_primed_model_in_content(proxy: int) -> None:
    # Qwen3.5's preset starts in reasoning (its template primes <think>) unless enable_thinking is false.
    model = "Qwen/Qwen3.5-27B"
    chunks, _ = _stream(proxy, "primed", model=model, extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    assert _content(chunks) == "Hello there."
    primed, _ = _stream(proxy, "primed", model=model)
    assert _content(primed) == ""  # without the kwarg the same text is (unclosed) reasoning
