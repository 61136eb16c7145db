"""The public sans-I/O parser: ``StreamParser.feed/close/reset`` and the one-shot ``parse``."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import formats as catalog
from .config import CallsInReasoning, Coercion, Config, Fallback, FormatsOption, NonObjectArgs
from .core.engine import Engine
from .core.parts import Parts
from .errors import ParserClosedError
from .events import Event, ParseResult, ToolCall
from .partial import CallSnapshot, PartialJson, copy_value
from .states.separators import SeparatorsOption
from .stats import ParserStats
from .token_input import TokenGuard

log = logging.getLogger("streamparse")

__all__ = ["StreamParser", "parse", "build_parser", "describe", "ParserClosedError"]


class StreamParser:
    """Push model output in, get events out. No I/O, no threads, no event loop.

    ``feed(chunk)`` accepts ``str`` or ``bytes`` (decoded incrementally as UTF-8, so a character split
    across chunks is fine) and returns the events that became certain; ``close()`` ends the stream.

    ``coercion``: with ``tools``, ``"lenient"`` (the default) converts a JSON string argument whose schema
    admits no string when its meaning is unambiguous (``"true"`` -> true, ``"5"`` -> 5), recorded as the
    repair ``lenient_types``; ``"strict"`` validates JSON arguments exactly as written. Text-valued
    formats (qwen3_coder, xml_invoke, ...) always convert by the schema: their values are text by design.
    ``separators``: ``"drop"`` (the default) gives content and reasoning as the message fields the template
    was given, without the whitespace it writes around its markup (``<think>\n``, ``\n\n<tool_call>``);
    ``"keep"`` leaves that whitespace in the text (docs/FORMATS.md, exact output).
    ``calls`` / ``snapshot(index)``: each call as far as it has streamed (:class:`CallSnapshot`).
    """

    def __init__(
        self,
        formats: FormatsOption = "auto",
        *,
        tools: Any = None,
        start_in_reasoning: bool | None = None,
        calls_in_reasoning: CallsInReasoning = "ignore",
        fallback: Fallback = None,
        max_call_chars: int | None = None,
        id_prefix: str = "call_",
        coercion: Coercion = "lenient",
        non_object_args: NonObjectArgs = "reject",
        special_tokens: Mapping[int, str] | None = None,
        separators: SeparatorsOption = "drop",
    ) -> None:
        self._config = Config(
            formats,
            tools=tools,
            start_in_reasoning=start_in_reasoning,
            calls_in_reasoning=calls_in_reasoning,
            fallback=fallback,
            max_call_chars=max_call_chars,
            id_prefix=id_prefix,
            coercion=coercion,
            non_object_args=non_object_args,
            separators=separators,
        )
        self._engine = Engine(self._config)
        # Token-id input (``feed_tokens``): markers that are special tokens count only as their token ids.
        self._guard = TokenGuard(special_tokens) if special_tokens else None
        if self._guard is None:
            # The hot path: feed() is the engine's own method (one call per chunk, no wrapper).
            self.feed = self._engine.feed  # type: ignore[method-assign]
        self.preset: Any = None
        self._readers: dict[int, PartialJson] = {}  # calls whose snapshot was asked for: their arguments so far

    @classmethod
    def for_model(
        cls, model_id: str, *, chat_template_kwargs: dict[str, Any] | None = None, **options: Any
    ) -> StreamParser:
        """A parser preset for a model id (Hugging Face, Ollama, OpenRouter, LM Studio spellings).

        Explicit ``options`` win over the preset. Unknown models fall back to ``formats="auto"``. The
        preset's formats are preferred, not exclusive: formats sharing an opener with them stay on
        (``formats.siblings``). ``chat_template_kwargs`` (the request's, e.g. ``{"enable_thinking":
        False}``) decides whether the output starts in reasoning (``presets.start_in_reasoning_for``).
        """
        from .presets import preset_for, start_in_reasoning_for

        preset = preset_for(model_id)
        options.setdefault("formats", catalog.siblings(preset.formats) if preset.matched else "auto")
        options.setdefault("start_in_reasoning", start_in_reasoning_for(model_id, chat_template_kwargs))
        parser = cls(**options)
        parser.preset = preset
        return parser

    # -- the contract ------------------------------------------------------------------------------

    def feed(self, chunk: str | bytes | bytearray | memoryview) -> list[Event]:
        """Consume the next piece of model output; return the events it made certain.

        Raises ``ParserClosedError`` after ``close()`` and ``TypeError`` for anything but str/bytes.
        (Replaced per instance by the engine's method; this is its documentation.) With ``special_tokens``,
        text fed here is plain text, as from tokens that are not special (see :meth:`feed_tokens`).
        """
        if isinstance(chunk, str):
            return self.feed_tokens(((None, chunk),))
        raise TypeError("a parser given special_tokens takes text (str) or feed_tokens(), not bytes")

    def feed_tokens(self, pieces: Iterable[tuple[int | None, str]]) -> list[Event]:
        """Consume ``(token id, text)`` pieces. Needs ``special_tokens`` (the tokenizer's table, ``{id: text}``).

        A marker that is a special token is recognised only when it arrives as that token's id: the same
        characters inside other tokens' text stay text (and reach the events unchanged). ``None`` as the id
        means plain text.
        """
        guard = self._guard
        if guard is None:
            raise ValueError("feed_tokens() needs StreamParser(special_tokens={id: text, ...})")
        if self._engine.closed:
            raise ParserClosedError("feed() after close(): call reset() to parse a new stream")
        return guard.clean(self._engine.feed(guard.text(pieces)))

    def close(self, reason: str | None = None) -> list[Event]:
        """End of stream: flush held text, finish or reject open calls (end-of-stream rule).

        ``reason`` is why the stream ended, as the server reports it. ``"stop"`` (a normal stop, e.g. a stop
        sequence that ate a closing marker) accepts a call whose body is complete but whose closer is
        missing; anything else (``"length"``...) or ``None`` rejects it as truncated.
        """
        guard = self._guard
        if guard is None or self._engine.closed:
            return self._engine.close(reason)
        tail = guard.flush()
        head = self._engine.feed(tail) if tail else []
        return guard.clean(head + self._engine.close(reason))

    def reset(self) -> None:
        """Return to the initial state for a new stream (same configuration)."""
        self._engine.reset()
        self._readers.clear()
        if self._guard is not None:
            self._guard.flush()

    @property
    def takes_tokens(self) -> bool:
        """Whether this parser was given ``special_tokens`` (then :meth:`feed_tokens` is its input)."""
        return self._guard is not None

    # -- snapshots ---------------------------------------------------------------------------------

    @property
    def calls(self) -> list[CallSnapshot]:
        """A snapshot of every call that had its ``ToolCallStart`` in this stream, in index order.

        Indices of candidates rejected before they started are not in it (their ``ToolCallRejected``
        has ``started=False``), so a position in this list is not necessarily an index. Cost: see
        :meth:`snapshot`."""
        return [self._snapshot(c) for c in self._engine.started_calls]

    def snapshot(self, index: int) -> CallSnapshot:
        """The call with ``index`` as far as it has streamed: name, arguments parsed so far, status.

        The arguments of an open call are read incrementally: each request reads only the argument text
        that arrived since the previous one (linear in the call's text overall, never re-parsed), then
        copies the containers (O(number of values)), decoding only the new part of the string being written.
        Raises ``KeyError`` when no call with this index has started."""
        for cand in reversed(self._engine.started_calls):  # the open call is the last one
            if cand.index == index:
                return self._snapshot(cand)
        raise KeyError(f"no call with index {index} has started")

    def _snapshot(self, cand: Any) -> CallSnapshot:
        index, call_id, name, fmt = cand.index, cand.id, cand.name, cand.format
        outcome = cand.outcome
        if isinstance(outcome, ToolCall):
            self._readers.pop(index, None)
            return CallSnapshot(index, call_id, name, copy_value(outcome.arguments), "complete", fmt, outcome.parsed)
        parts = cand.args_seen if outcome is not None and cand.args_seen is not None else cand.args
        reader = self._readers.get(index)
        if reader is None:  # first request: read what came so far once, then only what the tap collects
            reader = self._readers[index] = PartialJson()
            reader.feed(parts.join())
            parts.tap = Parts()
        elif parts.tap:
            reader.feed(parts.tap.join())
            parts.tap = Parts()
        value = reader.value()
        args = value if isinstance(value, dict) else {}
        if outcome is not None:
            return CallSnapshot(index, call_id, name, args, "rejected", fmt, None, outcome.reason)
        return CallSnapshot(index, call_id, name, args, "streaming", fmt)

    @property
    def closed(self) -> bool:
        return self._engine.closed

    @property
    def finish_reason(self) -> str:
        """``"tool_calls"`` when any call was accepted, else ``"stop"``."""
        return "tool_calls" if self._engine.accepted else "stop"

    @property
    def stats(self) -> ParserStats:
        """Counters of this stream (a pydantic model; the hot-path counters are synced on access)."""
        eng = self._engine
        stats = eng.stats
        stats.bytes_in = eng.bytes_in
        stats.chars_in = eng.chars_in
        return stats

    @property
    def metadata(self) -> dict[str, Any]:
        """Stream-level facts the output stated, e.g. ``{"needsMoreWork": True}`` from an envelope
        (``{"content": ..., "toolCalls": [...], "needsMoreWork": ...}``)."""
        return self._engine.metadata

    @property
    def formats(self) -> tuple[str, ...]:
        return self._config.formats

    @property
    def tools(self) -> Any:
        return self._config.tools


def parse(text: str | bytes, formats: FormatsOption = "auto", **options: Any) -> ParseResult:
    """One-shot parse; the same engine and the same result as any chunking of ``text``."""
    parser = StreamParser(formats, **options)
    events = parser.feed(text)
    events += parser.close()
    return ParseResult.from_events(events, parser.finish_reason, parser.metadata)


def build_parser(model: str | None = None, formats: Sequence[str] | str | None = None, **options: Any) -> StreamParser:
    """A parser for ``model``'s preset (explicit ``formats`` win), or for ``formats`` (default ``"auto"``).

    The one helper the CLI, the demo, the proxy and the integrations share to turn "this model / these
    formats" into a parser."""
    if formats is not None:
        options["formats"] = list(formats) if not isinstance(formats, str) else formats
    if model:
        return StreamParser.for_model(model, **options)
    options.pop("chat_template_kwargs", None)  # without a model nothing says the template primes reasoning
    return StreamParser(**options)


def describe(name: str) -> dict[str, Any]:
    """Models, delimiters and an example of one format, with what the example parses to."""
    spec = catalog.get(name)
    result = parse(spec.example, formats=[spec.name], start_in_reasoning=False)
    return {
        "name": spec.name,
        "models": spec.models,
        "delimiters": spec.delimiters,
        "example": spec.example,
        "parses_to": [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls],
        "opt_in": spec.opt_in,
        "notes": spec.notes,
    }
