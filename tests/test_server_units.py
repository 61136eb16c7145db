"""The proxy's pieces without sockets: path confinement, prompted tools, the SSE decoder's limits and
comments, the chunk writer's fast path, id mapping and hand-over."""

from __future__ import annotations

import json

import pytest

from streamparse.events import TextDelta, ToolCallDelta, ToolCallRejected, ToolCallStart
from streamparse.parser import build_parser, parse
from streamparse.presets import preset_for
from streamparse.providers.openai_writer import OpenAIChunkWriter, to_sse
from streamparse.providers.sse import SSEDecoder, SSELimitError
from streamparse.server.options import check_not_self, upstream_base
from streamparse.server.paths import BadPath, confined_path
from streamparse.server.stream import id_mapper
from streamparse.server.toolprompt import prompt_format, rewrite_for_prompted_tools

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


@pytest.mark.parametrize(
    ("raw", "rest"),
    [("/v1/models", "/models"), ("/v1", ""), ("/v1/./models", "/models"), ("/v1/a/../models", "/models"),
     ("/v1//models", "/models"), ("/v1/files/a%20b", "/files/a%20b"), ("/v1/models/", "/models/")],
)  # fmt: skip
def test_paths_inside_v1_are_normalised(raw: str, rest: str) -> None:
    assert confined_path(raw) == rest


@pytest.mark.parametrize(
    "raw", ["/v1/..", "/v1/%2e%2e/x", "/v1/a%2fb", "/v1/a%5cb", "/v1/a%00b", "/v1/%ff", "/admin", "v1/x", "/v1x/y"]
)
def test_paths_that_escape_or_are_malformed_are_refused(raw: str) -> None:
    with pytest.raises(BadPath):
        confined_path(raw)


def test_upstream_url_needs_a_scheme_and_host_and_gets_v1() -> None:
    assert upstream_base("http://h:8080") == "http://h:8080/v1"
    assert upstream_base("https://h/api/v1/") == "https://h/api/v1"
    for bad in ("h:8080", "ftp://h/v1", "http:///v1", "localhost"):
        with pytest.raises(ValueError):
            upstream_base(bad)


def test_self_upstream_check_knows_loopback_spellings() -> None:
    for up, host in (("http://127.0.0.1:9", "127.0.0.1"), ("http://localhost:9", "0.0.0.0"), ("http://[::1]:9", "::1")):
        with pytest.raises(ValueError):
            check_not_self(up, host, 9)
    check_not_self("http://127.0.0.1:10", "127.0.0.1", 9)
    check_not_self("http://10.0.0.5:9", "127.0.0.1", 9)


def test_sse_decoder_reports_comments_and_bounds_lines() -> None:
    dec = SSEDecoder(comments=True)
    events = dec.feed(": ping\n\ndata: x\n\n")
    assert [(e.event, e.data) for e in events] == [("", "ping"), ("message", "x")]
    assert SSEDecoder().feed(": ping\n\n") == []
    small = SSEDecoder(max_chars=10)
    with pytest.raises(SSELimitError):
        small.feed("data: " + "a" * 20)
    with pytest.raises(SSELimitError):
        SSEDecoder(max_chars=10).feed("data: 12345\ndata: 12345\n")


def test_sse_decoder_mixed_line_endings_in_one_piece() -> None:
    events = SSEDecoder().feed("data: a\r\n\r\ndata: b\n\ndata: c\r\rdata: d\n\r\n")
    assert [e.data for e in events] == ["a", "b", "c", "d"]


def test_writer_fast_path_equals_the_chunk_encoding() -> None:
    writer = OpenAIChunkWriter("m", id="c1", created=1)
    for text in ("plain", 'quote " and \\ and \n', "ünïcode ✓"):
        assert writer.delta_sse("content", text) == to_sse(writer.chunk({"content": text}))


