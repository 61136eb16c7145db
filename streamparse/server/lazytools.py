"""A request's tools kept as the bytes the client sent: a definition becomes Python objects (and a
``ToolSet``, whose validator is compiled and cached per schema by ``streamparse.tools``) only when a call
names it. A request with a hundred tools, of which the model calls one, holds one parsed schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel

from ..tools import ToolSet

__all__ = ["LazyToolSet"]


class LazyToolSet(ToolSet):
    """A :class:`~streamparse.ToolSet` over ``name -> (start, end)`` spans of ``raw``, each span one JSON
    tool definition that was already checked (``limits.py`` built a ``ToolSet`` of it once, then let it go).
    ``raw`` must not change while the set is in use (it is the request body, which does not)."""

    def __init__(self, raw: bytes | bytearray, spans: dict[str, tuple[int, int]]) -> None:  # no super(): lazy
        self._raw, self._spans = raw, spans
        self._loaded: dict[str, ToolSet] = {}
        self.names = frozenset(spans)

    def _one(self, name: str) -> ToolSet | None:
        """The tool ``name`` as a one-tool ``ToolSet``, parsed on first use; None when undeclared."""
        loaded = self._loaded.get(name)
        if loaded is None and name in self._spans:
            start, end = self._spans[name]
            loaded = self._loaded[name] = ToolSet([json.loads(self._raw[start:end])])
        return loaded

    def _known(self, name: str) -> ToolSet:
        one = self._one(name)
        if one is None:
            raise KeyError(name)
        return one

    def __contains__(self, name: object) -> bool:
        return name in self._spans

    def __len__(self) -> int:
        return len(self._spans)

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __repr__(self) -> str:
        return f"LazyToolSet({sorted(self._spans)!r})"

    def parameters(self, name: str) -> dict[str, Any]:
        return self._known(name).parameters(name)

    def description(self, name: str) -> str | None:
        return self._known(name).description(name)

    def property_schema(self, name: str, key: str) -> dict[str, Any] | None:
        one = self._one(name)
        return one.property_schema(name, key) if one is not None else None

    def validate(self, name: str, arguments: dict[str, Any]) -> str | None:
        one = self._one(name)
        return one.validate(name, arguments) if one is not None else f"$: unknown tool {name!r}"

    def model_for(self, name: str) -> type[BaseModel] | None:
        return None  # JSON definitions: no pydantic model behind them

    def callable_for(self, name: str) -> Callable[..., Any] | None:
        return None  # nor a function

    def openai_tools(self) -> list[dict[str, Any]]:
        return [tool for name in self._spans for tool in self._known(name).openai_tools()]
