"""The playground's HTTP side: the page and its assets (package data, no CDN), the examples and catalog
(``GET api/meta``), model presets (``GET api/preset``) and replays (``POST api/replay``, streamed back as
server-sent events).

Every URL the page uses is relative, so the same routes work at the root (``streamparse playground``) and
under a prefix in the proxy (:func:`mount`). Replays are bounded: the request body and the input have size
limits, each request runs exactly one replay that ends by itself (its pacing is shortened so that it lasts
at most ``LIMITS["replay_seconds"]``), a client that goes away stops it, and at most ``max_replays`` run at
once (more get 429).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from functools import lru_cache
from importlib import resources
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route

from streamparse import StreamParser, formats

from .examples import examples
from .replay import LIMITS, MAX_SPEED, ReplayRequest, RequestError, replay

__all__ = ["create_app", "mount", "routes", "MAX_BODY_BYTES"]

MAX_BODY_BYTES = 2 * 1024 * 1024  # the input limit in UTF-8 at worst, plus the tools
_STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
# Model ids offered as suggestions (the field takes any id; StreamParser.for_model resolves it).
_MODEL_SUGGESTIONS = (
    "Qwen/Qwen3-8B",
    "Qwen/Qwen3-30B-A3B-Thinking-2507",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct",
    "Qwen/Qwen2.5-7B-Instruct",
    "deepseek-ai/DeepSeek-V3.1",
    "deepseek-ai/DeepSeek-R1-0528",
    "moonshotai/Kimi-K2-Instruct-0905",
    "zai-org/GLM-4.5-Air",
    "MiniMaxAI/MiniMax-M2",
    "openai/gpt-oss-20b",
    "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Llama-4-Scout-17B-16E-Instruct",
    "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
    "NousResearch/Hermes-3-Llama-3.1-8B",
    "google/gemma-3-27b-it",
    "ibm-granite/granite-3.3-8b-instruct",
    "microsoft/Phi-4-mini-instruct",
    "ByteDance-Seed/Seed-OSS-36B-Instruct",
    "qwen3:8b",
    "llama3.1:8b",
)


# Sent with every playground response: the page runs only its own scripts and styles, talks only to its own
# origin, cannot be framed (clickjacking) and its assets are never sniffed into another type.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def _static(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


@lru_cache(maxsize=1)
def _meta() -> dict[str, Any]:
    catalog = []
    for name in formats.names():
        # From the declaration itself: ``describe`` would also parse each example (a parser built per
        # format, seconds in all), which the page does not show, and the first page load would wait for it.
        spec = formats.get(name)
        catalog.append({"name": name, "models": spec.models, "opt_in": bool(spec.opt_in)})
    exs = list(examples())
    models = list(
        dict.fromkeys([e["state"]["model"] for e in exs if e["kind"] == "recording"] + list(_MODEL_SUGGESTIONS))
    )
    return {"formats": catalog, "examples": exs, "models": models, "limits": LIMITS, "max_speed": MAX_SPEED}


def preset_info(model: str) -> dict[str, Any]:
    """What ``StreamParser.for_model(model)`` would configure, for the page's preset line."""
    parser = StreamParser.for_model(model)
    preset = parser.preset
    return {
        "model": model,
        "family": preset.family,
        "matched": preset.matched,
        "formats": list(parser.formats) if preset.matched else "auto",
        "start_in_reasoning": preset.start_in_reasoning,
        "note": preset.note,
    }


def _sse(event: str, data: Any) -> bytes:
    # Compact JSON never contains a newline, so one data line per message.
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


