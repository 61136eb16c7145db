"""The error a derivation raises (kept apart so every derivation module can raise it)."""

from __future__ import annotations

__all__ = ["DeriveError"]


class DeriveError(ValueError):
    """The template's output could not be expressed as a declaration; the message names the part."""
