"""Six real HTTP clients read the same streamed reply from a ``streamparse serve`` process (with
``--on-reject retry``, so the reply announces and sends a trailer): the ``openai`` SDK (sync and async),
httpx, requests, curl and Node's ``fetch``. Each must see the text and the corrected call, and nothing
else; the trailer must not disturb any of them. Servers on 127.0.0.1 only; every client has a timeout."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import openai
import pytest
import requests
from loopback import ServerThread
from serve_process import ServeProcess
from test_server_retry import QWEN, TOOLS, Upstream

MESSAGES = [{"role": "user", "content": "weather?"}]
BODY = {"model": QWEN, "messages": MESSAGES, "tools": TOOLS, "stream": True}
HEADERS = {"content-type": "application/json", "x-script": "fixed"}


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[Upstream, ServeProcess]]:
    fake = Upstream()
    with ServerThread(fake.app()) as up, ServeProcess(f"http://127.0.0.1:{up.port}/v1", "--on-reject", "retry") as srv:
        yield fake, srv


@pytest.fixture
def served(server: tuple[Upstream, ServeProcess]) -> Iterator[ServeProcess]:
    """The server, its upstream's script back at its start (first reply rejected, the retry corrected)."""
    server[0].bodies.clear()
    yield server[1]
    assert len(server[0].bodies) == 2  # the request and its one retry


def _from_sse(text: str) -> tuple[str, list[tuple[str, Any]]]:
    """Content and calls from the SSE a client read as text."""
    chunks = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
    return _from_chunks([c["choices"][0]["delta"] for c in chunks if c.get("choices")])


def _from_chunks(deltas: list[dict[str, Any]]) -> tuple[str, list[tuple[str, Any]]]:
    content = "".join(d.get("content") or "" for d in deltas)
    calls: dict[int, list[str]] = {}
    for d in deltas:
        for tc in d.get("tool_calls") or []:
            entry = calls.setdefault(tc["index"], ["", ""])
            entry[0] += tc["function"].get("name") or ""
            entry[1] += tc["function"].get("arguments") or ""
    return content, [(name, json.loads(args)) for name, args in calls.values()]


def _openai_sync(port: int) -> tuple[str, list[tuple[str, Any]]]:
    with openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0, timeout=20) as client:
        stream = client.chat.completions.create(
            model=QWEN,
            messages=MESSAGES,
            tools=TOOLS,
            stream=True,
            extra_headers={"x-script": "fixed"},  # type: ignore[arg-type]
        )
        return _from_chunks([c.choices[0].delta.model_dump() for c in stream if c.choices])


def _openai_async(port: int) -> tuple[str, list[tuple[str, Any]]]:
    async def run() -> list[dict[str, Any]]:
        client = openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0, timeout=20)
        async with client:
            stream = await client.chat.completions.create(
                model=QWEN,
                messages=MESSAGES,
                tools=TOOLS,
                stream=True,
                extra_headers={"x-script": "fixed"},  # type: ignore[arg-type]
            )
            return [c.choices[0].delta.model_dump() async for c in stream if c.choices]

    return _from_chunks(asyncio.run(run()))


def _httpx(port: int) -> tuple[str, list[tuple[str, Any]]]:
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    with httpx.stream("POST", url, json=BODY, headers=HEADERS, timeout=20) as resp:
        return _from_sse("".join(resp.iter_text()))


def _requests(port: int) -> tuple[str, list[tuple[str, Any]]]:
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    with requests.post(url, json=BODY, headers=HEADERS, stream=True, timeout=20) as resp:
        return _from_sse("\n".join(line.decode() for line in resp.iter_lines()))


def _curl(port: int) -> tuple[str, list[tuple[str, Any]]]:
    argv = ["curl", "-sSN", "--max-time", "20", f"http://127.0.0.1:{port}/v1/chat/completions",
            "-H", "content-type: application/json", "-H", "x-script: fixed", "--data-binary", json.dumps(BODY)]  # fmt: skip
    return _from_sse(subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True).stdout)


NODE = """
const [url, body] = process.argv.slice(1);
const resp = await fetch(url, {method: "POST", body, signal: AbortSignal.timeout(20000),
  headers: {"content-type": "application/json", "x-script": "fixed"}});
process.stdout.write(await resp.text());
"""


def _node(port: int) -> tuple[str, list[tuple[str, Any]]]:
    argv = ["node", "--input-type=module", "-e", NODE, f"http://127.0.0.1:{port}/v1/chat/completions", json.dumps(BODY)]
    return _from_sse(subprocess.run(argv, capture_output=True, text=True, timeout=30, check=True).stdout)


CLIENTS: dict[str, Callable[[int], tuple[str, list[tuple[str, Any]]]]] = {
    "openai": _openai_sync,
    "openai-async": _openai_async,
    "httpx": _httpx,
    "requests": _requests,
    "curl": _curl,
    "node-fetch": _node,
}


@pytest.mark.parametrize("name", list(CLIENTS))
def test_a_real_client_reads_a_streamed_reply_with_a_trailer(served: ServeProcess, name: str) -> None:
    if name in ("curl", "node-fetch") and shutil.which(name.split("-")[0]) is None:
        pytest.fail(f"{name.split('-')[0]} is not installed")  # never skipped: the group is six clients
    content, calls = CLIENTS[name](served.port)
    assert content == "Let me check."
    assert calls == [("get_weather", {"city": "Oslo"})]


def test_curl_shows_the_trailer_in_the_raw_chunked_body(served: ServeProcess) -> None:
    argv = ["curl", "-sSN", "--raw", "--max-time", "20", f"http://127.0.0.1:{served.port}/v1/chat/completions",
            "-H", "content-type: application/json", "-H", "x-script: fixed", "--data-binary", json.dumps(BODY)]  # fmt: skip
    raw = subprocess.run(argv, capture_output=True, timeout=30, check=True).stdout
    assert raw.endswith(b"\r\n0\r\nx-streamparse-retries: 1\r\n\r\n")