async def _read_body(request: Request) -> bytes | None:
    """The body, or None once it grows past MAX_BODY_BYTES (the rest is not read)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        return None
    body = bytearray()
    async for part in request.stream():
        body += part
        if len(body) > MAX_BODY_BYTES:
            return None
    return bytes(body)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=SECURITY_HEADERS)


class _Playground:
    """The routes, sharing one count of running replays."""

    def __init__(self, max_replays: int) -> None:
        self.max_replays = max_replays
        self.running = 0

    async def index(self, request: Request) -> Response:
        headers = {"cache-control": "no-cache", **SECURITY_HEADERS}
        return Response(_static("index.html"), media_type=_STATIC_TYPES[".html"], headers=headers)

    async def asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        suffix = name[name.rfind(".") :] if "." in name else ""
        if "/" in name or name.startswith(".") or suffix not in _STATIC_TYPES or name == "index.html":
            return _error(404, "not found")
        try:
            body = _static(name)
        except (FileNotFoundError, IsADirectoryError):
            return _error(404, "not found")
        return Response(
            body, media_type=_STATIC_TYPES[suffix], headers={"cache-control": "no-cache", **SECURITY_HEADERS}
        )

    async def meta(self, request: Request) -> Response:
        return JSONResponse(_meta(), headers=SECURITY_HEADERS)

    async def preset(self, request: Request) -> Response:
        model = request.query_params.get("model", "").strip()
        if not model or len(model) > 300:
            return _error(400, "pass ?model=<model id>")
        return JSONResponse(preset_info(model), headers=SECURITY_HEADERS)

    async def replay(self, request: Request) -> Response:
        # JSON only: any web page can POST text/plain or a form here without a preflight (CSRF).
        ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            return _error(415, f"the request body must be application/json, not {ctype[:80] or 'untyped'}")
        body = await _read_body(request)
        if body is None:
            return _error(413, f"request body over {MAX_BODY_BYTES} bytes")
        try:
            req = ReplayRequest.from_json(json.loads(body or b"{}"))
            messages = replay(req)
            first = next(messages)  # options and input are checked here, before any byte is sent
        except ValueError as exc:  # RequestError, or a body that is not JSON
            msg = str(exc) if isinstance(exc, RequestError) else f"the request body is not JSON: {exc}"
            return _error(400, msg)
        if self.running >= self.max_replays:
            return _error(429, f"{self.max_replays} replays are running; try again when one ends")
        steps = max(1, first[1]["steps"])
        delay = 0.0 if req.speed == 0 else min(1.0 / req.speed, LIMITS["replay_seconds"] / steps)
        self.running += 1

        async def stream() -> AsyncIterator[bytes]:
            try:
                yield _sse(*first)
                for event, data in messages:
                    yield _sse(event, data)
                    if event == "step":
                        await anyio.sleep(delay)  # also lets a disconnect cancel the replay
            finally:
                self.running -= 1

        headers = {"cache-control": "no-store", "x-accel-buffering": "no", **SECURITY_HEADERS}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


def routes(*, max_replays: int = 4) -> list[BaseRoute]:
    """The playground's routes, relative to where they are mounted (``/`` is the page)."""
    pg = _Playground(max_replays)
    return [
        Route("/", pg.index, methods=["GET"]),
        Route("/static/{name}", pg.asset, methods=["GET"]),
        Route("/api/meta", pg.meta, methods=["GET"]),
        Route("/api/preset", pg.preset, methods=["GET"]),
        Route("/api/replay", pg.replay, methods=["POST"]),
    ]


def create_app(*, max_replays: int = 4) -> Starlette:
    """The playground as its own app (``streamparse playground``)."""
    return Starlette(routes=routes(max_replays=max_replays))


def mount(path: str = "/playground", *, max_replays: int = 4) -> list[BaseRoute]:
    """Routes for another app (the proxy's ``serve --playground``): the page at ``{path}/``, and a
    redirect from ``{path}`` so the page's relative URLs resolve. Add them before any catch-all route."""
    path = "/" + path.strip("/")

    async def to_slash(request: Request) -> Response:
        return RedirectResponse(str(request.url.replace(path=request.url.path + "/")), status_code=307)

    return [Route(path, to_slash, methods=["GET"]), Mount(path, routes=routes(max_replays=max_replays))]
