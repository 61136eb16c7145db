"""The fixed set of reasons a candidate call is rejected (``ToolCallRejected.reason``)."""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Why a candidate call was not emitted as ``ToolCallEnd``.

    The values are plain strings so ``event.reason == "truncated"`` works.
    """

    TRUNCATED = "truncated"  # the stream ended inside the call
    MALFORMED = "malformed"  # the markup or its arguments could not be parsed (even after repair rules repairs)
    UNKNOWN_TOOL = "unknown_tool"  # tools were given and the name is not among them
    SCHEMA_VIOLATION = "schema_violation"  # the arguments do not satisfy the tool's JSON Schema
    TOO_LARGE = "too_large"  # the call grew past ``max_call_chars``
    AMBIGUOUS = "ambiguous"  # a gated fallback found several candidates, or no intent marker
    IN_REASONING = "in_reasoning"  # reserved: a promoted call from reasoning that was dropped


REASONS: tuple[str, ...] = tuple(r.value for r in Reason)
