"""Who may use the proxy: the checks every request passes before anything is read or sent upstream.

* **Host allowlist** (``allowed_hosts``): a page on an attacker's domain that resolves to 127.0.0.1 (DNS
  rebinding) sends its own name as ``Host``; only the listed names (any port) are answered, others get 421.
* **API keys** (``api_keys``): ``Authorization: Bearer <key>`` or ``x-api-key: <key>``, compared in
  constant time against every configured key (no early exit on the first match, so timing says nothing
  about which key or how much of it matched). Keys are never logged; the client's key is never sent
  upstream (``upstream_headers``).
* **Content types**: a browser lets any site POST ``text/plain``, form-encoded and multipart bodies to any
  address without a CORS preflight. Every OpenAI route that takes a body takes JSON (``/v1/audio`` and
  ``/v1/files`` take multipart), so a POST with a body must be JSON, or multipart from a client that is not
  a cross-site page (browsers mark those with ``Origin``/``Sec-Fetch-Site``).

``/health`` and ``/metrics`` answer without a key and for any Host (probes use the pod's address, and
scrapers a service name); they reveal counters only.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence

__all__ = ["host_problem", "authorized", "content_type_problem", "upstream_headers", "OPEN_PATHS"]

OPEN_PATHS = frozenset({"/health", "/metrics"})
_SIMPLE_FORMS = ("multipart/form-data",)


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8090
        return host[1 : host.find("]")] if "]" in host else host
    name, _, port = host.rpartition(":")
    return name if name and port.isdigit() and ":" not in name else host


def host_problem(headers: Mapping[str, str], allowed: Sequence[str] | None) -> tuple[int, str] | None:
    """(status, message) when the Host header is missing or not allowed, else None."""
    if allowed is None:
        return None
    host = headers.get("host")
    if not host:
        return 400, "the request has no Host header"
    name = _host_name(host)
    if name in {_host_name(a) for a in allowed}:
        return None
    return 421, f"this proxy does not answer for host {name[:100]!r} (see --allowed-host)"


def _presented(headers: Mapping[str, str]) -> bytes:
    auth = headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip().encode()
    return headers.get("x-api-key", "").strip().encode()


def authorized(headers: Mapping[str, str], keys: Sequence[str]) -> bool:
    """Whether the request carries one of ``keys`` (always True without keys)."""
    if not keys:
        return True
    given = _presented(headers)
    ok = False
    for key in keys:  # every key is compared, whatever matched before
        ok |= hmac.compare_digest(given, key.encode())
    return ok and bool(given)


def content_type_problem(method: str, headers: Mapping[str, str]) -> tuple[int, str] | None:
    """(status, message) for a body a cross-site page could send without a preflight, else None."""
    if method not in ("POST", "PUT", "PATCH"):
        return None
    if headers.get("content-length", "") == "0" or (
        "content-length" not in headers and "transfer-encoding" not in headers
    ):
        return None  # no body: nothing a form could smuggle
    ctype = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if ctype == "application/json" or (ctype.startswith("application/") and ctype.endswith("+json")):
        return None
    if ctype in _SIMPLE_FORMS:
        site = headers.get("sec-fetch-site", "")
        if "origin" not in headers and site in ("", "none", "same-origin"):
            return None
        return 403, "multipart bodies from a web page are refused (cross-site request forgery)"
    return 415, f"the request body must be application/json, not {ctype[:80] or 'untyped'}"


def upstream_headers(headers: dict[str, str], keys: Sequence[str], upstream_key: str | None) -> dict[str, str]:
    """The client's headers as forwarded: its proxy key removed, the upstream key (if any) put in."""
    if keys or upstream_key:
        headers = {k: v for k, v in headers.items() if k.lower() not in ("authorization", "x-api-key")}
    if upstream_key:
        headers["authorization"] = f"Bearer {upstream_key}"
    return headers
