"""What a chat request may cost ``streamparse serve``: caps on tools and JSON answered 400/413 with an
OpenAI error, peak memory per request measured on a real server process, deep JSON and fuzzed bodies never
answered 500, and a 50 MB body answered 413 rather than reset. Servers on 127.0.0.1 only."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from loopback import ServerThread
from serve_process import ServeProcess
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from streamparse.server import create_app

MiB = 1024 * 1024


async def _reply(request: Request) -> Response:
    await request.body()
    message = {"role": "assistant", "content": "ok"}
    return JSONResponse({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                         "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})  # fmt: skip


@pytest.fixture(scope="module")
def upstream() -> Iterator[int]:
    with ServerThread(Starlette(routes=[Route("/v1/chat/completions", _reply, methods=["POST"])])) as srv:
        yield srv.port


@pytest.fixture(scope="module")
def served(upstream: int) -> Iterator[ServeProcess]:
    """``streamparse serve`` with its defaults, as its own process."""
    with ServeProcess(f"http://127.0.0.1:{upstream}/v1") as srv:
        yield srv


@pytest.fixture(scope="module")
def proxy(upstream: int) -> Iterator[int]:
    with ServerThread(create_app(f"http://127.0.0.1:{upstream}/v1")) as srv:
        yield srv.port


def _tools(count: int, properties: int) -> list[dict[str, Any]]:
    schema = {"type": "object", "properties": {f"p{j}": {"type": "integer"} for j in range(properties)}}
    return [{"type": "function", "function": {"name": f"t{i}", "parameters": schema}} for i in range(count)]


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": "hi"}], **extra}


def _post(port: int, body: bytes, timeout: float = 60) -> httpx.Response:
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    return httpx.post(url, content=body, headers={"content-type": "application/json"}, timeout=timeout)


def _peak_kb(srv: ServeProcess, body: bytes) -> tuple[httpx.Response, int]:
    """The response, and how far the server's resident memory rose above its level before the request."""
    _post(srv.port, json.dumps(_chat()).encode())  # warm: everything a request touches is loaded
    srv.reset_peak()
    before, _ = srv.memory_kb()
    resp = _post(srv.port, body)
    return resp, srv.memory_kb()[1] - before


def test_ten_thousand_tools_are_refused_at_about_the_bodys_size_in_memory(served: ServeProcess) -> None:
    body = json.dumps(_chat(tools=_tools(10_000, 50))).encode()  # the 14 MB body
    resp, peak_kb = _peak_kb(served, body)
    assert resp.status_code == 413 and resp.json()["error"]["code"] == "too_many_values"
    print(f"10,000 tools: body {len(body) / MiB:.1f} MiB, peak +{peak_kb / 1024:.1f} MiB")
    assert peak_kb * 1024 <= 3 * len(body)


def test_many_small_containers_are_refused_before_they_are_built(served: ServeProcess) -> None:
    body = json.dumps(_chat(junk=[{} for _ in range(2_000_000)])).encode()  # 64+ bytes each once parsed
    resp, peak_kb = _peak_kb(served, body)
    assert resp.status_code == 413
    assert peak_kb * 1024 <= 3 * len(body)


