"""The public sans-I/O parser: ``StreamParser.feed/close/reset`` and the one-shot ``parse``."""

from __future__ import annotations

import codecs
import logging
from typing import Any

from .config import Config
from .engine import Engine
from .events import Event, ParseResult
from .stats import ParserStats

log = logging.getLogger("streamparse")

__all__ = ["StreamParser", "parse", "ParserClosedError"]


class ParserClosedError(RuntimeError):
    """``feed()`` or ``close()`` was called on a parser that was already closed (call ``reset()``)."""


class StreamParser:
    """Push model output in, get events out. No I/O, no threads, no event loop.

    ``feed(chunk)`` accepts ``str`` or ``bytes`` (decoded incrementally as UTF-8, so a character split
    across chunks is fine) and returns the events that became certain; ``close()`` ends the stream.
    """

    def __init__(
        self,
        formats: Any = "auto",
        *,
        tools: Any = None,
        start_in_reasoning: bool | None = None,
        calls_in_reasoning: str = "ignore",
        fallback: str | None = None,
        max_call_chars: int | None = None,
        id_prefix: str = "call_",
    ) -> None:
        self._config = Config(
            formats,
            tools=tools,
            start_in_reasoning=start_in_reasoning,
            calls_in_reasoning=calls_in_reasoning,
            fallback=fallback,
            max_call_chars=max_call_chars,
            id_prefix=id_prefix,
        )
        self._engine = Engine(self._config)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._closed = False
        self.preset: Any = None

    @classmethod
    def for_model(cls, model_id: str, **options: Any) -> StreamParser:
        """A parser preset for a model id (Hugging Face, Ollama, OpenRouter, LM Studio spellings).

        Explicit ``options`` win over the preset. Unknown models fall back to ``formats="auto"``.
        """
        from .presets import preset_for

        preset = preset_for(model_id)
        options.setdefault("formats", preset.formats if preset.matched else "auto")
        options.setdefault("start_in_reasoning", preset.start_in_reasoning)
        parser = cls(**options)
        parser.preset = preset
        return parser

    # -- the contract ------------------------------------------------------------------------------

    def feed(self, chunk: str | bytes | bytearray | memoryview) -> list[Event]:
        """Consume the next piece of model output; return the events it made certain."""
        if type(chunk) is str and not self._closed:
            return self._engine.feed(chunk)
        if self._closed:
            raise ParserClosedError("feed() after close(): call reset() to parse a new stream")
        if isinstance(chunk, str):
            text = chunk
        elif isinstance(chunk, (bytes, bytearray, memoryview)):
            self._engine.bytes_in += len(chunk)
            text = self._decoder.decode(bytes(chunk))
        else:
            raise TypeError(f"feed() takes str or bytes, not {type(chunk).__name__}")
        return self._engine.feed(text)

    def close(self) -> list[Event]:
        """End of stream: flush held text, finish or reject open calls (R9)."""
        if self._closed:
            raise ParserClosedError("close() was already called: call reset() to parse a new stream")
        self._closed = True
        tail = self._decoder.decode(b"", final=True)
        events = self._engine.feed(tail) if tail else []
        return events + self._engine.close()

    def reset(self) -> None:
        """Return to the initial state for a new stream (same configuration)."""
        self._engine.reset()
        self._decoder.reset()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

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
    def formats(self) -> tuple[str, ...]:
        return self._config.formats

    @property
    def tools(self) -> Any:
        return self._config.tools


def parse(text: str | bytes, formats: Any = "auto", **options: Any) -> ParseResult:
    """One-shot parse; the same engine and the same result as any chunking of ``text``."""
    parser = StreamParser(formats, **options)
    events = parser.feed(text)
    events += parser.close()
    return ParseResult.from_events(events, parser.finish_reason)
