"""The public sans-I/O parser: ``StreamParser.feed/close/reset`` and the one-shot ``parse``."""

from __future__ import annotations

import logging
from typing import Any

from .config import Config
from .engine import Engine
from .errors import ParserClosedError
from .events import Event, ParseResult
from .stats import ParserStats

log = logging.getLogger("streamparse")

__all__ = ["StreamParser", "parse", "ParserClosedError"]


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
        # The hot path: feed() is the engine's own method (one call per chunk, no wrapper).
        self.feed = self._engine.feed  # type: ignore[method-assign]
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
        """Consume the next piece of model output; return the events it made certain.

        Raises ``ParserClosedError`` after ``close()`` and ``TypeError`` for anything but str/bytes.
        (Replaced per instance by the engine's method; this is its documentation.)
        """
        return self._engine.feed(chunk)  # pragma: no cover

    def close(self) -> list[Event]:
        """End of stream: flush held text, finish or reject open calls (R9)."""
        return self._engine.close()

    def reset(self) -> None:
        """Return to the initial state for a new stream (same configuration)."""
        self._engine.reset()

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
        """Stream-level facts the output stated, e.g. ``{"needsMoreWork": True}`` from a seed 004 envelope."""
        return self._engine.metadata

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
    return ParseResult.from_events(events, parser.finish_reason, parser.metadata)
