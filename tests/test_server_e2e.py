"""End to end: the real ``openai`` client -> the proxy (uvicorn) -> a fake upstream (uvicorn), all on
127.0.0.1. The upstream replays the bundled demo recordings framed the way vLLM, llama.cpp and Ollama's
``/v1`` send them, and records what it received and whether its stream generator was closed."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
import pytest
from loopback import ServerThread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from streamparse.events import (
    Event,
    ParseResult,
    ReasoningDelta,
    TextDelta,
    TextWasReasoning,
)
from streamparse.parser import build_parser
from streamparse.recordings import DEMO_TOOLS, Recording, load_recordings
from streamparse.server import create_app

RECORDINGS = {r.name: r for r in load_recordings()}
# Which recordings each fake server style replays (every recording goes through at least one style).
CASES = [
    ("vllm", "qwen3"),
    ("vllm", "qwen3-coder"),
    ("vllm", "gpt-oss"),
    ("llamacpp", "deepseek-v3.1"),
    ("llamacpp", "glm-4.5"),
    ("ollama", "kimi-k2"),
    ("ollama", "minimax-m2"),
]
ERROR_BODY = {
    "error": {
        "message": "This model's maximum context length is 4096 tokens.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
}


# ------------------------------------------------------------------------------------------------
# The fake upstream


class FakeUpstream:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.closed_early = threading.Event()  # the slow stream's generator was closed before its end
        self.slow_sent = 0

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
            ]
        )

    async def models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        scenario = request.headers.get("x-scenario", "vllm:qwen3")
        style, _, name = scenario.partition(":")
        if style == "error":
            return JSONResponse(ERROR_BODY, status_code=400)
        if style == "slow":
            return StreamingResponse(self._slow(body["model"]), media_type="text/event-stream")
        if style == "structured":
            return StreamingResponse(_structured_stream(body["model"]), media_type="text/event-stream")
        rec = RECORDINGS[name]
        if not body.get("stream"):
            return JSONResponse(_completion(rec, body["model"]))
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        frames = {"vllm": _vllm_frames, "llamacpp": _llamacpp_frames, "ollama": _ollama_frames}[style]
        return StreamingResponse(_paced(frames(rec, body["model"], include_usage)), media_type="text/event-stream")

    async def _slow(self, model: str) -> AsyncIterator[bytes]:
        try:
            yield _sse(_chunk(model, {"role": "assistant", "content": ""}))
            for i in range(400):
                await asyncio.sleep(0.02)
                self.slow_sent = i + 1
                yield _sse(_chunk(model, {"content": f"word{i} "}))
            yield _sse(_chunk(model, {}, "stop"))
            yield b"data: [DONE]\n\n"
        except BaseException:
            self.closed_early.set()
            raise


def _sse(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }


USAGE = {"prompt_tokens": 120, "completion_tokens": 80, "total_tokens": 200}


def _vllm_frames(rec: Recording, model: str, include_usage: bool) -> Iterator[bytes]:
    # vLLM: a role chunk, then one token per event, a finish chunk, an optional usage chunk, [DONE].
    yield _sse(_chunk(model, {"role": "assistant", "content": ""}))
    for token in rec.chunks:
        yield _sse(_chunk(model, {"content": token}))
    yield _sse(_chunk(model, {"content": ""}, "stop"))
    if include_usage:
        yield _sse({**_chunk(model, {}), "choices": [], "usage": USAGE})
    yield b"data: [DONE]\n\n"


def _llamacpp_frames(rec: Recording, model: str, include_usage: bool) -> Iterator[bytes]:
    # llama.cpp server: "content": null in the role chunk, a system_fingerprint, token events, and a last
    # chunk with an empty delta, the finish reason, usage and timings (sent whether asked for or not).
    fp = {"system_fingerprint": "b5000-fake"}
    yield _sse(_chunk(model, {"role": "assistant", "content": None}, **fp))
    for token in rec.chunks:
        yield _sse(_chunk(model, {"content": token}, **fp))
    yield _sse(_chunk(model, {}, "stop", usage=USAGE, timings={"predicted_per_second": 42.0}, **fp))
    yield b"data: [DONE]\n\n"


def _ollama_frames(rec: Recording, model: str, include_usage: bool) -> Iterator[bytes]:
    # Ollama /v1: bigger pieces, and network reads that split events anywhere.
    yield _sse(_chunk(model, {"role": "assistant", "content": ""}))
    for i in range(0, len(rec.chunks), 7):
        frame = _sse(_chunk(model, {"role": "assistant", "content": "".join(rec.chunks[i : i + 7])}))
        yield frame[: len(frame) // 2]
        yield frame[len(frame) // 2 :]
    yield _sse(_chunk(model, {"role": "assistant", "content": ""}, "stop"))
    yield b"data: [DONE]\n\n"


async def _paced(frames: Iterator[bytes]) -> AsyncIterator[bytes]:
    for frame in frames:
        yield frame
        await asyncio.sleep(0)  # let each frame go out as its own write


def _structured_stream(model: str) -> Iterator[bytes]:
    yield _sse(_chunk(model, {"role": "assistant", "content": ""}))
    yield _sse(_chunk(model, {"content": "Checking."}))
    call = {
        "index": 0,
        "id": "call_upstream_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    yield _sse(_chunk(model, {"tool_calls": [call]}))
    yield _sse(_chunk(model, {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Oslo"}'}}]}))
    yield _sse(_chunk(model, {}, "tool_calls"))
    yield b"data: [DONE]\n\n"


def _completion(rec: Recording, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": rec.text}, "finish_reason": "stop"}],
        "usage": USAGE,
    }


# ------------------------------------------------------------------------------------------------
# Servers in threads, on free loopback ports


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[FakeUpstream, int]]:
    fake = FakeUpstream()
    with ServerThread(fake.app()) as srv:
        yield fake, srv.port


@pytest.fixture(scope="module")
def proxy_port(upstream: tuple[FakeUpstream, int]) -> Iterator[int]:
    _, up_port = upstream
    with ServerThread(create_app(f"http://127.0.0.1:{up_port}/v1")) as srv:
        yield srv.port


@pytest.fixture()
def client(proxy_port: int) -> Iterator[Any]:
    c = openai.OpenAI(base_url=f"http://127.0.0.1:{proxy_port}/v1", api_key="x", max_retries=0, timeout=20)
    yield c
    c.close()


def _expected(rec: Recording) -> ParseResult:
    """What the proxy should produce: ``parse()`` of the whole text with the request's preset and tools."""
    parser = build_parser(rec.model, tools=DEMO_TOOLS)
    events = parser.feed(rec.text) + parser.close()
    return ParseResult.from_events(events, parser.finish_reason)


