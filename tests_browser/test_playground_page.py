"""The playground page in a real browser: paste, replay, and compare what it renders with ``parse()``."""

from __future__ import annotations

import base64
import json
import time
from typing import Any
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By

from streamparse import parse
from streamparse.playground.examples import examples
from streamparse.playground.replay import ReplayRequest, replay
from streamparse.recordings import DEMO_TOOLS, load_recordings

RECORDINGS = load_recordings()

READ_PAGE = """
const calls = [...document.querySelectorAll('#calls .call')].map((c) => ({
  status: c.dataset.status,
  name: c.dataset.name,
  arguments_json: c.dataset.argumentsJson,
  reason: (c.querySelector('.call-reason b') || {}).textContent || null,
}));
return {
  state: document.body.dataset.state,
  error: document.getElementById('error').textContent,
  text: document.getElementById('text').textContent,
  reasoning: document.getElementById('reasoning').textContent,
  held: document.getElementById('held').textContent,
  finish: document.getElementById('st-finish').textContent,
  events: Number(document.getElementById('events-count').textContent),
  calls,
};
"""


def open_page(driver: Any, url: str) -> None:
    driver.get(url)
    wait_for(driver, lambda: driver.execute_script("return document.body.dataset.state") != "loading")


def wait_for(driver: Any, condition: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; page state: {driver.execute_script(READ_PAGE)}")
        time.sleep(0.05)


def replayed(driver: Any) -> dict[str, Any]:
    """Wait for the replay to end; the page's rendering of the last step."""
    wait_for(driver, lambda: driver.execute_script("return document.body.dataset.state") in ("done", "error"))
    page: dict[str, Any] = driver.execute_script(READ_PAGE)
    assert page["state"] == "done", page["error"]
    return page


def set_value(driver: Any, element_id: str, value: str) -> None:
    driver.execute_script(
        "const el = document.getElementById(arguments[0]); el.value = arguments[1];"
        "el.dispatchEvent(new Event('input')); el.dispatchEvent(new Event('change'));",
        element_id,
        value,
    )


def expected_calls(result: Any) -> list[dict[str, Any]]:
    calls = [
        {"status": "accepted", "name": c.name, "arguments_json": c.arguments_json, "reason": None}
        for c in result.tool_calls
    ]
    rejected = [{"status": "rejected", "name": r.name or "?", "reason": r.reason} for r in result.rejected]
    return calls + rejected


def page_calls(page: dict[str, Any]) -> list[dict[str, Any]]:
    accepted = [c for c in page["calls"] if c["status"] == "accepted"]
    rejected = [
        {"status": c["status"], "name": c["name"], "reason": c["reason"]}
        for c in page["calls"]
        if c["status"] == "rejected"
    ]
    return accepted + rejected


def test_pasted_recording_replays_into_reasoning_text_and_calls(driver: Any, base_url: str, screenshot: Any) -> None:
    rec = next(r for r in RECORDINGS if r.name == "qwen3")
    open_page(driver, base_url)
    box = driver.find_element(By.ID, "input")
    box.clear()
    box.send_keys(rec.text)  # typed into the box, as a paste would put it there
    assert driver.execute_script("return document.getElementById('input').value") == rec.text
    model = driver.find_element(By.ID, "model")
    model.send_keys(rec.model)
    wait_for(driver, lambda: "qwen3" in driver.find_element(By.ID, "preset").text)
    set_value(driver, "speed", "200")
    driver.find_element(By.ID, "replay").click()
    page = replayed(driver)
    result = parse(rec.text, formats=rec.formats, start_in_reasoning=rec.start_in_reasoning)
    assert page["text"] == result.text and page["reasoning"] == result.reasoning
    assert page_calls(page) == expected_calls(result)
    assert [c["name"] for c in page["calls"]] == ["get_weather", "get_weather"]
    assert page["finish"] == "tool_calls"
    print("screenshot:", screenshot("done"))


def test_rejections_are_rendered_with_their_reasons(driver: Any, base_url: str, screenshot: Any) -> None:
    open_page(driver, base_url)
    driver.find_element(By.CSS_SELECTOR, "[data-example='rejections']").click()
    page = replayed(driver)
    state = next(e for e in examples() if e["name"] == "rejections")["state"]
    result = parse(state["input"], formats=state["formats"], tools=json.loads(state["tools"]))
    assert page_calls(page) == expected_calls(result)
    assert [(c["name"], c["reason"]) for c in page["calls"] if c["status"] == "rejected"] == [
        ("get_weather", "schema_violation"),
        ("book_flight", "unknown_tool"),
        ("get_weather", "truncated"),
    ]
    assert page["text"] == result.text
    detail = driver.execute_script(
        "return document.querySelector('.call[data-status=rejected] .call-reason').textContent"
    )
    assert "'city' is a required property" in detail
    print("screenshot:", screenshot("done"))


@pytest.mark.parametrize("rec", RECORDINGS, ids=[r.name for r in RECORDINGS])
def test_every_bundled_recording_replays_on_the_page_as_parse_sees_it(
    driver: Any, base_url: str, screenshot: Any, rec: Any
) -> None:
    open_page(driver, base_url)
    set_value(driver, "speed", "0")
    set_value(driver, "chunk", "3")
    driver.find_element(By.CSS_SELECTOR, f"[data-example='{rec.name}']").click()
    page = replayed(driver)
    assert driver.execute_script("return document.getElementById('input').value") == rec.text
    fmts = None if rec.formats == "auto" else rec.formats
    result = parse(rec.text, formats=fmts or "auto", start_in_reasoning=rec.start_in_reasoning, tools=DEMO_TOOLS)
    assert page["text"] == result.text
    assert page["reasoning"] == result.reasoning
    assert page_calls(page) == expected_calls(result)
    assert page["events"] > 0 and page["held"] == ""
    screenshot()


def test_the_held_back_input_is_shown_at_each_step(driver: Any, base_url: str, screenshot: Any) -> None:
    text = (
        "Checking the forecast.\n<tool_call>\n"
        + '{"name": "get_weather", "arguments": {"city": "Lisbon"}}\n</tool_call>'
    )
    state = {"input": text, "formats": ["hermes"], "chunk_size": 5, "speed": 0}
    steps = [m for k, m in replay(ReplayRequest.from_json(state)) if k == "step"]
    open_page(driver, base_url)
    set_value(driver, "input", text)
    set_value(driver, "chunk", "5")
    set_value(driver, "speed", "0")
    driver.execute_script("document.querySelector(\"#formats input[value='hermes']\").click()")
    driver.find_element(By.ID, "replay").click()
    replayed(driver)
    # A step holding a marker prefix, and one inside the open call: the page shows what the server said.
    prefix = next(i for i, s in enumerate(steps) if s["held"][1] > s["held"][0] and s["open_call"] is None)
    inside = next(i for i, s in enumerate(steps) if s["open_call"] is not None and s["events"])
    for i in (prefix, inside):
        driver.execute_script(
            "const s = document.getElementById('scrub'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));",
            i + 1,
        )
        held = text[steps[i]["held"][0] : steps[i]["held"][1]]
        assert held
        assert driver.execute_script("return document.getElementById('held').textContent") == held
        assert driver.execute_script("return document.querySelector('#annotated .k-held').textContent") == held
    note = driver.find_element(By.ID, "held-note").text
    assert "Inside tool call #0 get_weather" in note
    status = driver.execute_script("return document.querySelector('#calls .call').dataset.status")
    assert status == "streaming"
    print("screenshot:", screenshot("inside-call"))


def test_the_share_link_holds_the_whole_state_and_restores_it(driver: Any, base_url: str, screenshot: Any) -> None:
    state = {
        "input": 'Let me see.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Porto"}}\n</tool_call>',
        "input_kind": "text",
        "model": "Qwen/Qwen3-8B",
        "formats": ["hermes"],
        "tools": json.dumps(DEMO_TOOLS[:1]),
        "chunk_size": 9,
        "speed": 200,
        "start_in_reasoning": False,
        "calls_in_reasoning": "promote",
    }
    open_page(driver, base_url)
    for field, value in [("input", state["input"]), ("model", state["model"]), ("tools", state["tools"])]:
        set_value(driver, field, value)
    set_value(driver, "chunk", "9")
    set_value(driver, "speed", "200")
    set_value(driver, "sir", "false")
    set_value(driver, "cir", "promote")
    set_value(driver, "input-kind", "text")
    driver.execute_script("document.querySelector(\"#formats input[value='hermes']\").click()")
    driver.find_element(By.ID, "share").click()
    link = driver.current_url
    fragment = urlsplit(link).fragment
    assert fragment.startswith("s=")
    encoded = fragment[2:]
    assert json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))) == state

    driver.get("about:blank")
    open_page(driver, link)  # a fresh load of the link: the form is restored and the replay runs
    page = replayed(driver)
    restored = driver.execute_script(
        "return {input: document.getElementById('input').value, model: document.getElementById('model').value,"
        " tools: document.getElementById('tools').value,"
        " kind: document.getElementById('input-kind').value, chunk: document.getElementById('chunk').value,"
        " speed: document.getElementById('speed').value, sir: document.getElementById('sir').value,"
        " cir: document.getElementById('cir').value,"
        " formats: [...document.querySelectorAll('#formats input:checked')].map((e) => e.value)}"
    )
    assert restored == {
        "input": state["input"],
        "model": state["model"],
        "tools": state["tools"],
        "kind": "text",
        "chunk": "9",
        "speed": "200",
        "sir": "false",
        "cir": "promote",
        "formats": ["hermes"],
    }
    assert [(c["name"], c["status"]) for c in page["calls"]] == [("get_weather", "accepted")]
    assert page["text"] == "Let me see."  # the newline before the call is the template's separator
    print("screenshot:", screenshot("restored"))


