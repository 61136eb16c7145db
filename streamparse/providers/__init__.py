"""Provider streams in and out: read OpenAI-compatible, Ollama and Anthropic streams into streamparse
events; write events back out as OpenAI chunks or Anthropic Messages events.

Readers (``OpenAISSEReader``, ``OllamaNDJSONReader``, ``AnthropicSSEReader``) are push objects that
emit :class:`ProviderDelta` / :class:`ProviderMeta` / :class:`ProviderDone`; the ``*_events`` functions
join a reader to a :class:`~streamparse.StreamParser` (sync generators; ``a*`` names are the async ones).
"""

from __future__ import annotations

from .anthropic import AnthropicSSEReader, aanthropic_sse_events, anthropic_sse_events
from .anthropic_writer import AnthropicEventWriter, to_sse_event
from .base import (
    ProviderCall,
    ProviderDelta,
    ProviderDone,
    ProviderError,
    ProviderItem,
    ProviderMeta,
    ProviderStream,
    error_from_payload,
)
from .ollama import OllamaNDJSONReader, aollama_ndjson_events, ollama_ndjson_events
from .openai import OpenAISSEReader, aopenai_sse_events, openai_sse_events
from .openai_writer import SSE_DONE, OpenAIChunkWriter, completion_from_result, new_completion_id, to_sse
from .sse import SSEDecoder, SSEEvent, SSELimitError, encode_sse

__all__ = [
    "SSE_DONE",
    "AnthropicEventWriter",
    "AnthropicSSEReader",
    "OllamaNDJSONReader",
    "OpenAIChunkWriter",
    "OpenAISSEReader",
    "ProviderCall",
    "ProviderDelta",
    "ProviderDone",
    "ProviderError",
    "ProviderItem",
    "ProviderMeta",
    "ProviderStream",
    "SSEDecoder",
    "SSEEvent",
    "SSELimitError",
    "aanthropic_sse_events",
    "anthropic_sse_events",
    "aollama_ndjson_events",
    "aopenai_sse_events",
    "completion_from_result",
    "encode_sse",
    "error_from_payload",
    "new_completion_id",
    "ollama_ndjson_events",
    "openai_sse_events",
    "to_sse",
    "to_sse_event",
]
