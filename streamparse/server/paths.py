"""Request paths: normalised and confined under ``/v1`` before anything reaches the upstream.

The raw path is split into segments and each one percent-decoded, so ``/v1/%2e%2e/admin`` is seen as the
``..`` it means. Dot segments are resolved (RFC 3986 5.2.4); a path that leaves ``/v1`` is refused, as is
any segment that decodes to a slash, a backslash, a control character or invalid UTF-8 (an upstream
might split or truncate on them). The result is re-encoded, so the upstream receives exactly the path
that was checked.
"""

from __future__ import annotations

from urllib.parse import quote, unquote_to_bytes

__all__ = ["BadPath", "confined_path"]

_SAFE = "!$&'()*+,;=:@-._~"


class BadPath(ValueError):
    """The path is malformed or leaves ``/v1`` (answered with 400)."""


def _segment(raw: str) -> str:
    try:
        text = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise BadPath("a path segment is not valid UTF-8") from None
    if "/" in text or "\\" in text or any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise BadPath("a path segment holds a slash, a backslash or a control character")
    return text


def confined_path(raw_path: str, prefix: str = "v1") -> str:
    """``/v1/...`` normalised, with its part after ``/v1`` (``"/models"``, or ``""`` for ``/v1`` itself)
    returned percent-encoded; :class:`BadPath` otherwise."""
    if not raw_path.startswith("/"):
        raise BadPath("the path must start with /")
    out: list[str] = []
    parts = raw_path.split("/")[1:]
    for i, raw in enumerate(parts):
        seg = _segment(raw)
        if seg == "." or (seg == "" and 0 < i < len(parts) - 1):
            continue  # "." and empty inner segments ("//") name the same place
        if seg == "..":
            if len(out) <= 1:
                raise BadPath(f"the path leaves /{prefix}")
            out.pop()
            continue
        out.append(seg)
    if not out or out[0] != prefix:
        raise BadPath(f"the path is not under /{prefix}")
    rest = out[1:]
    return "".join("/" + quote(seg, safe=_SAFE) for seg in rest)