def test_sse_capture_shows_the_openai_chunks_the_proxy_would_send(driver: Any, base_url: str, screenshot: Any) -> None:
    open_page(driver, base_url)
    driver.find_element(By.CSS_SELECTOR, "[data-example='sse-capture']").click()
    page = replayed(driver)
    assert page["text"] == "I'll look that up."
    driver.find_element(By.CSS_SELECTOR, "[data-tab='openai']").click()
    rows = driver.execute_script("return [...document.querySelectorAll('#openai .ev .p')].map((r) => r.textContent)")
    assert rows[0] == '{"role":"assistant","content":""}'
    assert any('"name":"get_weather"' in r for r in rows)
    assert any('{\\"city\\": \\"Oslo\\"}' in r for r in rows)
    assert rows[-2].endswith("finish_reason=tool_calls") and rows[-1] == "data: [DONE]"
    print("screenshot:", screenshot("openai-chunks"))


def test_a_replay_streams_into_the_page_live_and_stop_ends_it(driver: Any, base_url: str, screenshot: Any) -> None:
    rec = next(r for r in RECORDINGS if r.name == "qwen3-coder")
    open_page(driver, base_url)
    set_value(driver, "speed", "40")  # 40 steps a second: the whole replay would take about 8 s
    set_value(driver, "chunk", "3")
    driver.find_element(By.CSS_SELECTOR, f"[data-example='{rec.name}']").click()
    result = parse(rec.text, formats=rec.formats, tools=DEMO_TOOLS)

    def call_forming() -> bool:
        page = driver.execute_script(READ_PAGE)
        return page["state"] == "running" and any(
            c["status"] == "streaming" and c["arguments_json"] for c in page["calls"]
        )

    wait_for(driver, call_forming)  # the first call's arguments are growing on screen
    page = driver.execute_script(READ_PAGE)
    # The text so far is the final text's beginning (here all of it: the recording's prose comes before its
    # calls, and the separator before the first call is not text); the replay is still running.
    assert page["text"] and result.text.startswith(page["text"])
    forming = next(c for c in page["calls"] if c["status"] == "streaming")
    assert forming["name"] == "write_file"
    assert result.tool_calls[0].arguments_json.startswith(forming["arguments_json"])
    print("screenshot:", screenshot("live"))
    driver.find_element(By.ID, "stop").click()
    wait_for(driver, lambda: driver.execute_script("return document.body.dataset.state") == "stopped")
    stopped = driver.execute_script(READ_PAGE)
    # Stopped before the end: fewer calls completed than the whole output has.
    done = [c for c in stopped["calls"] if c["status"] == "accepted"]
    assert len(done) < len(result.tool_calls) and stopped["error"] == ""


def test_the_page_loads_nothing_from_other_origins(driver: Any, base_url: str) -> None:
    open_page(driver, base_url)
    urls = driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert urls and all(u.startswith(base_url) for u in urls), urls
