"""The bundled recordings' tools: OpenAI-style definitions (the parser validates against them) and
deterministic fake bodies the demo dispatches to."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import anyio


def _fn(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


_S: dict[str, Any] = {"type": "string"}
DEMO_TOOLS: list[dict[str, Any]] = [
    _fn(
        "get_weather",
        "Forecast for a city.",
        {"city": _S, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        ["city"],
    ),
    _fn("write_file", "Write a text file in the workspace.", {"path": _S, "content": _S}, ["path", "content"]),
    _fn("run_tests", "Run a test file.", {"path": _S, "verbose": {"type": "boolean"}}, ["path"]),
    _fn("lookup_order", "Fetch an order record.", {"order_id": _S}, ["order_id"]),
    _fn(
        "track_shipment",
        "Carrier status of an order's shipment.",
        {"order_id": _S, "include_events": {"type": "boolean"}},
        ["order_id"],
    ),
    _fn(
        "convert_currency",
        "Convert an amount at today's rate.",
        {"amount": {"type": "number"}, "from_currency": _S, "to_currency": _S},
        ["amount", "from_currency", "to_currency"],
    ),
    _fn("search_docs", "Search the internal docs.", {"query": _S, "limit": {"type": "integer"}}, ["query"]),
    _fn(
        "create_event",
        "Put an event on the calendar.",
        {"title": _S, "start": _S, "duration_minutes": {"type": "integer"}},
        ["title", "start"],
    ),
]

_RATES = {"EUR": 1.0, "USD": 1.08, "GBP": 0.85, "JPY": 168.4, "CHF": 0.96}


def _get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
    seed = sum(map(ord, city))
    temp_c = 12 + seed % 15
    temp = temp_c if unit == "celsius" else round(temp_c * 9 / 5 + 32)
    sky = ["sunny", "partly cloudy", "light rain", "overcast"][seed % 4]
    return {"city": city, "temperature": temp, "unit": unit, "sky": sky, "rain_chance": (seed * 7) % 90}


def _write_file(path: str, content: str) -> dict[str, Any]:
    # A fake: the demo never touches the disk.
    return {"path": path, "bytes_written": len(content.encode()), "lines": content.count("\n") + 1}


def _run_tests(path: str, verbose: bool = False) -> dict[str, Any]:
    return {"path": path, "passed": 7, "failed": 0, "duration_s": 0.42, "verbose": verbose}


def _lookup_order(order_id: str) -> dict[str, Any]:
    return {"order_id": order_id, "status": "shipped", "carrier": "DHL", "placed": "2025-06-02"}


def _track_shipment(order_id: str, include_events: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"order_id": order_id, "status": "in transit", "eta": "2025-06-11"}
    if include_events:
        out["events"] = ["06-03 picked up, Leipzig", "06-05 customs cleared", "06-09 at local depot"]
    return out


def _convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
    rate = _RATES.get(to_currency.upper(), 1.0) / _RATES.get(from_currency.upper(), 1.0)
    return {
        "amount": amount,
        "from": from_currency,
        "to": to_currency,
        "rate": round(rate, 4),
        "result": round(amount * rate, 2),
    }


def _search_docs(query: str, limit: int = 5) -> dict[str, Any]:
    titles = [f"{query.title()}: overview", f"How-to: {query}", f"FAQ: {query}", f"Runbook: {query}"]
    return {"query": query, "hits": titles[: max(0, min(limit, len(titles)))]}


def _create_event(title: str, start: str, duration_minutes: int = 30) -> dict[str, Any]:
    event_id = "evt_" + format(zlib.crc32(f"{title}|{start}".encode()) % 10**6, "06d")
    return {
        "event_id": event_id,
        "title": title,
        "start": start,
        "duration_minutes": duration_minutes,
        "status": "confirmed",
    }


_FAKE_TOOLS: dict[str, Callable[..., Any]] = {
    "get_weather": _get_weather,
    "write_file": _write_file,
    "run_tests": _run_tests,
    "lookup_order": _lookup_order,
    "track_shipment": _track_shipment,
    "convert_currency": _convert_currency,
    "search_docs": _search_docs,
    "create_event": _create_event,
}


def make_tools(latency: float) -> dict[str, Callable[..., Any]]:
    """The fake tools as async callables that take ``latency`` seconds (0: answer at once)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        async def tool(**kwargs: Any) -> Any:
            if latency > 0:
                await anyio.sleep(latency)
            return fn(**kwargs)

        tool.__name__ = fn.__name__
        return tool

    return {name: wrap(fn) for name, fn in _FAKE_TOOLS.items()}
