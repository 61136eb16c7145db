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
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

__all__ = ["ServerOptions", "add_arguments", "from_args", "upstream_base", "check_not_self", "ENV_OPTIONS"]

DEFAULT_PORT = 8090  # not 8000: that is vLLM's default, the most common upstream
ENV_OPTIONS = "STREAMPARSE_SERVE_OPTIONS"  # how uvicorn worker processes receive the options (JSON)
OnReject = Literal["note", "error", "drop", "retry"]
ENV_API_KEYS = "STREAMPARSE_API_KEYS"  # client keys, separated by commas or whitespace
ENV_UPSTREAM_KEY = "STREAMPARSE_UPSTREAM_API_KEY"
_LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")


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
    chat_template: str | None = None  # a template file or model folder: derive the format when no preset matches
    chat_template_first: bool = False  # derive from chat_template even when a preset matches
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
    retries: int = 1  # ``on_reject="retry"``: upstream requests per reply for corrections, at most
    # -- hostile clients (docs/deploying.md) --
    api_keys: tuple[str, ...] = field(default=(), repr=False)  # empty: no authentication
    upstream_api_key: str | None = field(default=None, repr=False)  # replaces the client's Authorization
    allowed_hosts: tuple[str, ...] | None = None  # Host header names accepted (None: any)
    max_tools: int = 128
    max_schema_bytes: int = 64 * 1024  # one tool definition, as compact JSON
    max_schema_depth: int = 32
    max_json_depth: int = 64  # nesting of the chat request body
    max_json_values: int = 100_000  # JSON values in the chat request body (its parsed size)
    head_timeout: float = 30.0  # the request head must arrive within this (then the socket is closed)
    body_min_rate: int = 1024  # bytes/s the body must average over each body_rate_window
    body_rate_window: float = 10.0
    max_drain_bytes: int = 64 * 1024 * 1024  # of an over-limit body, read and discarded so the 413 is seen

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        if data["formats"] is not None and not isinstance(data["formats"], str):
            data["formats"] = list(data["formats"])
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> ServerOptions:
        data = json.loads(text)
        data["api_keys"] = tuple(data.get("api_keys", ()))
        if data.get("allowed_hosts") is not None:
            data["allowed_hosts"] = tuple(data["allowed_hosts"])
        return cls(**data)


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
        type=_on_reject,
        default=d.on_reject,
        metavar="note|error|drop|retry[:N]",
        help="a rejected call: a note in the stream (default), an error event that ends it, nothing, or "
        "ask the upstream again with the validation error, up to N times (default 1), then a note",
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
    add(
        "--chat-template",
        metavar="FILE|DIR",
        help="the served model's chat template (a .jinja, tokenizer_config.json or model folder): its format is "
        "derived from it when no preset knows the request's model",
    )
    add("--chat-template-first", action="store_true", help="use --chat-template even when a preset matches")
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
    sec = srv.add_argument_group("hostile clients", "see docs/deploying.md")
    sec.add_argument(
        "--api-key",
        action="append",
        metavar="KEY",
        help=f"accept only requests with this key (repeatable; also --api-key-file, ${ENV_API_KEYS})",
    )
    sec.add_argument("--api-key-file", action="append", metavar="PATH", help="client keys, one per line")
    sec.add_argument(
        "--upstream-api-key",
        metavar="KEY",
        help=f"Authorization sent upstream instead of the client's (also ${ENV_UPSTREAM_KEY})",
    )
    sec.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="Host header accepted (repeatable; '*': any). Default on loopback: localhost names; else any",
    )
    for flag, kind, what in (
        ("--max-tools", int, "tools in one request (else 400)"),
        ("--max-schema-bytes", int, "one tool definition in bytes (else 400)"),
        ("--max-schema-depth", int, "nesting of one tool's schema (else 400)"),
        ("--max-json-depth", int, "nesting of a chat request body (else 400)"),
        ("--max-json-values", int, "JSON values in a chat request body (else 413)"),
        ("--head-timeout", float, "seconds for a request head to arrive (then the socket is closed)"),
        ("--body-min-rate", int, "bytes/s a request body must average over each --body-rate-window"),
        ("--body-rate-window", float, "seconds over which --body-min-rate is measured"),
        ("--max-drain-bytes", int, "of a body over --max-body-bytes, read and discarded so the 413 is seen"),
    ):
        dest = flag[2:].replace("-", "_")
        sec.add_argument(flag, type=kind, default=getattr(d, dest), help=f"{what}; default %(default)s")


def _on_reject(text: str) -> tuple[str, int]:
    mode, _, count = text.partition(":")
    if mode not in ("note", "error", "drop", "retry") or (count and mode != "retry"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected note, error, drop or retry[:N]")
    if count and (not count.isdigit() or not 1 <= int(count) <= 10):
        raise argparse.ArgumentTypeError(f"{text!r}: N must be an integer from 1 to 10")
    return mode, int(count or 1)


def _keys(args: argparse.Namespace) -> tuple[str, ...]:
    keys = list(args.api_key or [])
    for path in args.api_key_file or []:
        try:
            with open(path, encoding="utf-8") as f:
                keys += [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]
        except OSError as exc:
            raise ValueError(f"--api-key-file {path}: {exc.strerror}") from None
    keys += os.environ.get(ENV_API_KEYS, "").replace(",", " ").split()
    if any(len(k) < 8 for k in keys):
        raise ValueError("an API key must have at least 8 characters")
    return tuple(dict.fromkeys(keys))


def _allowed_hosts(args: argparse.Namespace) -> tuple[str, ...] | None:
    if args.allowed_host:
        names = tuple(h.strip().lower() for h in args.allowed_host)
        return None if "*" in names else names
    host = args.host.strip("[]").lower()
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    return tuple(dict.fromkeys((*_LOCAL_NAMES, host))) if loopback else None


def from_args(args: argparse.Namespace) -> ServerOptions:
    names = {f.name for f in dataclasses.fields(ServerOptions)}
    values: dict[str, Any] = {k: v for k, v in vars(args).items() if k in names}
    values["preset"] = args.model_preset
    values["formats"] = args.format
    values["on_reject"], values["retries"] = args.on_reject
    values["api_keys"] = _keys(args)
    values["upstream_api_key"] = args.upstream_api_key or os.environ.get(ENV_UPSTREAM_KEY) or None
    values["allowed_hosts"] = _allowed_hosts(args)
    return ServerOptions(**values)


def env_options() -> tuple[str, ServerOptions, str]:
    """The upstream, options and log level a worker process was started with (see ``app.app_from_env``)."""
    data = json.loads(os.environ[ENV_OPTIONS])
    return data["upstream"], ServerOptions.from_json(data["options"]), data.get("log_level", "info")