def test_writer_maps_ids_and_hands_over_a_rejected_call() -> None:
    writer = OpenAIChunkWriter("m", call_id=lambda pid: "X" + pid)
    writer.write([ToolCallStart(0, "call_0", "get_weather"), ToolCallDelta(0, '{"city": 5}')])
    rejected = ToolCallRejected(
        0, "schema_violation", "raw", "get_weather", "city: not a string", "hermes", '{"city": 5}'
    )
    chunks = writer.hand_over(rejected)
    calls = [tc for c in chunks for tc in c["choices"][0]["delta"]["tool_calls"]]
    assert calls[0]["id"] == "Xcall_0" and calls[0]["function"]["name"] == "get_weather"
    assert "".join(tc["function"]["arguments"] for tc in calls) == '{"city": 5}'
    assert writer.hand_over(ToolCallRejected(7, "unknown_tool", "raw")) == []  # never started: nothing to send
    assert writer.write(TextDelta("")) == []
    assert writer.finish()[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_alnum9_ids_are_stable_per_call_and_mistral_presets_ask_for_them() -> None:
    to_id = id_mapper("alnum9")
    assert to_id is not None and to_id("a") == to_id("a") != to_id("b")
    assert len(to_id("a")) == 9 and to_id("a").isalnum()
    assert id_mapper("openai") is None
    assert preset_for("mistralai/Mistral-Small-3.2-24B-Instruct-2506").id_style == "alnum9"
    assert preset_for("Qwen/Qwen3-8B").id_style == "openai"


def test_prompted_tools_rewrite_history_and_keep_the_rest() -> None:
    body = {
        "model": "Qwen/Qwen3-8B",
        "temperature": 0.2,
        "tools": TOOLS,
        "tool_choice": "required",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
    }  # fmt: skip
    out = rewrite_for_prompted_tools(body, "hermes")
    assert "tools" not in out and "tool_choice" not in out and out["temperature"] == 0.2
    system, _, assistant, tool = out["messages"]
    assert system["content"].startswith("Be brief.\n\n# Tools") and "must call at least one" in system["content"]
    assert assistant == {
        "role": "assistant",
        "content": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
    }
    assert tool == {"role": "user", "content": "<tool_response>\nsunny\n</tool_response>"}
    assert body["tools"] == TOOLS and body["messages"][2]["tool_calls"]  # the request itself is untouched
    none = rewrite_for_prompted_tools({**body, "tool_choice": "none"}, "hermes")
    assert "# Tools" not in json.dumps(none["messages"])


def test_prompt_format_follows_the_preset_and_falls_back_to_hermes() -> None:
    assert prompt_format(("mistral",)) == "mistral"
    assert prompt_format(("kimi_k2",)) == "hermes"
    assert prompt_format("auto") == "hermes"
    call = rewrite_for_prompted_tools(
        {"messages": [{"role": "assistant", "tool_calls": [
            {"function": {"name": "f", "arguments": '{"a": 1, "b": "x"}'}}]}]},
        "pythonic",
    )  # fmt: skip
    assert call["messages"][0]["content"] == "[f(a=1, b='x')]"


def test_worker_processes_get_the_options_through_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamparse.server.app import app_from_env
    from streamparse.server.options import ENV_OPTIONS, ServerOptions

    options = ServerOptions(on_reject="error", formats=["hermes"], max_call_chars=99, eager=True)
    env = {"upstream": "http://127.0.0.1:9/v1", "options": options.to_json(), "log_level": "warning"}
    monkeypatch.setenv(ENV_OPTIONS, json.dumps(env))
    app = app_from_env()
    assert app.base == "http://127.0.0.1:9/v1"
    assert app.options == ServerOptions(on_reject="error", formats=["hermes"], max_call_chars=99, eager=True)


def _completion_app(text: str, **options: object) -> object:
    import httpx
    from starlette.testclient import TestClient

    from streamparse.server import create_app

    reply = {"id": "c", "object": "chat.completion", "created": 1, "model": "m",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}  # fmt: skip
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=reply))
    return TestClient(create_app("http://upstream.invalid", transport=transport, **options))


