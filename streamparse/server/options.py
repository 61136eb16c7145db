"""The proxy's settings: one dataclass, its command-line flags, and the start-up checks.

Kept free of starlette/httpx/uvicorn imports so ``streamparse --help`` works with the core install; the
CLI only calls :func:`add_arguments` and :func:`from_args`.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

__all__ = ["ServerOptions", "add_arguments", "from_args", "upstream_base", "check_not_self", "ENV_OPTIONS"]

DEFAULT_PORT = 8090  # not 8000: that is vLLM's default, the most common upstream
ENV_OPTIONS = "STREAMPARSE_SERVE_OPTIONS"  # how uvicorn worker processes receive the options (JSON)
OnReject = Literal["note", "error", "drop"]


@dataclass(frozen=True)
class ServerOptions:
    """Everything ``create_app`` needs besides the upstream URL. Defaults are the documented ones."""

    preset: str | None = None
    formats: Sequence[str] | str | None = None
    on_reject: OnReject = "note"
    pass_invalid: bool = False  # schema-invalid calls (declared tool) go to the client to validate
    eager: bool = False
    tools_in_prompt: bool = False  # upstream without tool support: tools rendered into the system prompt
    playground: bool = False  # the playground page at /playground/ beside the proxy
    max_body_bytes: int = 16 * 1024 * 1024
    max_sse_line_chars: int = 4 * 1024 * 1024
    max_call_chars: int | None = 4 * 1024 * 1024
    separators: Literal["drop", "keep"] = "drop"  # "keep": template whitespace around markup stays in content
    ping_interval: float = 15.0  # seconds of silence towards the client before a ``: ping`` comment
    connect_timeout: float = 10.0
    read_timeout: float = 600.0  # longest silence from the upstream mid-reply
    write_timeout: float = 60.0
    pool_timeout: float = 30.0  # longest wait for a free upstream connection (then 503)
    max_connections: int = 4096
    max_keepalive: int = 512

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        if data["formats"] is not None and not isinstance(data["formats"], str):
            data["formats"] = list(data["formats"])
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> ServerOptions:
        return cls(**json.loads(text))


def upstream_base(upstream: str) -> str:
    """The upstream base URL with ``/v1`` appended to a bare ``http://host:port``; a URL without an http(s)
    scheme or host is refused now rather than failing every request later."""
    base = upstream.strip().rstrip("/")
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"upstream {upstream!r} must be an http:// or https:// URL with a host")
    if parts.query or parts.fragment:
        raise ValueError(f"upstream {upstream!r} must not have a query or fragment")
    if parts.path in ("", "/"):
        base += "/v1"
    return base


def _is_local(host: str) -> bool:
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return ip.is_loopback or ip.is_unspecified


def check_not_self(upstream: str, host: str, port: int) -> None:
    """Refuse an upstream that is this proxy's own listening address (every request would loop). At run
    time a hop header catches loops through other names (see ``app.HOP_HEADER``)."""
    parts = urlsplit(upstream_base(upstream))
    up_port = parts.port or (443 if parts.scheme == "https" else 80)
    if up_port != port:
        return
    up_host = parts.hostname or ""
    if (
        up_host == host
        or (_is_local(up_host) and _is_local(host))
        or (_is_local(up_host) and host in ("0.0.0.0", "::"))
    ):
        raise ValueError(f"upstream {upstream!r} is this proxy's own address ({host}:{port})")


def add_arguments(srv: argparse.ArgumentParser) -> None:
    """The ``streamparse serve`` flags."""
    d = ServerOptions()
    add = srv.add_argument
    add("--upstream", required=True, metavar="URL", help="upstream base URL, e.g. http://127.0.0.1:8080/v1")
    add("--host", default="127.0.0.1")
    add("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    add("--workers", type=int, default=1, help="worker processes (uvicorn); each has its own pool and limits")
    add("--model-preset", metavar="ID", help="parser preset for every request (default: the request's model)")
    add("--format", action="append", metavar="NAME", help="format name (repeatable); overrides presets")
    add("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    add(
        "--on-reject",
        choices=["note", "error", "drop"],
        default=d.on_reject,
        help="a rejected call: a note in the stream (default), an error event that ends it, or nothing",
    )
    add(
        "--pass-invalid",
        action="store_true",
        help="send calls to declared tools that break their schema to the client anyway (it validates)",
    )
    add("--eager", action="store_true", help="stream argument deltas as they arrive (default: whole calls)")
    add(
        "--tools-in-prompt",
        action="store_true",
        help="upstream without tool support: drop tools/tool_choice, describe the tools in the system prompt",
    )
    add("--playground", action="store_true", help="also serve the playground page at /playground/")
    add("--max-body-bytes", type=int, default=d.max_body_bytes, help="largest request body (else 413)")
    add(
        "--max-sse-line",
        type=int,
        default=d.max_sse_line_chars,
        dest="max_sse_line_chars",
        help="longest upstream SSE line in characters (else the stream ends with an error)",
    )
    add("--max-call-chars", type=int, default=d.max_call_chars, help="largest call (else rejected too_large)")
    add(
        "--keep-separators",
        action="store_const",
        const="keep",
        default=d.separators,
        dest="separators",
        help="keep the whitespace templates write around markup in content and reasoning (default: dropped)",
    )
    add("--ping-interval", type=float, default=d.ping_interval, help="seconds of silence before a ': ping'")
    add("--connect-timeout", type=float, default=d.connect_timeout)
    add("--read-timeout", type=float, default=d.read_timeout, help="longest upstream silence mid-reply")
    add("--write-timeout", type=float, default=d.write_timeout)
    add("--pool-timeout", type=float, default=d.pool_timeout, help="longest wait for an upstream connection")
    add("--max-connections", type=int, default=d.max_connections, help="upstream connection pool size")
    add("--max-keepalive", type=int, default=d.max_keepalive, help="idle upstream connections kept")


def from_args(args: argparse.Namespace) -> ServerOptions:
    names = {f.name for f in dataclasses.fields(ServerOptions)}
    values: dict[str, Any] = {k: v for k, v in vars(args).items() if k in names}
    values["preset"] = args.model_preset
    values["formats"] = args.format
    return ServerOptions(**values)


def env_options() -> tuple[str, ServerOptions, str]:
    """The upstream, options and log level a worker process was started with (see ``app.app_from_env``)."""
    data = json.loads(os.environ[ENV_OPTIONS])
    return data["upstream"], ServerOptions.from_json(data["options"]), data.get("log_level", "info")
