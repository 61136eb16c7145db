"""The proxy's logging set-up, shared by ``streamparse serve`` and its worker processes."""

from __future__ import annotations

import logging

__all__ = ["setup_logging"]


def setup_logging(level: str) -> None:
    """``--log-level`` for the ``streamparse`` logger (rejections, upstream failures), not only uvicorn's."""
    sp_log = logging.getLogger("streamparse")
    if not sp_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
        sp_log.addHandler(handler)
    sp_log.setLevel(level.upper())