UNDECLARED = 'Sure.<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'
BODY = {"model": "Qwen/Qwen3-8B", "messages": [{"role": "user", "content": "go"}], "tools": TOOLS}


def test_non_streaming_rejection_is_noted_or_answered_502() -> None:
    with _completion_app(UNDECLARED) as client:  # type: ignore[attr-defined]
        got = client.post("/v1/chat/completions", json=BODY).json()
    assert got["streamparse_rejections"][0]["reason"] == "unknown_tool"
    assert "rejected (unknown_tool)" in got["choices"][0]["message"]["content"]
    assert "tool_calls" not in got["choices"][0]["message"]
    with _completion_app(UNDECLARED, on_reject="error") as client:  # type: ignore[attr-defined]
        resp = client.post("/v1/chat/completions", json=BODY)
    assert resp.status_code == 502 and resp.json()["error"]["type"] == "tool_call_rejected"
    with _completion_app(UNDECLARED, on_reject="drop") as client:  # type: ignore[attr-defined]
        got = client.post("/v1/chat/completions", json=BODY).json()
    assert got["choices"][0]["message"]["content"] == "Sure." and "streamparse_rejections" not in got


CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
SEPARATED = [
    "Let me check.\n\n" + CALL + "\n",
    "<think>\nhmm\n</think>\n\n" + CALL,
    "First.\n\n" + CALL + "\n\nThen the answer.\n",
    "  \n" + CALL + "\n" + CALL + "\n\n",
    "Sure." + CALL + " and more  ",
]


def _streamed_content(text: str, **options: object) -> str:
    """The content a streaming client assembles from the proxy's SSE, the text fed in 3-character pieces."""
    from streamparse.server.metrics import Metrics
    from streamparse.server.options import ServerOptions
    from streamparse.server.stream import ChatRewriter

    parser = build_parser("Qwen/Qwen3-8B", tools=TOOLS, **options)
    rw = ChatRewriter(parser, "m", ServerOptions(**options), Metrics())  # type: ignore[arg-type]
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": {}}]}
    wire = b""
    for i in range(0, len(text), 3):
        chunk["choices"][0]["delta"] = {"content": text[i : i + 3]}
        wire += rw.feed(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    chunk["choices"][0].update(delta={}, finish_reason="stop")
    wire += rw.feed(b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n") + rw.end()
    decoder = SSEDecoder()
    events = [json.loads(e.data) for e in decoder.feed(wire) if e.data.strip() != "[DONE]"]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in events if c.get("choices"))


@pytest.mark.parametrize("separators", ["drop", "keep"])
@pytest.mark.parametrize("text", SEPARATED)
def test_proxy_content_is_the_parsers_message_field(text: str, separators: str) -> None:
    expected = parse(text, model="Qwen/Qwen3-8B", tools=TOOLS, separators=separators)
    with _completion_app(text, separators=separators) as client:  # type: ignore[attr-defined]
        message = client.post("/v1/chat/completions", json=BODY).json()["choices"][0]["message"]
    assert message["content"] == (expected.text or None)
    assert [c["function"]["name"] for c in message["tool_calls"]] == [c.name for c in expected.tool_calls]
    assert _streamed_content(text, separators=separators) == expected.text


def test_a_rejection_note_brings_no_separator_of_its_own() -> None:
    with _completion_app(UNDECLARED) as client:  # type: ignore[attr-defined]
        content = client.post("/v1/chat/completions", json=BODY).json()["choices"][0]["message"]["content"]
    assert content.startswith("Sure.[tool call 'rm_rf' rejected (unknown_tool): ")
    assert _streamed_content(UNDECLARED).startswith("Sure.[tool call 'rm_rf' rejected (unknown_tool): ")
