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

__all__ = [
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
