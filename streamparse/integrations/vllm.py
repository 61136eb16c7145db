"""streamparse as vLLM's tool parser and reasoning parser (vLLM 0.33 interfaces).

Importing this module registers, with vLLM's ``ToolParserManager`` and ``ReasoningParserManager``:

- ``streamparse``: the formats (and primed reasoning) of the served model's preset
  (:meth:`streamparse.StreamParser.for_model`), ``auto`` for an unknown model;
- ``streamparse_<format>`` for every canonical format (``streamparse_hermes``, ...).

The ``vllm.general_plugins`` entry point of this distribution calls :func:`register`, so after
``pip install streamparse[vllm]``, ``vllm serve ... --enable-auto-tool-choice --tool-call-parser
streamparse --reasoning-parser streamparse`` works without ``--tool-parser-plugin``.

Both classes run the whole output through one streamparse engine per request (calls inside
``<think>`` are promoted, never lost): whichever of them vLLM hands the text to emits reasoning,
content and tool calls. See docs/integrations.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser, ReasoningParserManager
from vllm.renderers.chat_utils import make_tool_call_id
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

from streamparse import StreamParser, formats
from streamparse.events import Event, TextDelta, ToolCallEnd, ToolCallRejected

from .session import Piece, RequestSession

__all__ = ["StreamparseToolParser", "StreamparseReasoningParser", "register", "tool_parser_names"]

PREFIX = "streamparse"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


def _new_id(_name: str) -> str:
    return str(make_tool_call_id())


def _tool_names(tools: Iterable[Any] | None) -> list[dict[str, Any]] | None:
    """The request's tools reduced to their names.

    An unknown name is rejected before anything of the call is sent; the arguments' schema is left
    to the client, as vLLM's contract has it (clients validate ``arguments`` themselves).
    """
    if not tools:
        return None
    out: list[dict[str, Any]] = []
    for tool in tools:
        function = getattr(tool, "function", None)
        name = getattr(function, "name", None) or getattr(tool, "name", None)
        if isinstance(name, str) and name:
            out.append({"type": "function", "function": {"name": name, "parameters": {}}})
    return out or None


def _max_tokens(request: Any) -> int | None:
    # Read the fields directly: the `max_tokens` property warns that it is deprecated.
    fields = getattr(request, "__dict__", {})
    limit = fields.get("max_completion_tokens") or fields.get("max_tokens")
    return limit if isinstance(limit, int) else None


def _make_parser(
    format_names: tuple[str, ...] | None,
    model: str | None,
    tools: list[dict[str, Any]] | None,
    start_in_reasoning: bool | None = None,
) -> StreamParser:
    # Engine policy (docs/integrations.md): calls inside <think> are promoted, and arguments that are not a
    # JSON object are handed on as their JSON text, as vLLM's own parsers do (clients validate them).
    options: dict[str, Any] = {"calls_in_reasoning": "promote", "tools": tools, "non_object_args": "pass"}
    if start_in_reasoning is not None:
        options["start_in_reasoning"] = start_in_reasoning
    if format_names is None:
        return StreamParser.for_model(model or "", **options)
    return StreamParser(list(format_names), **options)


def _delta(piece: Piece | None) -> DeltaMessage | None:
    """A piece as vLLM's DeltaMessage; ``None`` (no message at all) when nothing became certain."""
    if piece is None:
        return None
    calls = [
        DeltaToolCall(
            index=c.index,
            id=c.id,
            type="function" if c.name is not None else None,
            function=DeltaFunctionCall(name=c.name, arguments=c.arguments or None),
        )
        for c in piece.calls
    ]
    return DeltaMessage(content=piece.content or None, reasoning=piece.reasoning or None, tool_calls=calls)


