"""Events emitted by the parser: immutable value objects (frozen, slotted dataclasses).

The engine builds the commonest events through :func:`text_delta`, :func:`reasoning_delta` and
:func:`tool_call_delta`: they set the slots directly instead of going through a frozen dataclass's
``__init__`` (one ``object.__setattr__`` per field, about half of an event's cost). The result is the same
immutable object: equal to, and hashing like, one built by the class.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from . import messages
from .partial import CallSnapshot, partial_arguments

Validation = Literal["pass", "skipped"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A complete call. ``arguments_json`` is exactly the concatenation of the call's deltas.

    ``parsed`` is the instance of the tool's pydantic model (``Model.model_validate(arguments)``) when
    the tool was given to ``tools=`` as a pydantic model class, else None. It is not part of
    ``to_dict()`` (not JSON data).
    """

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_json: str
    format: str
    raw: str
    fallback_used: bool = False
    repairs: list[str] = field(default_factory=list)
    validation: Validation = "skipped"
    parsed: Any = None

    def to_openai(self) -> dict[str, Any]:
        """The call as an OpenAI chat-completion ``tool_calls`` entry."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments_json},
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "arguments_json": self.arguments_json,
            "format": self.format,
            "raw": self.raw,
            "fallback_used": self.fallback_used,
            "repairs": list(self.repairs),
            "validation": self.validation,
        }


@dataclass(frozen=True, slots=True)
class TextDelta:
    """Visible text, markup removed."""

    text: str
    type: ClassVar[str] = "text"


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Reasoning text (``<think>``, harmony analysis channel, ``[THINK]``, ...)."""

    text: str
    type: ClassVar[str] = "reasoning"


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    """A call's name is known."""

    index: int
    id: str
    name: str
    type: ClassVar[str] = "tool_call_start"


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of the call's arguments as JSON text."""

    index: int
    arguments: str
    type: ClassVar[str] = "tool_call_delta"


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """The call is complete and valid: safe to dispatch now."""

    index: int
    call: ToolCall
    type: ClassVar[str] = "tool_call_end"


@dataclass(frozen=True, slots=True)
class ToolCallRejected:
    """A candidate failed; ``reason`` is one of :data:`streamparse.rejections.REASONS`.

    Life cycle: every ``ToolCallStart`` is followed by exactly one ``ToolCallEnd`` or ``ToolCallRejected``
    with its index. ``started`` says which kind of rejection this is: True, the call had its
    ``ToolCallStart`` (a card was drawn: mark it failed); False, the candidate never became a call (an
    undeclared or empty name, no name, grew too large or was cut off before its name), so no event
    before this one carried its index and there is nothing to close.
    """

    index: int
    reason: str
    raw: str
    name: str | None = None
    detail: str = ""
    format: str | None = None
    arguments: str | None = None
    """For ``schema_violation``: the call's complete arguments JSON (the same text its deltas carried), so a
    consumer can hand the call on for validation elsewhere (``streamparse serve --pass-invalid``)."""
    started: bool = False
    type: ClassVar[str] = "tool_call_rejected"

    def to_tool_message(self, style: messages.Style = "openai", *, tools: Any = None) -> dict[str, Any]:
        """The answer to send the model: an OpenAI ``role: "tool"`` message, or (``style="anthropic"``) a
        ``tool_result`` block with ``is_error``, saying what to fix (the schema path and what it expected; an
        unknown name and, with ``tools``, the names offered). Its id is the one ``ParseResult.to_openai_message``
        gives this call."""
        return messages.tool_message(self, style, tools)


@dataclass(frozen=True, slots=True)
class TextWasReasoning:
    """The visible text released so far (all of it, ``chars`` characters) was reasoning.

    Emitted when an orphan ``</think>`` arrives (a ``</think>`` with no ``<think>`` before it, before any
    reasoning or call): the prompt had opened the reasoning, so everything before the closer was the
    model's thinking. The text was released early as ``TextDelta`` (text is never held back on the chance
    that a closer follows); a consumer moves it to reasoning. ``ParseResult.from_events`` does, so the
    result of any chunking equals ``parse`` of the whole text. Starting in reasoning where the request
    says the prompt opened it (``start_in_reasoning``, a preset) avoids the move.
    """

    chars: int
    type: ClassVar[str] = "text_was_reasoning"


def slot_setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    """The slot's own setter (a member descriptor's ``__set__``): bypasses the frozen ``__setattr__``.

    For the engine's private constructors only (an event is never changed after it was built)."""
    setter: Callable[[Any, Any], None] = vars(cls)[name].__set__
    return setter


