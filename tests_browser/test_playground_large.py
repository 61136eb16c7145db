"""A share link at the playground's limits (200,000 characters fed one character at a time, instant speed)
renders to the end in a real browser within 10 seconds: the page batches its DOM updates."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from test_playground_page import READ_PAGE, open_page, page_calls, wait_for

from streamparse import parse
from streamparse.playground.replay import LIMITS
from streamparse.recordings import DEMO_TOOLS

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Porto"}}\n</tool_call>\n'


def _input() -> str:
    block = "Checking the forecast for the trip, one city at a time.\n" * 30 + CALL
    text = block * (LIMITS["input_chars"] // len(block) + 1)
    return text[: LIMITS["input_chars"] - len(CALL)] + CALL


def test_a_200000_character_link_at_one_character_chunks_renders_to_the_end(driver: Any, base_url: str) -> None:
    text = _input()
    assert len(text) == LIMITS["input_chars"]
    state = {"input": text, "input_kind": "text", "model": "Qwen/Qwen3-8B", "formats": ["hermes"],
             "tools": json.dumps(DEMO_TOOLS[:1]), "chunk_size": 1, "speed": 0,
             "start_in_reasoning": False, "calls_in_reasoning": "ignore"}  # fmt: skip
    link = base_url + "#s=" + base64.urlsafe_b64encode(json.dumps(state).encode()).decode().rstrip("=")
    driver.get("about:blank")
    started = time.monotonic()
    open_page(driver, link)
    # The bound of the issue is the wait itself: the page must reach its last step within 10 s of being
    # asked for (its load, the catalog, the replay and the rendering all count).
    wait_for(
        driver,
        lambda: driver.execute_script("return document.body.dataset.state") in ("done", "error"),
        max(0.0, started + 10 - time.monotonic()),
    )
    elapsed = time.monotonic() - started
    page = driver.execute_script(READ_PAGE)
    print(f"200,000 characters at 1-character chunks rendered to the end in {elapsed:.1f} s")
    assert page["state"] == "done", page["error"]
    result = parse(text, formats=["hermes"], tools=DEMO_TOOLS[:1])
    assert page["text"] == result.text
    assert page_calls(page) == [
        {"status": "accepted", "name": c.name, "arguments_json": c.arguments_json, "reason": None}
        for c in result.tool_calls
    ]
    assert page["finish"] == "tool_calls"