class StreamparseToolParser(ToolParser):
    """vLLM ``ToolParser`` backed by one :class:`~streamparse.StreamParser` per request.

    vLLM builds one tool parser per request (inside its per-request ``Parser``); the streamparse
    parser is created on the first chunk, so nothing is shared between requests.
    """

    format_names: tuple[str, ...] | None = None
    """The formats to parse; ``None``: the served model's preset."""
    engine_based_streaming = True
    """vLLM hands each chunk's text only (no re-sent prefix) and calls :meth:`finish_streaming`."""

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None) -> None:
        super().__init__(tokenizer, tools)
        self._session: RequestSession | None = None
        self._tokens = 0
        self._max_tokens: int | None = None

    # -- request -------------------------------------------------------------------------------------

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if request.tools and request.tool_choice != "none":
            # Marker tokens are special tokens in many tokenizers; skipping them before the parser
            # sees the text would hide every call.
            request.skip_special_tokens = False
        return request

    def _parser(self, request: Any) -> StreamParser:
        tools = _tool_names(self.tools or getattr(request, "tools", None))
        return _make_parser(self.format_names, getattr(request, "model", None), tools)

    # -- non-streaming ---------------------------------------------------------------------------------

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        session = RequestSession(self._parser(request))
        pieces = [session.push(model_output), session.finish(self._one_shot_reason(model_output, request))]
        content = "".join(p.reasoning + p.content for p in pieces if p)
        calls = [
            ToolCall(
                id=_new_id(c.name),
                type="function",
                function=FunctionCall(name=c.name, arguments=c.arguments_json),
            )
            for c in session.accepted
        ]
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=content or None)

    def _one_shot_reason(self, model_output: str, request: Any) -> str:
        """vLLM does not tell a tool parser why the output ended: ``length`` if it fills ``max_tokens``."""
        limit = _max_tokens(request)
        if limit is None or self.model_tokenizer is None:
            return "stop"
        return "length" if len(self.model_tokenizer.encode(model_output, add_special_tokens=False)) >= limit else "stop"

    # -- streaming -------------------------------------------------------------------------------------

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> DeltaMessage | None:
        if self._session is None:
            self._session = RequestSession(self._parser(request), _new_id)
            self._max_tokens = _max_tokens(request)
        self._tokens += len(delta_token_ids)
        return _delta(self._session.push(delta_text))

    def finish_streaming(self) -> DeltaMessage | None:
        """End of the request's output: flush held text, finish or reject open calls."""
        if self._session is None:
            return None
        return _delta(self._session.finish("length" if self.stopped_for_length else "stop"))

    @property
    def stopped_for_length(self) -> bool:
        """Whether the output used up ``max_tokens`` (vLLM does not tell a tool parser why it ended)."""
        return self._max_tokens is not None and self._tokens >= self._max_tokens


def _special_id(vocab: dict[str, int], token: str) -> int | None:
    return vocab.get(token)


def _served_model(model_config: Any) -> str | None:
    if model_config is None:
        return None
    name = getattr(model_config, "served_model_name", None)
    if isinstance(name, list | tuple):
        name = name[0] if name else None
    return name or getattr(model_config, "model", None)


