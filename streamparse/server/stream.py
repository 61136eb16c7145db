"""One chat completion's reply, rewritten: :class:`ChatRewriter` turns upstream SSE bytes into the SSE
bytes the client gets (streaming) or a parsed ``chat.completion`` (non-streaming), with the same rules.

Wire shapes (docs/proxy.md has them in full):

* An error ends the stream with ``data: {"error": {"message", "type", "param", "code"}}`` and nothing after
  it (no finish chunk, no ``[DONE]``): the ``openai`` SDK raises ``APIError`` on it. Sent when the upstream
  connection breaks or its body ends before a finish, on an upstream error event (relayed as sent), an SSE
  line over the limit, and on a rejected call under ``on_reject="error"`` (type ``tool_call_rejected``,
  code the reason).
* A rejected call under ``on_reject="note"`` (the default) is a chunk whose ``delta.content`` is a short
  bracketed note and which carries ``"streamparse_rejection": {"name", "reason", "detail"}`` beside
  ``choices``. ``"drop"`` sends nothing. Every rejection is counted and logged (warning, ``streamparse``).
* Content is the parser's visible text as it is released, nothing added or folded: with the default
  ``separators="drop"`` that is the message field the template was given (``</think>\\n\\n<tool_call>``
  gives no ``"\\n\\n"``; states/separators.py decides), with ``"keep"`` every character.
"""

from __future__ import annotations

import json
import logging
import secrets
import string
from collections.abc import Callable, Mapping
from typing import Any

from ..events import Event, ReasoningDelta, TextDelta, TextWasReasoning, ToolCallEnd, ToolCallRejected
from ..parser import StreamParser
from ..providers.openai_writer import SSE_DONE, OpenAIChunkWriter, to_sse
from ..providers.sse import SSEDecoder, encode_sse
from .metrics import Metrics
from .options import ServerOptions

__all__ = ["ChatRewriter", "CallRejectedError", "error_event", "error_object", "id_mapper"]

log = logging.getLogger("streamparse.server")
_ALNUM = string.ascii_letters + string.digits
_NOTE_DETAIL = 200  # characters of a rejection's detail shown in the visible note


def error_object(message: str, etype: str, code: str | int) -> dict[str, Any]:
    return {"error": {"message": message, "type": etype, "param": None, "code": code}}


def error_event(message: str, etype: str, code: str | int) -> bytes:
    return to_sse(error_object(message, etype, code))


def id_mapper(style: str) -> Callable[[str], str] | None:
    """Call ids in the shape a family's template accepts back (``"alnum9"``: Mistral); ``None`` keeps the
    parser's ``call_<random>_<n>`` ids."""
    if style != "alnum9":
        return None
    ids: dict[str, str] = {}

    def to_alnum9(parser_id: str) -> str:
        if parser_id not in ids:
            ids[parser_id] = "".join(secrets.choice(_ALNUM) for _ in range(9))
        return ids[parser_id]

    return to_alnum9


class CallRejectedError(Exception):
    """A call was rejected under ``on_reject="error"`` (non-streaming replies answer 502 with it)."""

    def __init__(self, ev: ToolCallRejected) -> None:
        super().__init__(f"tool call {ev.name!r} rejected ({ev.reason}): {ev.detail}")
        self.event = ev


