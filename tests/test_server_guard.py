"""Who may use ``streamparse serve``: API keys, the Host allowlist (DNS rebinding), JSON-only bodies (no
cross-site form posts), the upstream key, and the playground's security headers. A real proxy (uvicorn) in
front of a real echoing upstream, both on 127.0.0.1."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from loopback import ServerThread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from streamparse.cli.main import make_argparser
from streamparse.server import create_app
from streamparse.server.guard import authorized
from streamparse.server.options import ENV_API_KEYS, ENV_UPSTREAM_KEY, from_args

KEY = "sk-proxy-0123456789"
OTHER = "sk-other-abcdefghij"
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


class Echo:
    """The upstream: answers every request with the headers it received."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self.any, methods=["GET", "POST", "OPTIONS"])])

    async def any(self, request: Request) -> Response:
        self.seen.append(dict(request.headers))
        message = {"role": "assistant", "content": "ok"}
        cors = {"access-control-allow-origin": "*", "access-control-allow-headers": "*"}  # vLLM's default
        return JSONResponse({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                             "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]},
                            headers=cors)  # fmt: skip


@pytest.fixture(scope="module")
def echo() -> Iterator[tuple[Echo, int]]:
    fake = Echo()
    with ServerThread(fake.app()) as srv:
        yield fake, srv.port


@pytest.fixture(scope="module")
def locked(echo: tuple[Echo, int]) -> Iterator[int]:
    """Keys required, loopback names only, the playground mounted."""
    app = create_app(
        f"http://127.0.0.1:{echo[1]}/v1",
        api_keys=(KEY, OTHER),
        allowed_hosts=("localhost", "127.0.0.1", "::1"),
        playground=True,
    )
    with ServerThread(app) as srv:
        yield srv.port


def _post(port: int, path: str = "/v1/chat/completions", **kwargs: Any) -> httpx.Response:
    return httpx.post(f"http://127.0.0.1:{port}{path}", timeout=10, **kwargs)


def test_requests_without_a_valid_key_get_401(locked: int) -> None:
    for headers in ({}, {"authorization": "Bearer wrong-key-000000"}, {"authorization": f"Basic {KEY}"}):
        resp = _post(locked, json=CHAT, headers=headers)
        assert resp.status_code == 401 and resp.json()["error"]["code"] == "invalid_api_key"
        assert resp.headers["www-authenticate"] == "Bearer"
    assert httpx.get(f"http://127.0.0.1:{locked}/v1/models", timeout=10).status_code == 401


def test_every_configured_key_works_as_bearer_or_x_api_key(locked: int) -> None:
    assert _post(locked, json=CHAT, headers={"authorization": f"Bearer {KEY}"}).status_code == 200
    assert _post(locked, json=CHAT, headers={"authorization": f"bearer {OTHER}"}).status_code == 200
    assert _post(locked, json=CHAT, headers={"x-api-key": OTHER}).status_code == 200


def test_health_and_metrics_need_no_key_and_answer_any_host(locked: int) -> None:
    assert httpx.get(f"http://127.0.0.1:{locked}/health", timeout=10).status_code == 200
    assert httpx.get(f"http://127.0.0.1:{locked}/health", headers={"host": "10.0.0.7:8090"}, timeout=10).is_success
    metrics = httpx.get(f"http://127.0.0.1:{locked}/metrics", timeout=10)
    assert metrics.status_code == 200 and 'streamparse_refused_total{status="401"}' in metrics.text


def test_the_clients_proxy_key_is_never_sent_upstream(echo: tuple[Echo, int], locked: int) -> None:
    fake = echo[0]
    fake.seen.clear()
    assert _post(locked, json=CHAT, headers={"authorization": f"Bearer {KEY}", "x-api-key": KEY}).status_code == 200
    assert "authorization" not in fake.seen[-1] and "x-api-key" not in fake.seen[-1]


def test_upstream_api_key_replaces_the_clients_authorization(echo: tuple[Echo, int]) -> None:
    fake, up_port = echo
    app = create_app(f"http://127.0.0.1:{up_port}/v1", api_keys=(KEY,), upstream_api_key="sk-upstream-xyz")
    with ServerThread(app) as srv:
        assert _post(srv.port, json=CHAT, headers={"authorization": f"Bearer {KEY}"}).status_code == 200
    assert fake.seen[-1]["authorization"] == "Bearer sk-upstream-xyz"


def test_keys_are_never_logged(locked: int, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        _post(locked, json=CHAT, headers={"authorization": f"Bearer {KEY}"})
        _post(locked, json=CHAT, headers={"authorization": f"Bearer {KEY}x"})
        _post(locked, content=b"{", headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"})
    assert caplog.records  # the proxy did log (access lines, refusals)...
    assert not [r for r in caplog.records if KEY in r.getMessage()]  # ...never a key
    assert KEY not in repr(create_app("http://127.0.0.1:9/v1", api_keys=(KEY,)).options)


def test_key_comparison_needs_the_whole_key() -> None:
    assert authorized({"authorization": f"Bearer {KEY}"}, [OTHER, KEY])
    assert not authorized({"authorization": f"Bearer {KEY[:-1]}"}, [KEY])
    assert not authorized({"authorization": f"Bearer {KEY}0"}, [KEY])
    assert not authorized({}, [KEY]) and authorized({}, [])


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8090", "127.0.0.2", "localhost.evil.example"])
def test_a_host_outside_the_allowlist_gets_421(locked: int, host: str) -> None:
    resp = _post(locked, json=CHAT, headers={"host": host, "authorization": f"Bearer {KEY}"})
    assert resp.status_code == 421 and "does not answer for host" in resp.json()["error"]["message"]
    assert httpx.get(f"http://127.0.0.1:{locked}/playground/", headers={"host": host}, timeout=10).status_code == 421


@pytest.mark.parametrize("host", ["localhost", "localhost:1234", "127.0.0.1:80", "[::1]:8090", "LOCALHOST"])
def test_loopback_names_on_any_port_are_answered(locked: int, host: str) -> None:
    resp = _post(locked, json=CHAT, headers={"host": host, "authorization": f"Bearer {KEY}"})
    assert resp.status_code == 200


@pytest.mark.parametrize(
    ("ctype", "status"),
    [("text/plain", 415), ("application/x-www-form-urlencoded", 415), (None, 415), ("text/plain;charset=UTF-8", 415)],
)
def test_a_body_that_is_not_json_is_refused_before_anything_is_read(
    echo: tuple[Echo, int], locked: int, ctype: str | None, status: int
) -> None:
    before = len(echo[0].seen)
    headers = {"authorization": f"Bearer {KEY}"} | ({"content-type": ctype} if ctype else {})
    resp = _post(locked, content=b'{"model": "m", "messages": []}', headers=headers)
    assert resp.status_code == status and "application/json" in resp.json()["error"]["message"]
    assert len(echo[0].seen) == before


def test_cross_site_multipart_is_refused_but_a_plain_upload_passes(echo: tuple[Echo, int], locked: int) -> None:
    files = {"file": ("a.wav", b"RIFF0000", "audio/wav")}
    key = {"authorization": f"Bearer {KEY}"}
    path = "/v1/audio/transcriptions"
    assert _post(locked, path, files=files, headers=key | {"origin": "https://evil.example"}).status_code == 403
    assert _post(locked, path, files=files, headers=key | {"sec-fetch-site": "cross-site"}).status_code == 403
    assert _post(locked, path, files=files, headers=key).status_code == 200


def test_the_playground_sends_csp_nosniff_and_frame_ancestors(locked: int) -> None:
    for path in ("/playground/", "/playground/static/app.js", "/playground/api/meta"):
        resp = httpx.get(f"http://127.0.0.1:{locked}{path}", timeout=10)
        assert resp.status_code == 200, path
        csp = resp.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "default-src 'none'" in csp
        assert resp.headers["x-content-type-options"] == "nosniff"
        assert resp.headers["x-frame-options"] == "DENY"


def test_the_playground_api_refuses_a_cross_site_text_plain_post(locked: int) -> None:
    body = b'{"input": "hi", "speed": 0}'
    resp = _post(locked, "/playground/api/replay", content=body, headers={"content-type": "text/plain"})
    assert resp.status_code == 415
    ok = _post(locked, "/playground/api/replay", content=body, headers={"content-type": "application/json"})
    assert ok.status_code == 200 and ok.text.startswith("event: start")


def _options(*argv: str) -> Any:
    return from_args(make_argparser().parse_args(["serve", "--upstream", "http://127.0.0.1:9/v1", *argv]))


def test_keys_come_from_flags_files_and_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keyfile = tmp_path / "keys"
    keyfile.write_text(f"# team keys\n{OTHER}\n\n", encoding="utf-8")
    monkeypatch.setenv(ENV_API_KEYS, "sk-from-env-1, sk-from-env-2")
    monkeypatch.setenv(ENV_UPSTREAM_KEY, "sk-up-from-env")
    options = _options("--api-key", KEY, "--api-key-file", str(keyfile))
    assert options.api_keys == (KEY, OTHER, "sk-from-env-1", "sk-from-env-2")
    assert options.upstream_api_key == "sk-up-from-env"
    assert _options("--upstream-api-key", "sk-up-flag").upstream_api_key == "sk-up-flag"
    with pytest.raises(ValueError, match="at least 8"):
        _options("--api-key", "short")
    with pytest.raises(ValueError, match="--api-key-file"):
        _options("--api-key-file", str(tmp_path / "missing"))


def test_the_host_allowlist_defaults_to_loopback_names_when_bound_to_loopback() -> None:
    assert _options().allowed_hosts == ("localhost", "127.0.0.1", "::1")
    assert _options("--host", "::1").allowed_hosts == ("localhost", "127.0.0.1", "::1")
    assert _options("--host", "0.0.0.0").allowed_hosts is None  # documented: set --allowed-host there
    assert _options("--allowed-host", "proxy.internal").allowed_hosts == ("proxy.internal",)
    assert _options("--allowed-host", "*").allowed_hosts is None


def test_no_cors_grant_reaches_a_browser(echo: tuple[Echo, int]) -> None:
    # The upstream allows any origin; relayed, that would let any page read the proxy's replies.
    fake, up_port = echo
    with ServerThread(create_app(f"http://127.0.0.1:{up_port}/v1")) as srv:
        before = len(fake.seen)
        preflight = httpx.options(
            f"http://127.0.0.1:{srv.port}/v1/chat/completions",
            headers={"origin": "https://evil.example", "access-control-request-method": "POST"},
            timeout=10,
        )
        assert preflight.status_code == 405 and "access-control-allow-origin" not in preflight.headers
        assert len(fake.seen) == before  # not relayed
        for resp in (_post(srv.port, json=CHAT), httpx.get(f"http://127.0.0.1:{srv.port}/v1/models", timeout=10)):
            assert resp.status_code == 200 and not [h for h in resp.headers if h.startswith("access-control-")]