Event: TypeAlias = (
    TextDelta | ReasoningDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | ToolCallRejected | TextWasReasoning
)


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict of an event (the CLI's JSON-lines form)."""
    if isinstance(event, ToolCallEnd):
        return {"type": event.type, "index": event.index, "call": event.call.to_dict()}
    out: dict[str, Any] = {"type": event.type}
    for name in event.__slots__:
        out[name] = getattr(event, name)
    return out


def event_to_json(event: Event) -> str:
    return json.dumps(event_to_dict(event), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class ParseResult:
    """The result of :func:`streamparse.parse`: the merged view of the event sequence."""

    text: str
    reasoning: str
    tool_calls: list[ToolCall]
    rejected: list[ToolCallRejected]
    events: list[Event]
    finish_reason: str = "stop"
    metadata: dict[str, Any] = field(default_factory=dict)  # e.g. the envelope's needsMoreWork
    snapshots: list[CallSnapshot] = field(default_factory=list)  # every started call, in index order

    def to_openai_message(
        self, *, reasoning_field: str | None = "reasoning_content", include_rejected: bool = True
    ) -> dict[str, Any]:
        """The assistant turn for the next OpenAI chat request: ``content``, reasoning under
        ``reasoning_field`` (vLLM/DeepSeek ``reasoning_content``; ``"reasoning"`` for OpenRouter/Ollama; None
        drops it), and ``tool_calls`` with the calls' ids; rejected calls too (``include_rejected``), so each
        ``ToolCallRejected.to_tool_message()`` answers a call of this message."""
        return messages.assistant_message(self, reasoning_field, include_rejected)

    def to_anthropic_message(self, *, include_thinking: bool = True, include_rejected: bool = True) -> dict[str, Any]:
        """The assistant turn for the next Anthropic Messages request: ``thinking``, ``text`` and ``tool_use``
        blocks (rejected calls too, answered by ``to_tool_message("anthropic")``)."""
        return messages.anthropic_message(self, include_thinking, include_rejected)

    @classmethod
    def from_events(
        cls, events: list[Event], finish_reason: str | None = None, metadata: dict[str, Any] | None = None
    ) -> ParseResult:
        """The merged view of ``events``. ``finish_reason`` (the upstream's) is overruled as everywhere:
        ``"tool_calls"`` when a call was accepted, ``"length"`` when a call was cut (``truncated``)."""
        text: list[str] = []
        reasoning: list[str] = []
        calls: list[ToolCall] = []
        rejected: list[ToolCallRejected] = []
        snapshots = _Snapshots()
        for ev in events:
            if isinstance(ev, ToolCallStart | ToolCallDelta | ToolCallEnd | ToolCallRejected):
                snapshots.add(ev)
            if isinstance(ev, TextDelta):
                text.append(ev.text)
            elif isinstance(ev, ReasoningDelta):
                reasoning.append(ev.text)
            elif isinstance(ev, ToolCallEnd):
                calls.append(ev.call)
            elif isinstance(ev, ToolCallRejected):
                rejected.append(ev)
            elif isinstance(ev, TextWasReasoning):
                reasoning.insert(0, "".join(text))  # the released text came before any reasoning
                text.clear()
        return cls(
            "".join(text),
            "".join(reasoning),
            calls,
            rejected,
            events,
            messages.finish_reason(bool(calls), any(r.reason == "truncated" for r in rejected), finish_reason),
            dict(metadata or {}),
            snapshots.result(),
        )


class _Snapshots:
    """The final snapshot of every started call, from the events (arguments are read once per call)."""

    def __init__(self) -> None:
        self.starts: dict[int, ToolCallStart] = {}
        self.parts: dict[int, list[str]] = {}
        self.done: dict[int, CallSnapshot] = {}

    def add(self, ev: ToolCallStart | ToolCallDelta | ToolCallEnd | ToolCallRejected) -> None:
        if isinstance(ev, ToolCallStart):
            self.starts[ev.index] = ev
            self.parts[ev.index] = []
        elif isinstance(ev, ToolCallDelta):
            self.parts.setdefault(ev.index, []).append(ev.arguments)
        elif isinstance(ev, ToolCallEnd):
            c = ev.call
            self.parts.pop(ev.index, None)
            self.done[ev.index] = CallSnapshot(ev.index, c.id, c.name, c.arguments, "complete", c.format, c.parsed)
        elif ev.index in self.starts:
            start = self.starts[ev.index]
            args = partial_arguments("".join(self.parts.pop(ev.index, [])))
            fmt = ev.format or ""
            self.done[ev.index] = CallSnapshot(ev.index, start.id, start.name, args, "rejected", fmt, None, ev.reason)

    def result(self) -> list[CallSnapshot]:
        out = []
        for index, start in sorted(self.starts.items()):
            snap = self.done.get(index)
            if snap is None:  # events of a stream still open
                args = partial_arguments("".join(self.parts.get(index, [])))
                snap = CallSnapshot(index, start.id, start.name, args, "streaming", "")
            out.append(snap)
        return out


def merge_events(events: list[Event]) -> list[Event]:
    """Join adjacent text, reasoning and same-call argument deltas: the chunking-free view."""
    out: list[Event] = []
    for ev in events:
        if out:
            last = out[-1]
            if isinstance(ev, TextDelta) and isinstance(last, TextDelta):
                out[-1] = TextDelta(last.text + ev.text)
                continue
            if isinstance(ev, ReasoningDelta) and isinstance(last, ReasoningDelta):
                out[-1] = ReasoningDelta(last.text + ev.text)
                continue
            if isinstance(ev, ToolCallDelta) and isinstance(last, ToolCallDelta) and ev.index == last.index:
                out[-1] = ToolCallDelta(ev.index, last.arguments + ev.arguments)
                continue
        out.append(ev)
    return out
