"""``make bench-proxy``: ``streamparse serve`` against a bare pass-through proxy on the same stack.

Three processes per proxy: a fake upstream (raw asyncio, pre-encoded SSE, one chunk per event), the proxy
(uvicorn), and this process as the load (raw asyncio sockets, checks every stream's content and call).
The pass-through ("bare") is ``streamparse serve``'s own app with the chat route relaying bytes like any
other route: the same uvicorn + httpx + relay code, so the difference is what parsing and rewriting cost.
``--floor starlette`` adds a plain starlette ``StreamingResponse`` relay for comparison.

1. CPU per chunk: ``--cpu-streams`` streams at once, each ``--cpu-chunks`` 8-character chunks, one every
   ``--cpu-interval`` seconds (paced, so each SSE event reaches the proxy as its own read, as tokens do);
   the proxy process's CPU time (``/proc/<pid>/stat``) divided by the chunks relayed.
2. Load: ``--streams`` concurrent streams of 8-character chunks every ``--interval`` seconds (``--chunks``
   per stream, a hermes tool call at the end): every stream must arrive exact; prints time to first body
   byte (p50/p99) and to the last byte.

Run both in one go; the figures are this machine's, shared with whatever else runs on it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MODEL = "Qwen/Qwen3-8B"
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]


def _pieces(chunks: int, with_call: bool) -> list[str]:
    words = "the quick brown fox jumps over a lazy dog and keeps on running far away "
    text = (words * (chunks * 8 // len(words) + 1))[: chunks * 8]
    body = text + (CALL if with_call else "")
    return [body[i : i + 8] for i in range(0, len(body), 8)]


# -- fake upstream (its own process) ------------------------------------------------------------------


def _frame(obj: Any) -> bytes:
    data = b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(data), data)


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def upstream_main(sock: socket.socket, pieces: list[str], interval: float) -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    frames = [_frame(_chunk({"role": "assistant", "content": ""}))]
    frames += [_frame(_chunk({"content": p})) for p in pieces]
    done = b"data: [DONE]\n\n"
    tail = _frame(_chunk({}, "stop")) + b"%x\r\n%s\r\n0\r\n\r\n" % (len(done), done)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:  # keep-alive: one request after another on this connection
                header = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in header.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                writer.write(head)
                for frame in frames:
                    writer.write(frame)
                    if interval:
                        await writer.drain()
                        await asyncio.sleep(interval)
                writer.write(tail)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def serve() -> None:
        server = await asyncio.start_server(handle, sock=sock, backlog=4096)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())


# -- proxies (their own processes) --------------------------------------------------------------------


def bare_app(upstream: str) -> Any:
    """The floor: ``streamparse serve``'s own app with the chat route relaying the upstream's bytes like
    every other route (no parsing, no rewriting): the same uvicorn + httpx + relay code, so the difference
    is what parsing costs."""
    from starlette.requests import Request

    from streamparse.server.app import ProxyApp, create_app

    class PassThrough(ProxyApp):
        async def chat(self, request: Request, url: str, body: bytearray) -> Any:
            return await self.passthrough(request, url, body)

    app = create_app(upstream)
    app.__class__ = PassThrough
    return app


def starlette_app(upstream: str) -> Any:
    """A plain starlette ``StreamingResponse`` relay (``--floor starlette``), for comparison."""
    import httpx
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    client = httpx.AsyncClient(timeout=600, limits=httpx.Limits(max_connections=4096, max_keepalive_connections=512))

    async def chat(request: Request) -> StreamingResponse:
        body = await request.body()
        req = client.build_request("POST", upstream + "/chat/completions", content=body)
        resp = await client.send(req, stream=True)

        async def relay() -> Any:
            try:
                async for piece in resp.aiter_raw():
                    yield piece
            finally:
                await resp.aclose()

        return StreamingResponse(relay(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def proxy_main(sock: socket.socket, kind: str, upstream: str) -> None:
    import uvicorn

    from streamparse.server.deadline import server_settings

    settings: dict[str, Any] = {}
    if kind == "bare":
        app = bare_app(upstream)
    elif kind == "starlette":
        app = starlette_app(upstream)
    else:
        from streamparse.server import create_app

        app = create_app(upstream)
    if kind != "starlette":  # uvicorn as `streamparse serve` runs it: with the head/body deadlines
        settings = server_settings(app.options)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", backlog=4096, **settings)).run(sockets=[sock])


# -- load --------------------------------------------------------------------------------------------


@dataclass
class Result:
    ttfb: float
    total: float
    content: str
    calls: list[tuple[str, str]]
    finish: str | None


async def one_stream(port: int, body: bytes) -> Result:
    start = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\n"
        b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
    )
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")
    ttfb = 0.0
    raw = bytearray()
    while True:  # chunked transfer encoding
        size_line = await reader.readline()
        if not ttfb:
            ttfb = time.perf_counter() - start
        size = int(size_line.strip() or b"0", 16)
        if size == 0:
            break
        raw += await reader.readexactly(size + 2)
        del raw[-2:]
    total = time.perf_counter() - start
    writer.close()
    content: list[str] = []
    calls: dict[int, list[str]] = {}
    finish = None
    for event in bytes(raw).decode().split("\n\n"):
        if not event.startswith("data: ") or event == "data: [DONE]":
            continue
        choice = json.loads(event[6:])["choices"][0]
        delta = choice["delta"]
        content.append(delta.get("content") or "")
        for tc in delta.get("tool_calls") or []:
            entry = calls.setdefault(tc["index"], ["", ""])
            entry[0] += tc["function"].get("name") or ""
            entry[1] += tc["function"].get("arguments") or ""
        finish = choice.get("finish_reason") or finish
    return Result(ttfb, total, "".join(content), [(n, a) for n, a in calls.values()], finish)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _listen() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(4096)
    return sock


def run_case(kind: str, streams: int, chunks: int, interval: float) -> tuple[float, list[Result], int]:
    """(proxy CPU seconds, results, proxy port) for ``streams`` concurrent streams through ``kind``."""
    ctx = multiprocessing.get_context("spawn")
    pieces = _pieces(chunks, with_call=True)
    up_sock, px_sock = _listen(), _listen()
    upstream = ctx.Process(target=upstream_main, args=(up_sock, pieces, interval), daemon=True)
    up_url = f"http://127.0.0.1:{up_sock.getsockname()[1]}/v1"
    proxy = ctx.Process(target=proxy_main, args=(px_sock, kind, up_url), daemon=True)
    upstream.start()
    proxy.start()
    port = px_sock.getsockname()[1]
    try:
        body = json.dumps({"model": MODEL, "messages": [], "tools": TOOLS, "stream": True}).encode()
        time.sleep(1.5)  # the proxy process imports and starts listening (the socket already accepts)
        assert proxy.pid is not None
        asyncio.run(one_stream(port, body))  # warm up (imports, first connection)
        before = cpu_seconds(proxy.pid)

        async def load() -> list[Result]:
            return await asyncio.gather(*(one_stream(port, body) for _ in range(streams)))

        results = asyncio.run(load())
        return cpu_seconds(proxy.pid) - before, results, len(pieces) + 2
    finally:
        for proc in (proxy, upstream):
            proc.terminate()
            proc.join(5)
        up_sock.close()
        px_sock.close()


def exact(kind: str, results: list[Result], chunks: int) -> int:
    pieces = _pieces(chunks, with_call=True)
    text = "".join(pieces)
    if kind in ("bare", "starlette"):
        return sum(r.content == text and r.finish == "stop" for r in results)
    want = [("get_weather", json.dumps({"city": "Oslo"}))]
    body = text[: -len(CALL)]
    return sum(
        r.content == body and [(n, json.dumps(json.loads(a))) for n, a in r.calls] == want and r.finish == "tool_calls"
        for r in results
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpu-streams", type=int, default=20)
    ap.add_argument("--cpu-chunks", type=int, default=400)
    ap.add_argument("--cpu-interval", type=float, default=0.005)
    ap.add_argument("--streams", type=int, default=500)
    ap.add_argument("--chunks", type=int, default=100)
    ap.add_argument("--interval", type=float, default=0.02)
    ap.add_argument("--floor", choices=["bare", "starlette"], action="append", help="pass-throughs to run")
    args = ap.parse_args()
    kinds = [*(args.floor or ["bare"]), "streamparse"]

    print(
        f"1. proxy CPU per chunk ({args.cpu_streams} streams x {args.cpu_chunks} chunks,"
        f" one every {args.cpu_interval * 1000:g} ms)"
    )
    per_chunk: dict[str, float] = {}
    for kind in kinds:
        cpu, results, events = run_case(kind, args.cpu_streams, args.cpu_chunks, args.cpu_interval)
        per_chunk[kind] = cpu / (events * len(results)) * 1e6
        ok = exact(kind, results, args.cpu_chunks)
        print(f"   {kind:<12} {per_chunk[kind]:7.1f} µs/chunk   exact {ok}/{len(results)}")
    ratio = per_chunk["streamparse"] / per_chunk["bare"]
    print(f"   ratio streamparse / pass-through: {ratio:.2f}x  goal <= 1.5: {'ok' if ratio <= 1.5 else 'MISSED'}")

    print(
        f"2. {args.streams} concurrent streams, 8-char chunks every {args.interval * 1000:.0f} ms, {args.chunks} chunks"
    )
    for kind in kinds:
        cpu, results, events = run_case(kind, args.streams, args.chunks, args.interval)
        ok = exact(kind, results, args.chunks)
        ttfb = [r.ttfb for r in results]
        total = [r.total for r in results]
        print(
            f"   {kind:<12} exact {ok}/{len(results)}   TTFB p50 {statistics.median(ttfb):.3f} s"
            f"  p99 {pct(ttfb, 0.99):.3f} s   stream p99 {pct(total, 0.99):.2f} s"
            f"   proxy CPU {cpu:.1f} s ({cpu / (events * len(results)) * 1e6:.0f} µs/chunk)"
        )


if __name__ == "__main__":
    main()
