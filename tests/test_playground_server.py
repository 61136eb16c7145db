"""The playground's HTTP side: page and assets, catalog, replays streamed as SSE, limits, mounting, and one
replay through a real uvicorn on 127.0.0.1. (The page itself is tested in a browser: tests_browser/.)"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from streamparse import formats, parse
from streamparse.cli.main import make_argparser
from streamparse.playground import create_app, mount
from streamparse.playground.app import MAX_BODY_BYTES
from streamparse.recordings import load_recordings


def sse_messages(body: str) -> list[tuple[str, Any]]:
    out = []
    for block in body.split("\n\n"):
        if not block.strip():
            continue
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        out.append((lines["event"], json.loads(lines["data"])))
    return out


@pytest.fixture()
def client() -> Iterator[TestClient]:
    with TestClient(create_app()) as c:
        yield c


def test_the_page_and_its_assets_are_served_from_the_package(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'src="static/app.js"' in page.text and 'href="static/style.css"' in page.text
    assert "http://" not in page.text and "https://" not in page.text  # nothing from a CDN
    for name, kind in [
        ("app.js", "text/javascript"),
        ("render.js", "text/javascript"),
        ("style.css", "text/css"),
        ("icon.svg", "image/svg+xml"),
    ]:
        res = client.get(f"/static/{name}")
        assert res.status_code == 200 and res.headers["content-type"].startswith(kind)
        assert "https://" not in res.text


@pytest.mark.parametrize("path", ["/static/../app.py", "/static/app.py", "/static/.hidden.js", "/static/nope.js"])
def test_only_the_static_assets_can_be_fetched(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_meta_lists_every_format_and_every_bundled_recording(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    assert [f["name"] for f in meta["formats"]] == formats.names()
    names = [e["name"] for e in meta["examples"]]
    assert set(r.name for r in load_recordings()) <= set(names)
    assert {"rejections", "sse-capture"} <= set(names)
    assert "Qwen/Qwen3-8B" in meta["models"]


def test_preset_reports_what_for_model_configures(client: TestClient) -> None:
    res = client.get("/api/preset", params={"model": "Qwen/Qwen3-Coder-30B-A3B-Instruct"}).json()
    assert res["matched"] and res["family"] == "qwen3-coder" and "qwen3_coder" in res["formats"]
    unknown = client.get("/api/preset", params={"model": "my-own-model"}).json()
    assert unknown["matched"] is False and unknown["formats"] == "auto"
    assert client.get("/api/preset").status_code == 400


def test_a_replay_streams_start_steps_and_done_as_server_sent_events(client: TestClient) -> None:
    rec = load_recordings()[0]
    body = {"input": rec.text, "model": rec.model, "formats": rec.formats, "chunk_size": 7, "speed": 0}
    body["start_in_reasoning"] = rec.start_in_reasoning
    res = client.post("/api/replay", json=body)
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/event-stream")
    messages = sse_messages(res.text)
    kinds = [k for k, _ in messages]
    assert kinds[0] == "start" and kinds[-1] == "done" and set(kinds[1:-1]) == {"step"}
    assert messages[0][1]["steps"] == len(messages) - 3  # steps of feed(), then one for close()
    ends = [e["call"] for k, m in messages if k == "step" for e in m["events"] if e["type"] == "tool_call_end"]
    expected = parse(rec.text, formats=rec.formats, start_in_reasoning=rec.start_in_reasoning).tool_calls
    assert [(c["name"], c["arguments_json"]) for c in ends] == [(c.name, c.arguments_json) for c in expected]


def test_a_bad_request_is_refused_before_streaming_with_the_reason(client: TestClient) -> None:
    res = client.post("/api/replay", json={"input": "x", "formats": ["hermez"]})
    assert res.status_code == 400 and "unknown format 'hermez'" in res.json()["error"]
    res = client.post("/api/replay", content=b"{not json", headers={"content-type": "application/json"})
    assert res.status_code == 400 and "not JSON" in res.json()["error"]


def test_an_oversized_body_is_refused_unread(client: TestClient) -> None:
    res = client.post("/api/replay", content=b"x" * (MAX_BODY_BYTES + 1), headers={"content-type": "application/json"})
    assert res.status_code == 413


def test_replays_beyond_the_concurrency_limit_get_429_until_one_ends() -> None:
    slow = {"input": "abc " * 50, "chunk_size": 1, "speed": 50}
    with TestClient(create_app(max_replays=1)) as c:
        with c.stream("POST", "/api/replay", json=slow) as first:
            assert first.status_code == 200
            second = c.post("/api/replay", json={"input": "x", "speed": 0})
            assert second.status_code == 429 and "try again" in second.json()["error"]
            first.close()  # the client goes away: the replay stops and frees its slot
        deadline = time.monotonic() + 10
        while True:
            res = c.post("/api/replay", json={"input": "x", "speed": 0})
            if res.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert res.status_code == 200


def test_mount_puts_the_page_under_a_prefix_before_a_catch_all() -> None:
    async def catch_all(request: Any) -> PlainTextResponse:
        return PlainTextResponse("proxy")

    app = Starlette(routes=[*mount("/playground"), Route("/{path:path}", catch_all)])
    with TestClient(app) as c:
        redirect = c.get("/playground", follow_redirects=False)
        assert redirect.status_code == 307 and redirect.headers["location"].endswith("/playground/")
        assert "streamparse playground" in c.get("/playground/").text
        assert c.get("/playground/static/app.js").status_code == 200
        assert c.get("/playground/api/meta").json()["formats"]
        assert c.get("/v1/models").text == "proxy"


def test_the_cli_has_a_playground_command_on_loopback_by_default() -> None:
    args = make_argparser().parse_args(["playground"])
    assert (args.command, args.host) == ("playground", "127.0.0.1")
    assert make_argparser().parse_args(["playground", "--port", "9001"]).port == 9001


def test_a_replay_through_a_real_server_on_loopback_is_paced_and_ends_by_itself() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive(), "server did not start"
            time.sleep(0.01)
        text = 'One moment.<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
        body = {"input": text, "formats": ["hermes"], "chunk_size": 5, "speed": 200}
        arrivals = []
        with httpx.stream("POST", f"http://127.0.0.1:{port}/api/replay", json=body, timeout=20) as res:
            assert res.status_code == 200
            raw = ""
            for piece in res.iter_text():
                arrivals.append(piece)
                raw += piece
        messages = sse_messages(raw)
        assert messages[-1][0] == "done"
        assert len(arrivals) > 1  # streamed step by step, not as one body
        events = [e for k, m in messages if k == "step" for e in m["events"]]
        expected = parse(text, formats=["hermes"])
        assert "".join(e["text"] for e in events if e["type"] == "text") == expected.text == "One moment."
        ends = [e["call"]["arguments"] for e in events if e["type"] == "tool_call_end"]
        assert ends == [c.arguments for c in expected.tool_calls] == [{"x": 1}]
    finally:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()


# -- the same page on the proxy (``serve --playground``) --------------------------------------------


def test_serve_with_playground_answers_the_page_beside_the_proxy() -> None:
    from streamparse.server import create_app as create_proxy

    proxy = create_proxy("http://127.0.0.1:9/v1", playground=True)  # the upstream is never reached here
    with TestClient(proxy) as c:
        page = c.get("/playground/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        moved = c.get("/playground", follow_redirects=False)
        assert moved.status_code == 307 and moved.headers["location"].endswith("/playground/")
        assert c.get("/playground/api/meta").status_code == 200
        assert c.get("/health").json()["status"] == "ok"


def test_serve_without_playground_does_not_serve_the_page() -> None:
    from streamparse.server import create_app as create_proxy

    with TestClient(create_proxy("http://127.0.0.1:9/v1")) as c:
        assert c.get("/playground/").status_code == 404  # not under /v1: refused, never proxied


def test_the_playground_flag_of_serve_reaches_the_options() -> None:
    from streamparse.cli.main import make_argparser
    from streamparse.server.options import from_args

    on = from_args(make_argparser().parse_args(["serve", "--upstream", "http://127.0.0.1:8080/v1", "--playground"]))
    off = from_args(make_argparser().parse_args(["serve", "--upstream", "http://127.0.0.1:8080/v1"]))
    assert on.playground and not off.playground
