"""Errors raised for programmer mistakes (never for model output)."""

from __future__ import annotations


class ParserClosedError(RuntimeError):
    """``feed()`` or ``close()`` was called on a parser that was already closed (call ``reset()``)."""