def _content(events: list[Event], *, moved: bool = False) -> str:
    """The proxy's content: the parser's visible text, nothing folded (the parser already drops the
    template's separators, so ``</think>\\n\\n<tool_call>`` gives no ``"\\n\\n"``); ``moved``: text before
    ``TextWasReasoning`` is not content (the non-streaming reply)."""
    text = ""
    for ev in events:
        if moved and isinstance(ev, TextWasReasoning):
            text = ""
        elif isinstance(ev, TextDelta):
            text += ev.text
    return text


def _streamed(rec: Recording) -> tuple[str, str]:
    """Text and reasoning as a stream carries them: text released before an orphan ``</think>`` was already
    sent as content (``TextWasReasoning`` cannot take it back on the wire); the non-streaming response
    moves it to reasoning, as ``parse()`` does."""
    parser = build_parser(rec.model, tools=DEMO_TOOLS)
    events = parser.feed(rec.text) + parser.close()
    return _content(events), "".join(e.text for e in events if isinstance(e, ReasoningDelta))


def _calls(calls: Any) -> list[tuple[str, Any]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in calls or []]


MESSAGES = [{"role": "user", "content": "go"}]


# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("style", "name"), CASES)
def test_streaming_client_receives_structured_calls_equal_to_parse(
    client: Any, upstream: tuple[FakeUpstream, int], style: str, name: str
) -> None:
    rec = RECORDINGS[name]
    expected = _expected(rec)
    assert expected.tool_calls, "every recording holds calls"
    stream = client.chat.completions.create(
        model=rec.model,
        messages=MESSAGES,
        tools=DEMO_TOOLS,
        stream=True,
        extra_headers={"x-scenario": f"{style}:{name}"},
    )
    text, reasoning, finish = [], [], []
    calls: dict[int, dict[str, Any]] = {}
    for chunk in stream:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        if delta.content:
            text.append(delta.content)
        if getattr(delta, "reasoning_content", None):
            reasoning.append(delta.reasoning_content)
        for tc in delta.tool_calls or []:
            entry = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
            if tc.id:
                entry["id"] = tc.id
            if tc.function and tc.function.name:
                entry["name"] += tc.function.name
            if tc.function and tc.function.arguments:
                entry["arguments"] += tc.function.arguments
        if choice.finish_reason:
            finish.append(choice.finish_reason)
    got = [(calls[i]["name"], json.loads(calls[i]["arguments"])) for i in sorted(calls)]
    assert got == [(c.name, c.arguments) for c in expected.tool_calls]
    assert ("".join(text), "".join(reasoning)) == _streamed(rec)
    assert finish == ["tool_calls"]
    ids = [calls[i]["id"] for i in sorted(calls)]
    assert all(ids) and len(set(ids)) == len(ids)
    # The request went upstream as the client sent it: nothing added (no stream_options).
    sent = upstream[0].requests[-1]
    assert "stream_options" not in sent
    assert sent["tools"] == DEMO_TOOLS and sent["stream"] is True


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_non_streaming_completion_has_tool_calls_equal_to_parse(client: Any, name: str) -> None:
    rec = RECORDINGS[name]
    expected = _expected(rec)
    resp = client.chat.completions.create(
        model=rec.model,
        messages=MESSAGES,
        tools=DEMO_TOOLS,
        extra_headers={"x-scenario": f"vllm:{name}"},
    )
    msg = resp.choices[0].message
    assert _calls(msg.tool_calls) == [(c.name, c.arguments) for c in expected.tool_calls]
    assert (msg.content or "") == _content(expected.events, moved=True)
    assert (getattr(msg, "reasoning_content", None) or "") == expected.reasoning
    assert resp.choices[0].finish_reason == "tool_calls"
    assert resp.usage is not None and resp.usage.total_tokens == USAGE["total_tokens"]


