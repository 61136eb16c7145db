"""OpenAI chat-completion output: :class:`OpenAIChunkWriter` (streaming chunks), :func:`to_sse`,
:func:`completion_from_result` (one ``chat.completion`` object).

The chunks are shaped as the official ``openai`` client accumulates them: a first chunk with
``role: "assistant"``, ``delta.content`` / ``delta.reasoning_content`` pieces, and for each call a
``delta.tool_calls`` entry carrying ``index``, ``id``, ``type`` and ``function.name`` followed by
``function.arguments`` pieces, then a last chunk with ``finish_reason``.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..events import (
    Event,
    ParseResult,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
)
from ..messages import finish_reason as turn_finish_reason

SSE_DONE = b"data: [DONE]\n\n"


def to_sse(chunk: dict[str, Any]) -> bytes:
    """One chunk as an SSE ``data:`` event (compact JSON never contains a newline)."""
    return b"data: " + json.dumps(chunk, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def new_completion_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex[:24]


@dataclass
class _OpenCall:
    id: str
    name: str
    sent_chars: int = 0  # argument characters already sent (eager mode); nothing else is kept per delta
    out_index: int | None = None  # set once the call has been sent (eager mode: at its start)


class OpenAIChunkWriter:
    """Turns streamparse events into ``chat.completion.chunk`` dicts: ``write(events) -> list[dict]``,
    then ``finish(upstream_reason) -> list[dict]``.

    Fail closed by default: a call is buffered from its ``ToolCallStart`` until its ``ToolCallEnd`` and
    only then sent (a start chunk and one arguments chunk), so a candidate that is later rejected (schema
    violation, truncation) never reaches the client as a structured call. With ``eager=True`` starts and
    argument deltas are sent as they arrive, which lets a UI show arguments forming but means a rejected
    call has already been half-sent and the client must cope with it.

    Emitted ``tool_calls`` indices are 0..n-1 in send order, whatever engine indices rejected candidates
    used. ``rejected_note=True`` adds a short visible note for each rejected call (off by default).
    ``reasoning_field`` names the delta key for reasoning (``"reasoning_content"``, or ``"reasoning"``).
    ``call_id`` maps the parser's call ids to the ids sent (some chat templates accept only their own id
    shape back, e.g. Mistral's 9 alphanumeric characters); :meth:`hand_over` sends a rejected call anyway.
    """

    def __init__(
        self,
        model: str,
        id: str | None = None,
        created: int | None = None,
        *,
        eager: bool = False,
        rejected_note: bool = False,
        reasoning_field: str = "reasoning_content",
        system_fingerprint: str | None = None,
        call_id: Callable[[str], str] | None = None,
    ) -> None:
        self.model = model
        self.call_id = call_id
        self.id = id or new_completion_id()
        self.created = int(time.time()) if created is None else created
        self.eager = eager
        self.rejected_note = rejected_note
        self.reasoning_field = reasoning_field
        self.system_fingerprint = system_fingerprint
        self.calls_sent = 0  # tool_calls entries started on the wire
        self.calls_completed = 0  # calls whose ToolCallEnd was seen
        self.cut = False  # a call was rejected as truncated: the output hit its limit
        self._open: dict[int, _OpenCall] = {}
        self._started = False
        self._finished = False
        self._frames: dict[str, tuple[bytes, bytes]] = {}

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        if self.system_fingerprint is not None:
            out["system_fingerprint"] = self.system_fingerprint
        return out

    def delta_sse(self, key: str, text: str) -> bytes:
        """``to_sse(self.chunk({key: text}))`` for the hot path (a text or reasoning piece): the chunk's
        fixed part is encoded once per key, only ``text`` per call."""
        frame = self._frames.get(key)
        if frame is None:
            marker = "\x00streamparse\x00"
            head, _, tail = to_sse(self.chunk({key: marker})).partition(json.dumps(marker).encode())
            frame = self._frames[key] = (head, tail)
        return frame[0] + json.dumps(text, ensure_ascii=False).encode() + frame[1]

    def _begin(self) -> list[dict[str, Any]]:
        if self._started:
            return []
        self._started = True
        return [self.chunk({"role": "assistant", "content": ""})]

    def write(self, events: Event | Iterable[Event]) -> list[dict[str, Any]]:
        if self._finished:
            raise RuntimeError("write() after finish()")
        out = self._begin()
        for ev in [events] if not isinstance(events, Iterable) else events:
            out.extend(self._one(ev))
        return out

    def _tool_chunk(self, entry: dict[str, Any]) -> dict[str, Any]:
        return self.chunk({"tool_calls": [entry]})

    def _send_start(self, call: _OpenCall) -> dict[str, Any]:
        call.out_index = self.calls_sent
        self.calls_sent += 1
        return self._tool_chunk(
            {
                "index": call.out_index,
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
        )

    def _send_args(self, call: _OpenCall, arguments: str) -> dict[str, Any]:
        return self._tool_chunk({"index": call.out_index, "function": {"arguments": arguments}})

    def _one(self, ev: Event) -> list[dict[str, Any]]:
        if isinstance(ev, TextDelta):
            return [self.chunk({"content": ev.text})] if ev.text else []
        if isinstance(ev, ReasoningDelta):
            return [self.chunk({self.reasoning_field: ev.text})] if ev.text else []
        if isinstance(ev, ToolCallStart):
            call = _OpenCall(self._id(ev.id), ev.name)
            self._open[ev.index] = call
            return [self._send_start(call)] if self.eager else []
        if isinstance(ev, ToolCallDelta):
            open_call = self._open.get(ev.index)
            if open_call is None or not ev.arguments:
                return []
            if not self.eager:
                return []
            open_call.sent_chars += len(ev.arguments)
            return [self._send_args(open_call, ev.arguments)]
        if isinstance(ev, ToolCallEnd):
            self.calls_completed += 1
            open_call = self._open.pop(ev.index, None)
            out: list[dict[str, Any]] = []
            if open_call is None or open_call.out_index is None:  # buffered (or never started): send now
                open_call = _OpenCall(self._id(ev.call.id), ev.call.name)
                out.append(self._send_start(open_call))
                if ev.call.arguments_json:
                    out.append(self._send_args(open_call, ev.call.arguments_json))
            else:  # eager: only what the deltas did not already carry (arguments_json = the deltas joined)
                full = ev.call.arguments_json
                if len(full) > open_call.sent_chars:
                    out.append(self._send_args(open_call, full[open_call.sent_chars :]))
            return out
        if isinstance(ev, ToolCallRejected):
            self._open.pop(ev.index, None)
            self.cut = self.cut or ev.reason == "truncated"
            if self.rejected_note:
                what = f" {ev.name}" if ev.name else ""
                return [self.chunk({"content": f"[tool call{what} rejected: {ev.reason}]"})]
            return []
        return []

    def _id(self, parser_id: str) -> str:
        return parser_id if self.call_id is None else self.call_id(parser_id)

    def hand_over(self, ev: ToolCallRejected) -> list[dict[str, Any]]:
        """Send a rejected call as a structured call after all (its name was known and its arguments
        streamed, e.g. a schema violation the client wants to validate itself); ``[]`` when it never
        started or carries no ``arguments`` (only schema violations do). Counts as a completed call."""
        call = self._open.pop(ev.index, None)
        if call is None or ev.arguments is None:
            return []
        self.calls_completed += 1
        out: list[dict[str, Any]] = []
        if call.out_index is None:
            out.append(self._send_start(call))
        if len(ev.arguments) > call.sent_chars:
            out.append(self._send_args(call, ev.arguments[call.sent_chars :]))
        return out

    def finish(self, finish_reason: str | None = None, *, usage: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The last chunk. ``finish_reason`` is ``"tool_calls"`` when any call completed, else ``"length"`` when
        a call was truncated, else the upstream's ``finish_reason``, else ``"stop"``. Calls still open are dropped."""
        out = self._begin()
        self._open.clear()
        self._finished = True
        reason = turn_finish_reason(bool(self.calls_completed), self.cut, finish_reason)
        last = self.chunk({}, reason)
        if usage is not None:
            last["usage"] = usage
        out.append(last)
        return out


def completion_from_result(
    result: ParseResult,
    model: str,
    *,
    id: str | None = None,
    created: int | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    reasoning_field: str = "reasoning_content",
) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` object from a :class:`~streamparse.ParseResult`.

    ``content`` is ``None`` when the reply is only tool calls (as OpenAI does); ``finish_reason`` follows
    the same rule as :meth:`OpenAIChunkWriter.finish`."""
    content = result.text or (None if result.tool_calls else "")
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if result.reasoning:
        message[reasoning_field] = result.reasoning
    if result.tool_calls:
        message["tool_calls"] = [c.to_openai() for c in result.tool_calls]
    out: dict[str, Any] = {
        "id": id or new_completion_id(),
        "object": "chat.completion",
        "created": int(time.time()) if created is None else created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": turn_finish_reason(
                    bool(result.tool_calls), any(r.reason == "truncated" for r in result.rejected), finish_reason
                ),
            }
        ],
    }
    if usage is not None:
        out["usage"] = usage
    return out
