"""``parser.stats``: counters a parser keeps about its stream, for telemetry and debugging.

A pydantic model so it serialises cleanly (``stats.model_dump()``, ``model_dump_json()``). The engine
updates it on hot paths, so the helpers are plain arithmetic: assignment is not validated, and
``bytes_in``/``chars_in`` are bumped directly as int attributes.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ParserStats"]


class ParserStats(BaseModel):
    """Counters for one stream (``reset()`` zeroes them for the next)."""

    model_config = ConfigDict(validate_assignment=False, extra="forbid")

    calls_accepted: int = 0
    rejections: dict[str, int] = Field(default_factory=dict)  # by reason (``rejections.Reason`` values)
    repairs: dict[str, int] = Field(default_factory=dict)  # by repair kind (repair rules), one per repaired call
    formats_seen: dict[str, int] = Field(default_factory=dict)  # accepted + rejected calls per format
    fallback_calls: int = 0  # accepted calls found by an unmarked fallback format (bare JSON, pythonic)
    largest_holdback: int = 0  # most characters ever held back as a possible marker prefix
    bytes_in: int = 0
    chars_in: int = 0

    def record_call(self, format: str, repairs: Iterable[str] = (), fallback: bool = False) -> None:
        """Count one accepted call of ``format``, with the repairs applied to it."""
        # What pydantic's assignment does here (no validation: ``validate_assignment=False``), without its
        # ``__setattr__`` dispatch, and the fields read from ``__dict__`` (where pydantic keeps them):
        # once per accepted call.
        fields = self.__dict__
        fields["calls_accepted"] += 1
        self.__pydantic_fields_set__.add("calls_accepted")
        seen = fields["formats_seen"]
        seen[format] = seen.get(format, 0) + 1
        if repairs:  # (most calls need none)
            counts = fields["repairs"]
            for kind in repairs:
                kind = str(kind)
                counts[kind] = counts.get(kind, 0) + 1
        if fallback:
            self.fallback_calls += 1

    def record_rejection(self, reason: str, format: str | None = None) -> None:
        """Count one rejected candidate; ``format`` is None when no format was identified."""
        reason = str(reason)  # a ``Reason`` member and its value must share one key
        self.rejections[reason] = self.rejections.get(reason, 0) + 1
        if format is not None:
            self.formats_seen[format] = self.formats_seen.get(format, 0) + 1

    def note_holdback(self, n: int) -> None:
        if n > self.largest_holdback:
            self.largest_holdback = n

    @property
    def rejected_total(self) -> int:
        return sum(self.rejections.values())

    def reset(self) -> None:
        self.calls_accepted = 0
        self.rejections = {}
        self.repairs = {}
        self.formats_seen = {}
        self.fallback_calls = 0
        self.largest_holdback = 0
        self.bytes_in = 0
        self.chars_in = 0
