"""Formats of the catalog (filled in by the format work of issue 3)."""

from __future__ import annotations

from .base import FormatSpec

SPECS: list[FormatSpec] = []