def test_tool_call_ids_are_unique_within_and_across_responses(client: Any) -> None:
    ids: list[str] = []
    for _ in range(2):
        resp = client.chat.completions.create(
            model=RECORDINGS["qwen3"].model,
            messages=MESSAGES,
            tools=DEMO_TOOLS,
            extra_headers={"x-scenario": "vllm:qwen3"},
        )
        ids += [c.id for c in resp.choices[0].message.tool_calls or []]
    assert len(ids) == 4 and len(set(ids)) == 4


def test_usage_chunk_reaches_the_client_only_when_asked_for(client: Any, upstream: tuple[FakeUpstream, int]) -> None:
    stream = client.chat.completions.create(
        model=RECORDINGS["qwen3"].model,
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
        extra_headers={"x-scenario": "vllm:qwen3"},
    )
    usages = [c.usage for c in stream if c.usage is not None]
    assert [u.total_tokens for u in usages] == [USAGE["total_tokens"]]
    assert upstream[0].requests[-1]["stream_options"] == {"include_usage": True}


def test_upstream_error_reaches_client_with_same_status_and_body(client: Any) -> None:
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(
                model="any",
                messages=MESSAGES,
                stream=stream,
                extra_headers={"x-scenario": "error:"},
            )
        assert info.value.status_code == 400
        assert info.value.body == ERROR_BODY["error"]


def test_structured_upstream_calls_pass_through_untouched(client: Any) -> None:
    stream = client.chat.completions.create(
        model="Qwen/Qwen3-8B",
        messages=MESSAGES,
        tools=DEMO_TOOLS,
        stream=True,
        extra_headers={"x-scenario": "structured:"},
    )
    deltas = [c.choices[0].delta for c in stream if c.choices]
    calls = [tc for d in deltas for tc in d.tool_calls or []]
    assert calls[0].id == "call_upstream_1" and calls[0].function and calls[0].function.name == "get_weather"
    assert "".join(tc.function.arguments or "" for tc in calls if tc.function) == '{"city": "Oslo"}'
    assert "".join(d.content or "" for d in deltas) == "Checking."


def test_other_v1_routes_are_passed_through(client: Any) -> None:
    models = client.models.list()
    assert [m.id for m in models.data] == ["fake-model"]


def test_client_disconnect_mid_stream_closes_the_upstream_stream(
    client: Any, upstream: tuple[FakeUpstream, int]
) -> None:
    fake = upstream[0]
    fake.closed_early.clear()
    stream = client.chat.completions.create(
        model="some/unknown-model",
        messages=MESSAGES,
        stream=True,
        extra_headers={"x-scenario": "slow:"},
    )
    seen = 0
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            seen += 1
            if seen == 3:
                break
    stream.close()
    assert fake.closed_early.wait(timeout=10), "the upstream generator was never closed"
    assert fake.slow_sent < 400


# ------------------------------------------------------------------------------------------------
# In process, through create_app(transport=...): the server options and the non-streaming passthrough


def _mock_app(reply: dict[str, Any], **options: Any) -> Any:
    import httpx
    from starlette.testclient import TestClient

    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json=reply)

    app = create_app("http://upstream.invalid", transport=httpx.MockTransport(handler), **options)
    return TestClient(app), seen


def test_non_streaming_structured_calls_pass_through_untouched() -> None:
    message = {
        "role": "assistant",
        "content": '<tool_call>{"name": "x", "arguments": {}}</tool_call>',
        "tool_calls": [{"id": "up_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}],
    }
    reply = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }
    client, _ = _mock_app(reply)
    with client:
        got = client.post("/v1/chat/completions", json={"model": "Qwen/Qwen3-8B", "messages": MESSAGES}).json()
    assert got == reply


def test_server_format_option_overrides_the_request_model_preset() -> None:
    text = 'Sure.<function=get_weather>{"city": "Oslo"}</function>'
    reply = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    for options, calls in (({}, []), ({"formats": ["function_tag"]}, [("get_weather", {"city": "Oslo"})])):
        client, seen = _mock_app(reply, **options)
        with client:
            # Qwen3's preset is hermes only: function_tag markup stays text unless the server says otherwise.
            body = {"model": "Qwen/Qwen3-8B", "messages": MESSAGES, "tools": DEMO_TOOLS}
            got = client.post("/v1/chat/completions", json=body).json()
        msg = got["choices"][0]["message"]
        assert [
            (c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg.get("tool_calls") or []
        ] == calls
        assert seen == [body]
        if calls:
            assert msg["content"] == "Sure." and got["choices"][0]["finish_reason"] == "tool_calls"
        else:
            assert msg["content"] == text
