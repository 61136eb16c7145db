"""The engine's private constructors of events: the slots set directly, without the dataclass ``__init__``.

The same immutable, equal and hashing objects the classes build (tests/test_fast_paths.py), made in compiled
code when the core is compiled: the events module stays Python (public dataclasses), and building an event
through it cost an interpreter frame per event (four a call, one a text piece on the general path).
"""

from __future__ import annotations

from typing import Any, Final

from ..events import (
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Validation,
    slot_setter,
)

__all__ = ["reasoning_delta", "text_delta", "tool_call", "tool_call_delta", "tool_call_end", "tool_call_start"]

_new: Final = object.__new__
_set_text: Final = slot_setter(TextDelta, "text")
_set_reasoning: Final = slot_setter(ReasoningDelta, "text")
_set_index: Final = slot_setter(ToolCallDelta, "index")
_set_arguments: Final = slot_setter(ToolCallDelta, "arguments")


def text_delta(text: str) -> TextDelta:
    """``TextDelta(text)``, built without the dataclass ``__init__`` (the engine's private constructor)."""
    event: TextDelta = _new(TextDelta)
    _set_text(event, text)
    return event


def reasoning_delta(text: str) -> ReasoningDelta:
    """``ReasoningDelta(text)``, built without the dataclass ``__init__``."""
    event: ReasoningDelta = _new(ReasoningDelta)
    _set_reasoning(event, text)
    return event


def tool_call_delta(index: int, arguments: str) -> ToolCallDelta:
    """``ToolCallDelta(index, arguments)``, built without the dataclass ``__init__``."""
    event: ToolCallDelta = _new(ToolCallDelta)
    _set_index(event, index)
    _set_arguments(event, arguments)
    return event


_set_start: Final = tuple(slot_setter(ToolCallStart, n) for n in ("index", "id", "name"))
_set_end: Final = tuple(slot_setter(ToolCallEnd, n) for n in ("index", "call"))
_set_call: Final = tuple(
    slot_setter(ToolCall, n)
    for n in (
        "id",
        "name",
        "arguments",
        "arguments_json",
        "format",
        "raw",
        "fallback_used",
        "repairs",
        "validation",
        "parsed",
    )
)


def tool_call_start(index: int, call_id: str, name: str) -> ToolCallStart:
    """``ToolCallStart(index, call_id, name)``, built without the dataclass ``__init__`` (once per call)."""
    event: ToolCallStart = _new(ToolCallStart)
    set_index, set_id, set_name = _set_start
    set_index(event, index)
    set_id(event, call_id)
    set_name(event, name)
    return event


def tool_call_end(index: int, call: ToolCall) -> ToolCallEnd:
    """``ToolCallEnd(index, call)``, built without the dataclass ``__init__``."""
    event: ToolCallEnd = _new(ToolCallEnd)
    set_index, set_call = _set_end
    set_index(event, index)
    set_call(event, call)
    return event


def tool_call(
    call_id: str,
    name: str,
    arguments: dict[str, Any],
    arguments_json: str,
    format: str,
    raw: str,
    fallback_used: bool,
    repairs: list[str],
    validation: Validation,
    parsed: Any,
) -> ToolCall:
    """``ToolCall(...)`` with every field given, built without the dataclass ``__init__`` (once per call)."""
    call: ToolCall = _new(ToolCall)
    s_id, s_name, s_args, s_json, s_format, s_raw, s_fallback, s_repairs, s_validation, s_parsed = _set_call
    s_id(call, call_id)
    s_name(call, name)
    s_args(call, arguments)
    s_json(call, arguments_json)
    s_format(call, format)
    s_raw(call, raw)
    s_fallback(call, fallback_used)
    s_repairs(call, repairs)
    s_validation(call, validation)
    s_parsed(call, parsed)
    return call
