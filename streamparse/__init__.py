"""streamparse: parse LLM output while it streams: visible text, reasoning and tool calls."""

from __future__ import annotations

from ._version import __version__
from .events import (
    Event,
    ParseResult,
    ReasoningDelta,
    TextDelta,
    TextWasReasoning,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
    merge_events,
)
from .parser import ParserClosedError, StreamParser, parse
from .partial import CallSnapshot
from .rejections import REASONS, Reason


def _compiled() -> bool:
    from importlib.machinery import EXTENSION_SUFFIXES

    from .core import engine  # (the core's modules are compiled together or not at all)

    return (engine.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))


# Which build runs: True when the parsing core is the one compiled with mypyc (the platform wheel built with
# STREAMPARSE_COMPILE=1, or `make compile`'s copy), False in the pure-Python build. `streamparse --version`
# says it too. See docs/ENGINE.md, "The compiled core".
COMPILED: bool = _compiled()

__all__ = [
    "COMPILED",
    "CallSnapshot",
    "Event",
    "ParseResult",
    "ParserClosedError",
    "REASONS",
    "Reason",
    "ReasoningDelta",
    "StreamParser",
    "TextDelta",
    "TextWasReasoning",
    "aparse",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallRejected",
    "ToolCallStart",
    "merge_events",
    "parse",
    "__version__",
]


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    # The async layer imports anyio; load it only when asked for.
    if name == "aparse":
        from .aio import aparse

        return aparse
    raise AttributeError(name)