class ChatRewriter:
    """``feed(raw) -> bytes``, ``end() -> bytes``, ``fail(...) -> bytes``; ``done`` once nothing more
    may be sent. ``complete(content)`` is the non-streaming form."""

    def __init__(
        self,
        parser: StreamParser,
        model: str | None,
        options: ServerOptions,
        metrics: Metrics,
        call_id: Callable[[str], str] | None = None,
    ) -> None:
        self.parser = parser
        self.model = model
        self.options = options
        self.metrics = metrics
        self.call_id = call_id
        self.sse = SSEDecoder(max_chars=options.max_sse_line_chars, comments=True)
        self.writer: OpenAIChunkWriter | None = None
        self.passthrough = False  # the upstream structured its calls itself: relay the rest as is
        self.finished = False  # the finish chunk went out
        self.done = False  # nothing more may be sent (after [DONE] or an error)
        # ``on_reject="retry"``: a rejected call waiting for the upstream to be asked again (the caller
        # sees ``retry`` set, stops feeding and calls ``restart`` or ``give_up``); after a restart only
        # calls are sent (the correction's text and reasoning would repeat or contradict the reply's).
        self.retries_left = options.retries if options.on_reject == "retry" else 0
        self.retries = 0
        self.retry: ToolCallRejected | None = None
        self.only_calls = False

    # -- the writer and the event filter -----------------------------------------------------------

    def _writer(self, payload: Mapping[str, Any]) -> OpenAIChunkWriter:
        if self.writer is None:
            created, fp, cid = payload.get("created"), payload.get("system_fingerprint"), payload.get("id")
            self.writer = OpenAIChunkWriter(
                str(payload.get("model") or self.model or "unknown"),
                id=cid if isinstance(cid, str) else None,
                created=created if isinstance(created, int) else None,
                system_fingerprint=fp if isinstance(fp, str) else None,
                eager=self.options.eager,
                call_id=self.call_id,
            )
        return self.writer

    def _chunks(self, events: list[Event], payload: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Events to chunks under the server's policies; raises CallRejectedError (``on_reject="error"``)."""
        writer = self._writer(payload)
        out = writer.write([])  # the role chunk, once
        for ev in events:
            if self.retry is not None:
                break  # the rest of this reply is replaced by the correction
            if self.only_calls and isinstance(ev, TextDelta | ReasoningDelta | TextWasReasoning):
                continue
            if isinstance(ev, ToolCallRejected):
                out += self._rejected(writer, ev)
            else:
                if isinstance(ev, ToolCallEnd):
                    self.metrics.inc("tool_calls_total")
                out += writer.write(ev)
        return out

    def _rejected(self, writer: OpenAIChunkWriter, ev: ToolCallRejected) -> list[dict[str, Any]]:
        if self.options.pass_invalid and ev.reason == "schema_violation":
            handed = writer.hand_over(ev)
            if handed:
                self.metrics.inc("handed_over_total")
                log.info("tool call %r breaks its schema; sent to the client to validate: %s", ev.name, ev.detail)
                return handed
        writer.write(ev)  # forgets the buffered call
        self.metrics.inc("rejections_total", ev.reason)
        log.warning("tool call %r rejected (%s): %s", ev.name, ev.reason, ev.detail)
        if self.retries_left > 0 and ev.reason == "schema_violation" and ev.name and ev.arguments is not None:
            self.retry = ev  # only declared tools have schema violations: never an unknown_tool call
            return []
        return self._note(writer, ev)

    def _note(self, writer: OpenAIChunkWriter, ev: ToolCallRejected) -> list[dict[str, Any]]:
        if self.options.on_reject == "error":
            raise CallRejectedError(ev)
        if self.options.on_reject == "drop":
            return []
        detail = ev.detail if len(ev.detail) <= _NOTE_DETAIL else ev.detail[:_NOTE_DETAIL] + "..."
        what = f" {ev.name!r}" if ev.name else ""
        chunk = writer.chunk({"content": f"[tool call{what} rejected ({ev.reason}): {detail}]"})
        chunk["streamparse_rejection"] = {"name": ev.name, "reason": ev.reason, "detail": ev.detail}
        return [chunk]

    def restart(self, parser: StreamParser) -> None:
        """The upstream was asked again for ``retry``: its reply is parsed by ``parser``, calls only."""
        self.parser = parser
        self.sse = SSEDecoder(max_chars=self.options.max_sse_line_chars, comments=True)
        self.retry, self.only_calls = None, True
        self.retries_left -= 1
        self.retries += 1
        self.metrics.inc("retries_total")
        self.passthrough = self.finished = False

    def give_up(self, why: str) -> list[dict[str, Any]]:
        """The retry could not be made (``why``): the pending rejection's note after all."""
        ev, self.retry = self.retry, None
        assert ev is not None and self.writer is not None
        log.warning("no retry for tool call %r: %s", ev.name, why)
        return self._note(self.writer, ev)

    def give_up_stream(self, why: str) -> bytes:
        """:meth:`give_up` for a stream, which ends there (finish chunk and ``[DONE]``)."""
        out = b"".join(to_sse(c) for c in self.give_up(why))
        assert self.writer is not None
        self.finished = self.done = True
        return out + b"".join(to_sse(c) for c in self.writer.finish(None)) + SSE_DONE

    def _sse(self, events: list[Event], payload: Mapping[str, Any]) -> bytes:
        if len(events) == 1 and self.writer is not None and type(events[0]) is TextDelta and not self.only_calls:
            return self.writer.delta_sse("content", events[0].text)  # the hot path: one piece of visible text
        try:
            chunks = self._chunks(events, payload)
        except CallRejectedError as exc:
            return self.fail(str(exc), "tool_call_rejected", exc.event.reason, count=False)
        return b"".join(to_sse(c) for c in chunks)

    def _finish(self, payload: Mapping[str, Any], reason: str | None, usage: Any) -> bytes:
        out = self._sse(self.parser.close(), payload)
        if self.done or self.retry is not None:
            return out
        assert self.writer is not None
        self.finished = True
        chunks = self.writer.finish(reason, usage=usage if isinstance(usage, dict) else None)
        if self.retries:  # no header can say it once the stream has started: the last chunk does
            chunks[-1]["streamparse_retries"] = self.retries
        return out + b"".join(to_sse(c) for c in chunks)

    # -- streaming ---------------------------------------------------------------------------------

    def feed(self, raw: bytes) -> bytes:
        """Upstream bytes in, client bytes out. Raises ``SSELimitError`` (the caller ends with an error)."""
        out: list[bytes] = []
        for ev in self.sse.feed(raw):
            out.append(self.on_event(ev.event, ev.data))
            if self.done or self.retry is not None:
                break
        return b"".join(out)

    def end(self) -> bytes:
        """The upstream body ended. Without a finish or ``[DONE]`` first, the reply is cut: an error."""
        out = b"" if self.done else self.feed(b"")
        if not self.done:
            out += b"".join(self.on_event(ev.event, ev.data) for ev in self.sse.close(dispatch_incomplete=True))
        if self.done:
            return out
        if self.finished:
            self.done = True
            return out + SSE_DONE
        return out + self.fail("the upstream stream ended before the reply finished", "upstream_error", 502)

    def fail(self, message: str, etype: str = "upstream_error", code: str | int = 502, *, count: bool = True) -> bytes:
        """End the stream with an error object (and nothing after it)."""
        if self.done:
            return b""
        self.done = True
        if count:
            self.metrics.inc("upstream_errors_total", etype)
        log.warning("stream ended with an error: %s", message)
        return error_event(message, etype, code)

    def on_event(self, event: str, data: str) -> bytes:
        if self.done or self.retry is not None:
            return b""
        if event == "":  # an upstream comment (keep-alive ping): forwarded
            return f": {data}\n\n".encode()
        if data.strip() == "[DONE]":
            out = b"" if self.finished or self.passthrough else self._finish({}, None, None)
            if self.done or self.retry is not None:
                return out
            self.done = True
            self.finished = True
            return out + SSE_DONE
        try:
            payload = json.loads(data)
        except ValueError:
            payload = None
        if event == "error" or (isinstance(payload, dict) and "error" in payload):
            self.done = True  # the upstream's own error: relayed as sent, and the stream ends there
            self.metrics.inc("upstream_errors_total", "error_event")
            return encode_sse(data, event=None if event == "message" else event)
        if self.passthrough or self.finished or event != "message" or not isinstance(payload, dict):
            return encode_sse(data, event=None if event == "message" else event)
        choices = payload.get("choices")
        choice = None
        if isinstance(choices, list):
            choice = next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)
        if choice is None:
            return encode_sse(data)  # a usage chunk, another choice
        delta: dict[str, Any] = choice["delta"] if isinstance(choice.get("delta"), dict) else {}
        reason = choice.get("finish_reason")
        if delta.get("tool_calls"):
            self.passthrough = True  # structured calls from upstream: flush what we hold, relay the rest
            self.finished = bool(reason)
            return self._sse(self.parser.close(), payload) + encode_sse(data)
        writer = self.writer
        if writer is None:
            out = self._sse([], payload)  # the role chunk, once
            writer = self._writer(payload)
        else:
            out = b""
        for key in ("reasoning_content", "reasoning"):
            reasoning = delta.get(key)
            if isinstance(reasoning, str) and reasoning and not self.only_calls:
                out += writer.delta_sse(key, reasoning)
                break
        content = delta.get("content")
        if isinstance(content, str) and content:
            out += self._sse(self.parser.feed(content), payload)
        if isinstance(reason, str) and reason and not self.done and self.retry is None:
            out += self._finish(payload, reason, payload.get("usage"))
        return out

    # -- non-streaming -----------------------------------------------------------------------------

    def complete(self, completion: Any) -> Any:
        """Parse a ``chat.completion``'s ``message.content`` in place (text, reasoning, ``tool_calls``) with
        the streaming rules. Replies that already have ``tool_calls``, or no text, are returned unchanged.
        Raises :class:`CallRejectedError` under ``on_reject="error"``."""
        try:
            choice = completion["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            return completion
        if not isinstance(message, dict) or message.get("tool_calls"):
            return completion
        content = message.get("content")
        if not isinstance(content, str) or not content:
            return completion
        events = self.parser.feed(content) + self.parser.close()
        segments: list[list[Event]] = [[]]  # split where the text so far turned out to be reasoning
        for ev in events:
            if isinstance(ev, TextWasReasoning):
                segments.append([])
            else:
                segments[-1].append(ev)
        text: list[str] = []
        reasoning: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        notes: list[Any] = []
        for k, segment in enumerate(segments):
            if k:
                reasoning.insert(0, "".join(text))
                text.clear()
            for chunk in self._chunks(segment, completion):
                self._collect(chunk, text, reasoning, calls, notes)
        joined = "".join(text)
        message["content"] = joined or (None if calls else "")
        if any(reasoning):
            key = "reasoning" if "reasoning" in message and "reasoning_content" not in message else "reasoning_content"
            before = message.get(key)
            extra = "".join(reasoning)
            message[key] = f"{before}\n{extra}" if isinstance(before, str) and before else extra
        if calls:
            message["tool_calls"] = [calls[i] for i in sorted(calls)]
            choice["finish_reason"] = "tool_calls"
        if notes:
            completion["streamparse_rejections"] = notes
        return completion

    @staticmethod
    def _collect(
        chunk: dict[str, Any], text: list[str], reasoning: list[str], calls: dict[int, dict[str, Any]], notes: list[Any]
    ) -> None:
        delta = chunk["choices"][0]["delta"]
        text.append(delta.get("content") or "")
        reasoning.append(delta.get("reasoning_content") or "")
        if "streamparse_rejection" in chunk:
            notes.append(chunk["streamparse_rejection"])
        for tc in delta.get("tool_calls") or []:
            entry = calls.setdefault(tc["index"], {"id": "", "type": "function", "function": {}})
            entry["id"] = tc.get("id") or entry["id"]
            fn = entry["function"]
            fn["name"] = fn.get("name") or tc["function"].get("name", "")
            fn["arguments"] = fn.get("arguments", "") + tc["function"].get("arguments", "")
