"""The playground: a page that replays model output through the parser and shows what it decided at each
step (text, reasoning, calls forming, rejections with reasons, what is held back, the OpenAI chunks).

``streamparse playground`` serves it (:func:`serve`, on 127.0.0.1 by default); another Starlette app, such
as the proxy, can add it under a prefix with :func:`mount`. Needs the ``cli`` extra (starlette, uvicorn).
"""

from __future__ import annotations

from .app import create_app, mount, routes

__all__ = ["create_app", "mount", "routes", "serve"]


def serve(host: str = "127.0.0.1", port: int = 8765, *, log_level: str = "warning") -> None:
    """Run the playground until interrupted."""
    import uvicorn

    print(f"streamparse playground: http://{host}:{port}/", flush=True)
    uvicorn.run(create_app(), host=host, port=port, log_level=log_level)
