"""streamparse.testing: the local fake OpenAI-compatible server and the background ASGI runner."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest

from streamparse.testing import FakeOpenAIServer, serve_app

PIECES = ["Hi ", '<tool_call>{"name": "f", ', '"arguments": {}}</tool_call>']


def test_streams_one_chunk_per_piece_through_the_openai_sdk() -> None:
    with FakeOpenAIServer(PIECES, reasoning=["thinking"], model="m") as server:
        client = openai.OpenAI(base_url=server.url, api_key="x")
        chunks = list(
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}], stream=True)
        )
        body = server.requests[0]
    contents = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert contents == PIECES
    assert [c.choices[0].delta.model_extra.get("reasoning_content") for c in chunks][1] == "thinking"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert body["stream"] is True and body["messages"] == [{"role": "user", "content": "q"}]


def test_answers_a_whole_completion_when_not_streaming() -> None:
    with FakeOpenAIServer(PIECES) as server:
        reply = openai.OpenAI(base_url=server.url, api_key="x").chat.completions.create(model="m", messages=[])
    assert reply.choices[0].message.content == "".join(PIECES)
    assert reply.choices[0].finish_reason == "stop"


def test_lists_its_model_and_refuses_other_routes() -> None:
    with FakeOpenAIServer([], model="my-model") as server:
        models = httpx.get(server.url + "/models").json()
        missing = httpx.post(server.url + "/embeddings", json={})
        bad = httpx.post(server.url + "/chat/completions", content=b"{not json")
    assert [m["id"] for m in models["data"]] == ["my-model"]
    assert missing.status_code == 404 and bad.status_code == 400


def test_stops_listening_when_the_block_ends() -> None:
    with FakeOpenAIServer([]) as server:
        url = server.url
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/models", timeout=2)
    with pytest.raises(RuntimeError):
        _ = server.url


async def _echo_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    body = json.dumps({"path": scope["path"]}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def test_serve_app_runs_an_asgi_app_on_loopback_until_the_block_ends() -> None:
    with serve_app(_echo_app) as base:
        assert base.startswith("http://127.0.0.1:")
        assert httpx.get(base + "/v1/x").json() == {"path": "/v1/x"}
    with pytest.raises(httpx.ConnectError):
        httpx.get(base + "/v1/x", timeout=2)
