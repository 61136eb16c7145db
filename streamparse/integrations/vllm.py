"""streamparse as vLLM's tool parser and reasoning parser (vLLM 0.33 interfaces).

Importing this module registers, with vLLM's ``ToolParserManager`` and ``ReasoningParserManager``:

- ``streamparse``: the formats (and primed reasoning) of the served model's preset
  (:meth:`streamparse.StreamParser.for_model`), ``auto`` for an unknown model;
- ``streamparse_<format>`` for every canonical format (``streamparse_hermes``, ...).

The ``vllm.general_plugins`` entry point of this distribution calls :func:`register`, so after
``pip install streamparse-llm[vllm]``, ``vllm serve ... --enable-auto-tool-choice --tool-call-parser
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

from .session import OneShot, Piece, RequestSession, one_shot
from .templates import template_options

__all__ = ["StreamparseToolParser", "StreamparseReasoningParser", "register", "tool_parser_names"]

PREFIX = "streamparse"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


def _new_id(_name: str) -> str:
    return str(make_tool_call_id())


def _tool_specs(tools: Iterable[Any] | None) -> list[dict[str, Any]] | None:
    """The request's tools for the parser: names, and parameter schemas without ``required``.

    An unknown name is rejected before anything of the call is sent, and the property types drive the
    typing of string-valued formats (qwen3_coder's ``<parameter=...>``). A missing required argument is the
    client's to report, as vLLM's contract has it: a call whose name was streamed is not withdrawn for it.
    """
    if not tools:
        return None
    out: list[dict[str, Any]] = []
    for tool in tools:
        function = getattr(tool, "function", None)
        name = getattr(function, "name", None) or getattr(tool, "name", None)
        if not (isinstance(name, str) and name):
            continue
        params = getattr(function, "parameters", None) if function is not None else getattr(tool, "parameters", None)
        params = {k: v for k, v in params.items() if k != "required"} if isinstance(params, dict) else {}
        out.append({"type": "function", "function": {"name": name, "parameters": params}})
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
    chat_template_kwargs: dict[str, Any] | None = None,
    special_tokens: dict[int, str] | None = None,
    tokenizer: Any = None,
) -> StreamParser:
    # Engine policy (docs/integrations.md): calls inside <think> are promoted, and arguments that are not a
    # JSON object are handed on as their JSON text, as vLLM's own parsers do (clients validate them).
    options: dict[str, Any] = {"calls_in_reasoning": "promote", "tools": tools, "non_object_args": "pass"}
    if special_tokens:
        options["special_tokens"] = special_tokens
    if start_in_reasoning is not None:
        options["start_in_reasoning"] = start_in_reasoning
    if format_names is None:
        # The request's chat_template_kwargs (enable_thinking...) decide primed reasoning with the preset.
        # An unknown model is parsed with the format derived from its own chat template (zero-config).
        options.update(template_options(tokenizer))
        return StreamParser.for_model(model or "", chat_template_kwargs=chat_template_kwargs, **options)
    return StreamParser(list(format_names), **options)


_TABLES: dict[int, tuple[Any, dict[int, str]]] = {}


def special_table(tokenizer: Any) -> dict[int, str]:
    """The tokenizer's added tokens (special or not), ``{id: text}``: computed once per tokenizer."""
    cached = _TABLES.get(id(tokenizer))
    if cached is not None and cached[0] is tokenizer:
        return cached[1]
    table: dict[int, str] = {}
    decoder = getattr(tokenizer, "added_tokens_decoder", None)
    if isinstance(decoder, dict):
        for token_id, token in decoder.items():
            text = getattr(token, "content", token)
            if isinstance(text, str) and text:
                table[int(token_id)] = text
    if len(_TABLES) >= 8:
        _TABLES.clear()
    _TABLES[id(tokenizer)] = (tokenizer, table)
    return table


def token_pieces(tokenizer: Any, table: dict[int, str], text: str, ids: Sequence[int]) -> list[tuple[int | None, str]]:
    """One delta as ``(token id, text)`` pieces: each added token's text, and the plain text between them.

    A plain run's text is found by decoding it; where that does not line up with the delta (the detokenizer
    held a partial character back), the added token's text is looked up from the current position instead.
    """
    marks = [k for k, token in enumerate(ids) if token in table]
    if not marks:
        return [(None, text)]
    out: list[tuple[int | None, str]] = []
    cursor = start = 0
    for k in marks:
        special = table[ids[k]]
        plain = tokenizer.decode(list(ids[start:k])) if k > start else ""
        if text.startswith(plain, cursor) and text.startswith(special, cursor + len(plain)):
            at = cursor + len(plain)
        else:
            at = text.find(special, cursor)
            if at < 0:
                continue  # not in this delta's text (held back by the detokenizer): its text stays plain
        if at > cursor:
            out.append((None, text[cursor:at]))
        out.append((ids[k], special))
        cursor, start = at + len(special), k + 1
    if cursor < len(text):
        out.append((None, text[cursor:]))
    return out


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


def _tool_calls(one: OneShot) -> list[ToolCall]:
    return [
        ToolCall(id=_new_id(c.name), type="function", function=FunctionCall(name=c.name, arguments=c.arguments_json))
        for c in one.calls
    ]


# vLLM's per-request Parser builds its reasoning parser and then, in the same synchronous __init__, its tool
# parser. A streamparse reasoning parser leaves itself here and the streamparse tool parser built right
# after it (with the same tokenizer) takes it: the pair then shares one engine per request.
_UNPAIRED: list[StreamparseReasoningParser | None] = [None]


class StreamparseToolParser(ToolParser):
    """vLLM ``ToolParser`` backed by one :class:`~streamparse.StreamParser` per request.

    vLLM builds one tool parser per request (inside its per-request ``Parser``); the streamparse parser is
    created on the first chunk, so nothing is shared between requests. Paired with the streamparse
    reasoning parser of the same request, both use that one parser.
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
        self._handoff: tuple[str, OneShot] | None = None
        self.reasoning_parser: StreamparseReasoningParser | None = None
        peer, _UNPAIRED[0] = _UNPAIRED[0], None
        if peer is not None and peer.model_tokenizer is tokenizer and peer.tool_parser is None:
            self.reasoning_parser, peer.tool_parser = peer, self

    # -- request -------------------------------------------------------------------------------------

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if request.tools and request.tool_choice != "none":
            # Marker tokens are special tokens in many tokenizers; skipping them before the parser
            # sees the text would hide every call.
            request.skip_special_tokens = False
        return request

    def _parser(self, request: Any, model: str | None = None, tokens: bool = False) -> StreamParser:
        tools = _tool_specs(self.tools or getattr(request, "tools", None))
        table = special_table(self.model_tokenizer) if tokens and self.model_tokenizer is not None else None
        peer = self.reasoning_parser
        primed = peer.primed if peer is not None else None
        model = getattr(request, "model", None) or model or (peer.model if peer is not None else None)
        template = peer.template if peer is not None else getattr(request, "chat_template_kwargs", None)
        return _make_parser(self.format_names, model, tools, primed, template, table, self.model_tokenizer)

    def session(self, request: Any = None, model: str | None = None) -> RequestSession:
        """This request's session, created on first use (by this parser or its reasoning parser)."""
        if self._session is None:
            # Streaming gets token ids: markers that are added tokens count only as those ids.
            self._session = RequestSession(self._parser(request, model, tokens=True), _new_id)
            if request is not None:
                self._max_tokens = _max_tokens(request)
        return self._session

    # -- non-streaming ---------------------------------------------------------------------------------

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        handoff, self._handoff = self._handoff, None
        if handoff is not None and handoff[0] == (model_output or ""):
            # The reasoning parser of this request already parsed the whole output: its calls, its text.
            one = handoff[1]
            content: str | None = model_output
        else:
            one = one_shot(self._parser(request), model_output, self._one_shot_reason(model_output, request))
            # Without the reasoning parser, reasoning has no field of its own here: it stays in the content.
            content = one.reasoning + one.content
        calls = _tool_calls(one)
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
        session = self.session(request)
        if self._max_tokens is None:
            self._max_tokens = _max_tokens(request)
        self._tokens += len(delta_token_ids)
        return _delta(self.push(session, delta_text, delta_token_ids))

    def push(self, session: RequestSession, text: str, ids: Sequence[int]) -> Piece | None:
        """One delta into the session: as token pieces when the session takes token ids."""
        if session.parser.takes_tokens and self.model_tokenizer is not None:
            table = special_table(self.model_tokenizer)
            return session.push_tokens(token_pieces(self.model_tokenizer, table, text, ids))
        return session.push(text)

    def count_tokens(self, n: int) -> None:
        self._tokens += n

    def finish_streaming(self) -> DeltaMessage | None:
        """End of the request's output: flush held text, finish or reject open calls."""
        if self._session is None:
            return None
        return _delta(self._session.finish("length" if self.stopped_for_length else "stop"))

    @property
    def stopped_for_length(self) -> bool:
        """Whether the output used up ``max_tokens`` (vLLM does not tell a tool parser why it ended)."""
        return self._max_tokens is not None and self._tokens >= self._max_tokens


def _served_model(model_config: Any) -> str | None:
    if model_config is None:
        return None
    name = getattr(model_config, "served_model_name", None)
    if isinstance(name, list | tuple):
        name = name[0] if name else None
    return name or getattr(model_config, "model", None)


class StreamparseReasoningParser(ReasoningParser):
    """vLLM ``ReasoningParser`` running the same engine as :class:`StreamparseToolParser`.

    It never reports the end of reasoning to vLLM's streaming loop: the whole output stays with the one
    engine of the request (shared with the paired tool parser), which emits reasoning, content and tool
    calls, so a call written inside ``<think>`` is still a call. Token-level answers
    (``is_reasoning_end``, ``extract_content_ids``) follow the ``<think>``/``</think>`` tokens, for vLLM's
    structured-output gating.
    """

    format_names: tuple[str, ...] | None = None
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self.model = _served_model(kwargs.get("model_config"))
        self.template: dict[str, Any] | None = kwargs.get("chat_template_kwargs")
        # enable_thinking=False: the template closed (or never opened) the reasoning.
        self.primed: bool | None = False if (self.template or {}).get("enable_thinking") is False else None
        vocab = tokenizer.get_vocab() if tokenizer is not None else {}
        self._open_id = vocab.get(THINK_OPEN)
        self._close_id = vocab.get(THINK_CLOSE)
        self._session: RequestSession | None = None
        self._in_reasoning = False
        self.tool_parser: StreamparseToolParser | None = None
        _UNPAIRED[0] = self

    @property
    def reasoning_start_str(self) -> str | None:
        return THINK_OPEN

    @property
    def reasoning_end_str(self) -> str | None:
        return THINK_CLOSE

    def _parser(self, tools: Any = None) -> StreamParser:
        return _make_parser(
            self.format_names, self.model, _tool_specs(tools), self.primed, self.template, None, self.model_tokenizer
        )

    def _stream(self) -> RequestSession:
        if self.tool_parser is not None:
            return self.tool_parser.session(model=self.model)
        if self._session is None:
            self._session = RequestSession(self._parser(), _new_id)
        return self._session

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
        # A chat template that ends the prompt inside <think> primes reasoning (reasoning rule, docs/FORMATS.md).
        last = self._last_marker(prompt_token_ids[-4:])
        if last is not None and last == self._open_id:
            self.primed = True
            self._in_reasoning = True

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return False  # the engine keeps the whole output; see the class docstring

    # -- text ------------------------------------------------------------------------------------------

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        """The reasoning and the visible text; the calls go to the paired tool parser, which runs next."""
        tools = _tool_specs(getattr(request, "tools", None))
        model = getattr(request, "model", None) or self.model
        parser = _make_parser(self.format_names, model, tools, self.primed, self.template, None, self.model_tokenizer)
        one = one_shot(parser, model_output)
        if self.tool_parser is not None:
            self.tool_parser._handoff = (one.content, one)
            return (one.reasoning or None), (one.content or None)
        return (one.reasoning or None), (_with_markup(one, model_output) or None)

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> DeltaMessage | None:
        if self.tool_parser is not None:
            self.tool_parser.count_tokens(len(delta_token_ids))
            return _delta(self.tool_parser.push(self._stream(), delta_text, delta_token_ids))
        return _delta(self._stream().push(delta_text))

    def finish_streaming(self) -> DeltaMessage | None:
        if self.tool_parser is not None:
            return None  # the tool parser's finish_streaming closes the shared session
        if self._session is None:
            return None
        return _delta(self._session.finish())


def _with_markup(one: OneShot, model_output: str) -> str:
    """Unpaired (another tool parser runs next): the text with each call's markup, for that parser to find."""
    return one.content + "".join(c.raw for c in one.calls)


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
