"""Reading and writing declarations as JSON (``formats.load`` / ``formats.dump``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .declaration import Declaration

__all__ = ["load", "dump"]


def load(source: Declaration | dict[str, Any] | str | Path) -> Declaration:
    """A declaration from a dict, a JSON string, or a path to a JSON file (``ValueError`` if invalid)."""
    if isinstance(source, Declaration):
        return source
    if isinstance(source, Path) or (isinstance(source, str) and not source.lstrip().startswith(("{", "["))):
        try:
            source = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read declaration {str(source)[:200]!r}: {exc}") from None
    if isinstance(source, str):
        try:
            source = json.loads(source)
        except ValueError as exc:
            raise ValueError(f"declaration is not valid JSON: {exc}") from None
    return Declaration.from_dict(source)


def dump(decl: Declaration, path: str | Path | None = None, *, indent: int | None = 2) -> str:
    """The declaration as JSON text (written to ``path`` too when given)."""
    if not isinstance(decl, Declaration):
        raise ValueError(f"dump() takes a Declaration, got {decl!r}")
    text = decl.to_json(indent)
    if path is not None:
        Path(path).write_text(text + "\n", encoding="utf-8")
    return text
