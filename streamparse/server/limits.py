"""A chat request body, parsed at a cost bounded by what the client sent.

Parsed JSON takes several times its size in Python objects (``{"type":"integer"}``: 18 bytes of text,
~250 bytes of dict and strings), and building a validator for a tool costs far more than that. So:

1. Before parsing, the JSON values are counted on the raw bytes (C-speed ``bytes.count`` of separators,
   then outside strings only when that is over the cap): more than ``max_json_values`` is answered 413
   without building a single object.
2. ``json.loads``; a body nested past what the parser's recursion allows is a 400, not a 500.
3. One iterative walk checks the nesting depth of every field (``max_json_depth``).
4. ``tools``: at most ``max_tools``, each at most ``max_schema_bytes`` as compact JSON and
   ``max_schema_depth`` deep (400). Validators are built later, only for tools the model calls
   (``streamparse.tools``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .options import ServerOptions

__all__ = ["BodyRefused", "parse_chat_body", "count_values"]

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


class BodyRefused(ValueError):
    """The body breaks a limit: ``status`` (400/413), OpenAI error ``code`` and a message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def _quick_count(body: bytes | bytearray) -> int:
    return body.count(b",") + body.count(b"[") + body.count(b"{") + 1


def count_values(body: bytes | bytearray, cap: int) -> int:
    """An upper bound of the JSON values in ``body`` (every value but the first follows a comma or opens
    a container), exact enough to compare with ``cap``. Separators inside strings are discounted only
    when the quick count is over ``cap``, by a scan that stops as soon as the count outside strings
    passes ``cap`` (so its cost is bounded by ``cap`` strings, not by the body)."""
    quick = _quick_count(body)
    if quick <= cap:
        return quick
    count, prev = 1, 0
    for m in _STRING.finditer(body):
        start = m.start()
        count += body.count(b",", prev, start) + body.count(b"[", prev, start) + body.count(b"{", prev, start)
        if count > cap:
            return count
        prev = m.end()
    return count + body.count(b",", prev) + body.count(b"[", prev) + body.count(b"{", prev)


def _path(parts: list[Any]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)[:200]


def _too_deep(value: Any, limit: int) -> list[Any] | None:
    """The path of the first container nested deeper than ``limit``, or None (iterative)."""
    stack: list[tuple[Any, int, list[Any]]] = [(value, 1, [])]
    while stack:
        node, depth, path = stack.pop()
        if depth > limit:
            return path
        if isinstance(node, dict):
            stack.extend((v, depth + 1, [*path, k]) for k, v in node.items() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1, [*path, i]) for i, v in enumerate(node) if isinstance(v, (dict, list)))
    return None


def _check_tools(tools: Any, opts: ServerOptions) -> None:
    if not isinstance(tools, list):
        return  # not ours to judge: the upstream answers it
    if len(tools) > opts.max_tools:
        raise BodyRefused(400, "too_many_tools", f"the request has {len(tools)} tools; at most {opts.max_tools}")
    for i, tool in enumerate(tools):
        size = len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False))
        if size > opts.max_schema_bytes:
            raise BodyRefused(
                400, "tool_too_large", f"tools[{i}] is {size} bytes as JSON; at most {opts.max_schema_bytes}"
            )
        deep = _too_deep(tool, opts.max_schema_depth)
        if deep is not None:
            raise BodyRefused(
                400,
                "tool_too_deep",
                f"tools[{i}] nests deeper than {opts.max_schema_depth} levels (at {_path([i, *deep])[1:]})",
            )


def parse_chat_body(body: bytes | bytearray, opts: ServerOptions) -> dict[str, Any]:
    """The request as a dict, or :class:`BodyRefused`."""
    values = count_values(body, opts.max_json_values)
    if values > opts.max_json_values:
        raise BodyRefused(
            413, "too_many_values", f"the request body has about {values} JSON values; at most {opts.max_json_values}"
        )
    try:
        payload = json.loads(body)
    except RecursionError:
        raise BodyRefused(400, "too_deep", f"the request body nests deeper than {opts.max_json_depth} levels") from None
    except ValueError as exc:  # also UnicodeDecodeError
        raise BodyRefused(400, "invalid_json", f"the request body is not valid JSON: {str(exc)[:200]}") from None
    deep = _too_deep(payload, opts.max_json_depth)
    if deep is not None:
        raise BodyRefused(
            400, "too_deep", f"the request body nests deeper than {opts.max_json_depth} levels (at {_path(deep)})"
        )
    if not isinstance(payload, dict):
        raise BodyRefused(400, "invalid_json", "the request body must be a JSON object")
    _check_tools(payload.get("tools"), opts)
    return payload
