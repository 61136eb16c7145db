"""``streamparse serve``: the OpenAI-compatible proxy (``app.py``), its options (``options.py``), the
reply rewriter (``stream.py``), path confinement, metrics and prompted tools.

``create_app`` is imported lazily so the CLI can read :mod:`.options` without starlette/httpx installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .options import ServerOptions

if TYPE_CHECKING:
    from .app import ProxyApp, create_app

__all__ = ["ServerOptions", "ProxyApp", "create_app"]


def __getattr__(name: str) -> Any:
    if name in ("create_app", "ProxyApp"):
        from . import app

        return getattr(app, name)
    raise AttributeError(name)