def _described_tools(count: int, size: int) -> list[dict[str, Any]]:
    """``count`` tools of about ``size`` bytes each, mostly property descriptions (few JSON values)."""
    properties = {f"p{j}": {"type": "string", "description": "d" * 990} for j in range(size // 1024)}
    schema = {"type": "object", "properties": properties}
    return [{"type": "function", "function": {"name": f"t{i}", "parameters": schema}} for i in range(count)]


IN_CAPS = {
    # 128 tools (the cap) of 380 small properties: ~99,000 JSON values (the cap is 100,000), 1.4 MiB
    "many_small_properties": lambda: _chat(tools=_tools(128, 380)),
    # 128 tools of ~60 KiB each (the cap is 64 KiB): 7.6 MiB
    "large_tools": lambda: _chat(tools=_described_tools(128, 60_000)),
    # no tools, one long message: 15 MiB (the body cap is 16 MiB)
    "long_message": lambda: _chat(messages=[{"role": "user", "content": "x" * (15 * MiB)}]),
}


@pytest.mark.parametrize("case", sorted(IN_CAPS))
def test_a_request_within_the_caps_costs_at_most_three_times_its_body(upstream: int, case: str) -> None:
    tiny = json.dumps(_chat()).encode()
    body = json.dumps(IN_CAPS[case]()).encode()
    assert MiB <= len(body) <= 16 * MiB
    # A fresh server: memory an earlier request freed but the process kept would hide this one's cost.
    with ServeProcess(f"http://127.0.0.1:{upstream}/v1") as served:
        _, baseline_kb = _peak_kb(served, tiny)  # what any request costs, whatever its size
        resp, peak_kb = _peak_kb(served, body)
    assert resp.status_code == 200, resp.text
    cost = (peak_kb - baseline_kb) * 1024
    print(f"{case}: body {len(body) / MiB:.2f} MiB, peak +{peak_kb / 1024:.2f} MiB, tiny request "
          f"+{baseline_kb / 1024:.2f} MiB, ratio {cost / len(body):.2f}")  # fmt: skip
    assert cost <= 3 * len(body)


def test_more_tools_than_the_cap_get_400_with_a_clear_error(proxy: int) -> None:
    resp = _post(proxy, json.dumps(_chat(tools=_tools(129, 1))).encode())
    assert resp.status_code == 400
    assert resp.json()["error"] == {
        "message": "the request has 129 tools; at most 128",
        "type": "invalid_request_error",
        "param": None,
        "code": "too_many_tools",
    }


def test_an_oversized_or_too_deep_tool_schema_gets_400(proxy: int) -> None:
    big = _tools(1, 3000)
    resp = _post(proxy, json.dumps(_chat(tools=big)).encode())
    assert resp.status_code == 400 and resp.json()["error"]["code"] == "tool_too_large"
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(20):  # 41 levels inside the tool, 46 in the body
        schema = {"type": "object", "properties": {"x": schema}}
    deep = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    resp = _post(proxy, json.dumps(_chat(tools=deep)).encode())
    assert resp.status_code == 400 and resp.json()["error"]["code"] == "tool_too_deep"


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [900, 5000])
@pytest.mark.parametrize(
    "template",
    [
        '{"model": "m", "messages": [{"role": "user", "content": NEST}]}',
        '{"model": "m", "messages": NEST}',
        '{"model": NEST, "messages": []}',
        '{"model": "m", "messages": [], "tools": NEST}',
        '{"model": "m", "messages": [], "chat_template_kwargs": {"x": NEST}}',
        '{"model": "m", "messages": [], "extra_field": NEST}',
        "NEST",
    ],
)
def test_deeply_nested_json_in_any_field_gets_400_not_500(proxy: int, depth: int, template: str) -> None:
    resp = _post(proxy, template.replace("NEST", _nested(depth)).encode())
    assert resp.status_code == 400
    assert "nests deeper than 64 levels" in resp.json()["error"]["message"]


def _json_values() -> st.SearchStrategy[Any]:
    keys = st.sampled_from(
        ["model", "messages", "tools", "tool_choice", "stream", "chat_template_kwargs", "role", "content",
         "type", "function", "name", "parameters", "properties", "required", "enable_thinking", "$ref", "x"]
    )  # fmt: skip
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5), max_leaves=30
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.dictionaries(st.sampled_from(["model", "messages", "tools", "tool_choice", "stream",
                                                "chat_template_kwargs", "response_format"]), _json_values()))  # fmt: skip
def test_fuzzed_request_bodies_never_get_a_500(proxy: int, payload: dict[str, Any]) -> None:
    resp = _post(proxy, json.dumps(payload).encode(), timeout=20)
    assert resp.status_code != 500, resp.text
    resp.json()  # an answer, never a traceback


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=200))
def test_fuzzed_raw_bytes_never_get_a_500(proxy: int, raw: bytes) -> None:
    resp = _post(proxy, raw, timeout=20)
    assert resp.status_code in (200, 400, 413), resp.text
    resp.json()


def _http_client_post(port: int, body: bytes, chunked: bool) -> int:
    """A POST with the standard library's client, which sends the whole body before reading the answer
    (and raises ConnectionResetError when the server closes on unread data)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        if chunked:
            pieces = iter([body[i : i + MiB] for i in range(0, len(body), MiB)])
            conn.request("POST", "/v1/chat/completions", body=pieces, encode_chunked=True,
                         headers={"content-type": "application/json"})  # fmt: skip
        else:
            conn.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_50_mb_body_gets_its_413_rather_than_a_reset(served: ServeProcess, chunked: bool) -> None:
    body = b'{"model": "m", "messages": [{"role": "user", "content": "' + b"x" * (50 * 1000 * 1000) + b'"}]}'
    assert [_http_client_post(served.port, body, chunked) for _ in range(3)] == [413, 413, 413]


def test_a_client_expecting_100_continue_gets_the_413_before_sending_its_body(proxy: int) -> None:
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        b"content-length: 50000000\r\nexpect: 100-continue\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", proxy), timeout=10) as sock:
        sock.sendall(head)
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413 ")  # no "100 Continue" first: the body is never asked for
