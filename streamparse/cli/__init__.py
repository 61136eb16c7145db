"""The ``streamparse`` command line: ``demo``, ``parse``, ``formats``, ``serve``."""

from __future__ import annotations

from .main import main

__all__ = ["main"]
