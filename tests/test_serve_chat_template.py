"""``streamparse serve --chat-template``: the served model's own template gives the format when no preset
knows the request's model (or always, with --chat-template-first)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

INVENTED = Path(__file__).parent / "data" / "invented"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}}]
REPLY = 'Checking.\n<calls>\n<call name="get_weather">{"city": "Paris"}</call>\n</calls>'


def _client(**options: Any) -> Any:
    import httpx
    from starlette.testclient import TestClient

    from streamparse.server import create_app

    reply = {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop"}]}  # fmt: skip
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=reply))
    return TestClient(create_app("http://upstream.invalid", transport=transport, **options))


def _ask(client: Any, model: str) -> dict[str, Any]:
    body = {"model": model, "messages": [{"role": "user", "content": "go"}], "tools": TOOLS}
    message: dict[str, Any] = client.post("/v1/chat/completions", json=body).json()["choices"][0]["message"]
    return message


def test_an_unknown_model_is_parsed_with_the_format_derived_from_the_served_template() -> None:
    with _client(chat_template=str(INVENTED / "name_attribute_json.jinja")) as client:
        message = _ask(client, "acme/brand-new-model")
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather"]
    assert message["content"].strip() == "Checking."


def test_without_the_template_the_same_reply_stays_text() -> None:
    with _client() as client:
        message = _ask(client, "acme/brand-new-model")
    assert "tool_calls" not in message


def test_the_serve_flags_reach_the_options() -> None:
    import argparse

    from streamparse.server.options import add_arguments, from_args

    ap = argparse.ArgumentParser()
    add_arguments(ap)
    args = ap.parse_args(["--upstream", "http://127.0.0.1:9", "--chat-template", "/m", "--chat-template-first"])
    options = from_args(args)
    assert (options.chat_template, options.chat_template_first) == ("/m", True)
