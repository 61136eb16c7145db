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
        try:
            from . import app
        except ModuleNotFoundError as exc:  # say which extra brings starlette/httpx (same exception type)
            raise ModuleNotFoundError(
                f"streamparse.server needs the 'cli' extra ({exc.name} is not installed):"
                " pip install 'streamparse-llm[cli]'",
                name=exc.name,
            ) from exc

        return getattr(app, name)
    raise AttributeError(name)
