"""A chat request body, checked at a cost bounded by what the client sent.

Parsed JSON takes about ten times its text in Python objects, and building a validator for a tool costs
far more than that. So the body is never parsed whole:

1. Before anything else, the JSON values are counted on the raw bytes (C-speed ``bytes.count`` of
   separators, then outside strings only when that is over the cap): more than ``max_json_values`` is
   answered 413.
2. One scan (``jsonscan.py``) checks the grammar, UTF-8 and the nesting depth of every field
   (``max_json_depth``: 400) and records where each top-level value and each tool lies in the body.
3. ``tools``: at most ``max_tools``; each definition is parsed on its own, checked (at most
   ``max_schema_bytes`` as compact JSON, ``max_schema_depth`` deep: 400, and a valid tool definition),
   and let go: the request keeps the spans (:class:`~.lazytools.LazyToolSet`), and a tool becomes Python
   objects again only when a call names it.
4. The other fields are decoded when asked for (``ChatBody.get``); the body goes upstream as it came.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

from ..tools import ToolSet
from .jsonscan import ScanError, scan
from .lazytools import LazyToolSet
from .options import ServerOptions

__all__ = ["BodyRefused", "ChatBody", "parse_chat_body", "count_values", "in_pieces"]

log = logging.getLogger("streamparse.server")
_RAW_SCHEMA_FACTOR = 8  # a tool this many times over max_schema_bytes as sent is refused unparsed
_EMPTY_ARRAY_TAIL = re.compile(rb"[ \t\n\r]*\]")
_PIECE = 65536


async def in_pieces(body: bytes | bytearray) -> AsyncIterator[bytes]:
    """``body`` as an httpx request stream, from its buffer (httpx would copy a bytearray whole)."""
    view = memoryview(body)
    for i in range(0, len(view), _PIECE):
        yield bytes(view[i : i + _PIECE])


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


class ChatBody:
    """A checked chat request: ``raw`` (the body as received, forwarded as is), its top-level values
    decoded on demand (:meth:`get`), and ``tools``: a :class:`LazyToolSet` for a ``tools`` array (None
    when empty, or when a definition is not usable for validation: ``tools_problem`` says why), else the
    decoded value."""

    def __init__(self, raw: bytes | bytearray, keys: dict[str, tuple[int, int]]) -> None:
        self.raw, self.keys = raw, keys
        self.tools: Any = None
        self.tools_problem: str | None = None
        self._decoded: dict[str, Any] = {}

    def get(self, key: str, default: Any = None) -> Any:
        """The top-level value ``key``, decoded (and kept) on first use: ask only for small fields."""
        if key not in self.keys:
            return default
        if key not in self._decoded:
            start, end = self.keys[key]
            self._decoded[key] = json.loads(self.raw[start:end])
        return self._decoded[key]

    def payload(self) -> dict[str, Any]:
        """The whole request as a dict (``--tools-in-prompt`` rewrites it: that mode pays for parsing)."""
        payload = json.loads(self.raw)
        assert isinstance(payload, dict)
        return payload

    def with_messages(self, extra: list[dict[str, Any]]) -> bytes:
        """The body with ``extra`` appended to its ``messages``, spliced into the original bytes."""
        start, end = self.keys.get("messages", (0, 0))
        if not extra:
            return bytes(self.raw)
        if self.raw[start : start + 1] != b"[":
            payload = self.payload()  # no messages array to append to: rebuilt (the upstream will refuse it)
            messages = payload.get("messages")
            payload["messages"] = [*(messages if isinstance(messages, list) else []), *extra]
            return json.dumps(payload, ensure_ascii=False).encode()
        empty = _EMPTY_ARRAY_TAIL.match(self.raw, start + 1)
        lead = b"" if empty is not None and empty.end() == end else b", "
        added = lead + b", ".join(json.dumps(m, ensure_ascii=False).encode() for m in extra)
        with memoryview(self.raw) as view:  # views, not slices: the new body is the only copy made
            return b"".join((view[: end - 1], added, view[end - 1 :]))


def _one_tool(raw: bytes | bytearray, i: int, span: tuple[int, int], opts: ServerOptions) -> Any:
    """Tool ``i`` (``raw[span]``) parsed and checked against the caps (:class:`BodyRefused`)."""
    start, end = span
    if end - start > _RAW_SCHEMA_FACTOR * opts.max_schema_bytes:
        raise BodyRefused(
            400, "tool_too_large", f"tools[{i}] is {end - start} bytes as sent; at most {opts.max_schema_bytes}"
        )
    tool = json.loads(raw[start:end])
    size = len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False))
    if size > opts.max_schema_bytes:
        raise BodyRefused(400, "tool_too_large", f"tools[{i}] is {size} bytes as JSON; at most {opts.max_schema_bytes}")
    deep = _too_deep(tool, opts.max_schema_depth)
    if deep is not None:
        where = _path([i, *deep])[1:]
        raise BodyRefused(
            400, "tool_too_deep", f"tools[{i}] nests deeper than {opts.max_schema_depth} levels (at {where})"
        )
    return tool


def _check_tools(body: ChatBody, spans: list[tuple[int, int]], opts: ServerOptions) -> None:
    """Each tool checked and let go, one at a time: what stays is its name and span."""
    if len(spans) > opts.max_tools:
        raise BodyRefused(400, "too_many_tools", f"the request has {len(spans)} tools; at most {opts.max_tools}")
    named: dict[str, tuple[int, int]] = {}
    for i, span in enumerate(spans):
        tool = _one_tool(body.raw, i, span, opts)
        if body.tools_problem is not None:
            continue  # the caps still apply to the rest
        try:
            name = next(iter(ToolSet([tool])))  # every check a ToolSet makes, then let go
        except Exception as exc:  # ValueError for a bad definition; anything else is not the client's 500
            body.tools_problem = str(exc) or type(exc).__name__
            continue
        if name in named:
            body.tools_problem = f"duplicate tool name {name!r}"
        named[name] = span
    if named and body.tools_problem is None:
        body.tools = LazyToolSet(body.raw, named)


def parse_chat_body(body: bytes | bytearray, opts: ServerOptions) -> ChatBody:
    """The request as a :class:`ChatBody`, or :class:`BodyRefused`."""
    values = count_values(body, opts.max_json_values)
    if values > opts.max_json_values:
        raise BodyRefused(
            413, "too_many_values", f"the request body has about {values} JSON values; at most {opts.max_json_values}"
        )
    try:
        found = scan(body, opts.max_json_depth)
    except ScanError as exc:
        if exc.depth:
            raise BodyRefused(400, "too_deep", str(exc)) from None
        raise BodyRefused(400, "invalid_json", f"the request body is not valid JSON: {str(exc)[:200]}") from None
    if not found.is_object:
        raise BodyRefused(400, "invalid_json", "the request body must be a JSON object")
    chat = ChatBody(body, found.keys)
    start, _ = found.keys.get("tools", (0, 0))
    if body[start : start + 1] == b"[":
        _check_tools(chat, found.tools, opts)
    elif "tools" in found.keys:
        chat.tools = chat.get("tools")  # not a list: ToolSet reads a name -> schema mapping, or says no
    return chat