class StreamparseReasoningParser(ReasoningParser):
    """vLLM ``ReasoningParser`` running the same engine as :class:`StreamparseToolParser`.

    It never reports the end of reasoning to vLLM's streaming loop: the whole output stays with this
    one engine, which emits reasoning, content and tool calls (so a call written inside ``<think>``
    is still a call). Token-level answers (``is_reasoning_end``, ``extract_content_ids``) follow the
    ``<think>``/``</think>`` tokens, for vLLM's structured-output gating.
    """

    format_names: tuple[str, ...] | None = None
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._model = _served_model(kwargs.get("model_config"))
        template = kwargs.get("chat_template_kwargs") or {}
        self._primed: bool | None = False if template.get("enable_thinking") is False else None
        vocab = tokenizer.get_vocab() if tokenizer is not None else {}
        self._open_id = _special_id(vocab, THINK_OPEN)
        self._close_id = _special_id(vocab, THINK_CLOSE)
        self._session: RequestSession | None = None
        self._in_reasoning = False

    @property
    def reasoning_start_str(self) -> str | None:
        return THINK_OPEN

    @property
    def reasoning_end_str(self) -> str | None:
        return THINK_CLOSE

    def _parser(self) -> StreamParser:
        return _make_parser(self.format_names, self._model, None, self._primed)

    # -- token-level gating ----------------------------------------------------------------------------

    def _last_marker(self, ids: Sequence[int]) -> int | None:
        for token in reversed(ids):
            if token == self._close_id or token == self._open_id:
                return token
        return None

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        last = self._last_marker(input_ids)
        if last is None:
            return not self._in_reasoning
        return last == self._close_id

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Iterable[int]) -> bool:
        # Only the new tokens are looked at: a per-step rescan of the output would be quadratic.
        last = self._last_marker(list(delta_ids))
        if last is not None:
            self._in_reasoning = last == self._open_id
        return not self._in_reasoning

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        for i in range(len(input_ids) - 1, -1, -1):
            if input_ids[i] == self._close_id:
                return input_ids[i + 1 :]
        return [] if self._in_reasoning else input_ids

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        # A chat template that ends the prompt inside <think> primes reasoning (the reasoning rule of docs/FORMATS.md).
        last = self._last_marker(prompt_token_ids[-4:])
        if last is not None and last == self._open_id:
            self._primed = True
            self._in_reasoning = True

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return False  # the engine keeps the whole output; see the class docstring

    # -- text ------------------------------------------------------------------------------------------

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        """Reasoning, and the rest with each call's markup kept for the tool parser that runs next."""
        parser = self._parser()
        events: list[Event] = parser.feed(model_output) + parser.close()
        reasoning: list[str] = []
        rest: list[str] = []
        for ev in events:
            if isinstance(ev, TextDelta):
                rest.append(ev.text)
            elif isinstance(ev, ToolCallEnd):
                rest.append(ev.call.raw)
            elif isinstance(ev, ToolCallRejected):
                rest.append(ev.raw)
            elif ev.type == "reasoning":
                reasoning.append(ev.text)  # type: ignore[union-attr]
        return ("".join(reasoning) or None), ("".join(rest) or None)

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        if self._session is None:
            self._session = RequestSession(self._parser(), _new_id)
        return _delta(self._session.push(delta_text))

    def finish_streaming(self) -> DeltaMessage | None:
        if self._session is None:
            return None
        return _delta(self._session.finish())


def _subclass(base: type, fmt: str) -> type:
    name = "Streamparse" + "".join(part.title() for part in fmt.split("_")) + base.__name__.removeprefix("Streamparse")
    return type(name, (base,), {"format_names": (fmt,), "__module__": __name__, "__qualname__": name})


TOOL_PARSERS: dict[str, type[StreamparseToolParser]] = {PREFIX: StreamparseToolParser}
REASONING_PARSERS: dict[str, type[StreamparseReasoningParser]] = {PREFIX: StreamparseReasoningParser}
for _fmt in formats.names():
    TOOL_PARSERS[f"{PREFIX}_{_fmt}"] = _subclass(StreamparseToolParser, _fmt)
    REASONING_PARSERS[f"{PREFIX}_{_fmt}"] = _subclass(StreamparseReasoningParser, _fmt)
    globals()[TOOL_PARSERS[f"{PREFIX}_{_fmt}"].__name__] = TOOL_PARSERS[f"{PREFIX}_{_fmt}"]
    globals()[REASONING_PARSERS[f"{PREFIX}_{_fmt}"].__name__] = REASONING_PARSERS[f"{PREFIX}_{_fmt}"]


def tool_parser_names() -> list[str]:
    """Every name this module registers (the same for tool and reasoning parsers)."""
    return list(TOOL_PARSERS)


def register() -> None:
    """Register every name with vLLM (idempotent; vLLM's plugin loader may call it in each process)."""
    for name, tool_cls in TOOL_PARSERS.items():
        ToolParserManager.register_module(name=name, module=tool_cls)
    for name, reasoning_cls in REASONING_PARSERS.items():
        ReasoningParserManager.register_module(name=name, module=reasoning_cls)


register()
