"""streamparse as vLLM's tool parser and reasoning parser (vLLM 0.33 interfaces).

Importing this module registers, with vLLM's ``ToolParserManager`` and ``ReasoningParserManager``:

- ``streamparse``: the formats (and primed reasoning) of the served model's preset
  (:meth:`streamparse.StreamParser.for_model`), ``auto`` for an unknown model;
- ``streamparse_<format>`` for every canonical format (``streamparse_hermes``, ...);
- reasoning parsers ``streamparse_<family>`` for vLLM's reasoning parser names with a counterpart
  (``streamparse_qwen3``, ``streamparse_deepseek_r1``, ...: :data:`vllm_base.FAMILIES`).

The ``vllm.general_plugins`` entry point of this distribution calls :func:`register`, so after
``pip install streamparse-llm[vllm]``, ``vllm serve ... --enable-auto-tool-choice --tool-call-parser
streamparse --reasoning-parser streamparse`` works without ``--tool-parser-plugin``.

Paired, both classes run the whole output through one streamparse engine per request (calls inside
``<think>`` are promoted, never lost). The reasoning parser alone follows the engine parser's contract
(:mod:`streamparse.integrations.vllm_reasoning`). See docs/integrations.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import (
    DeltaMessage,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager
from vllm.tool_parsers.tool_strict_level import ToolStrictLevel

from streamparse import StreamParser, formats

from .session import Piece, RequestSession, split, tool_specs
from .structural import has_tag
from .vllm_base import (
    FAMILIES,
    PREFIX,
    STRING_VALUED,
    THINK_CLOSE,
    THINK_OPEN,
    UNPAIRED,
    delta_message,
    header_first,
    make_parser,
    max_tokens,
    new_id,
    special_table,
    structural_tag,
    token_pieces,
)
from .vllm_reasoning import StreamparseReasoningParser

__all__ = ["StreamparseToolParser", "StreamparseReasoningParser", "register", "tool_parser_names"]


def _tool_calls(session: RequestSession) -> list[ToolCall]:
    return [
        ToolCall(
            id=new_id(c.name, c.id), type="function", function=FunctionCall(name=c.name, arguments=c.arguments_json)
        )
        for c in session.accepted
    ]


def _think(model_output: str, reasoning: str) -> str:
    """Reasoning as the markup it was written in (the opener only if the model wrote it)."""
    if not reasoning:
        return ""
    return (THINK_OPEN if THINK_OPEN in model_output else "") + reasoning + THINK_CLOSE


class StreamparseToolParser(ToolParser):
    """vLLM ``ToolParser`` backed by one :class:`~streamparse.StreamParser` per request.

    vLLM builds one tool parser per request (inside its per-request ``Parser``); the streamparse parser is
    created on the first chunk, so nothing is shared between requests. Paired with the streamparse
    reasoning parser of the same request, both use that one parser.
    """

    format_names: tuple[str, ...] | None = None
    """The formats to parse; ``None``: the served model's preset."""
    structural_tag_model = PREFIX
    """vLLM asks for a tag only from parsers that name a model key; the tag itself is built from the format's
    declaration (get_structural_tag), so any key outside xgrammar's builtins serves."""
    engine_based_streaming = True
    """vLLM hands each chunk's text only (no re-sent prefix) and calls :meth:`finish_streaming`."""

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None) -> None:
        super().__init__(tokenizer, tools)
        self._session: RequestSession | None = None
        self._tokens = 0
        self._limit: int | None = None
        self._handoff: tuple[str, RequestSession] | None = None
        self._in_think = False  # streaming without a reasoning parser: a <think> was sent as content
        self._request: Any = None
        self._held: dict[int, str] = {}  # engine index -> argument fragment held back from its header's delta
        self.reasoning_parser: StreamparseReasoningParser | None = None
        peer, UNPAIRED[0] = UNPAIRED[0], None
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
        tools = tool_specs(getattr(request, "tools", None) or None)
        if tools is None and self.tools and STRING_VALUED.intersection(self.format_names or ()):
            # No tools in the request: vLLM's parsers check no names, but those of string-valued formats
            # type the values by the schemas they were built with; so does this one (and checks the names).
            tools = tool_specs(self.tools)
        table = (
            special_table(self.model_tokenizer, self._vocab()) if tokens and self.model_tokenizer is not None else None
        )
        peer = self.reasoning_parser
        primed = peer.primed if peer is not None else None
        model = getattr(request, "model", None) or model or (peer.model if peer is not None else None)
        template = peer.template if peer is not None else getattr(request, "chat_template_kwargs", None)
        prompt = peer.prompt_tail if peer is not None else None
        return make_parser(
            self.format_names,
            model,
            tools,
            primed,
            template,
            table,
            tokenizer=self.model_tokenizer,
            tool_parser=True,
            prompt=prompt,
        )

    def session(self, request: Any = None, model: str | None = None, tokens: bool = True) -> RequestSession:
        """This request's session, created on first use (by this parser or its reasoning parser).

        Streaming gets token ids: markers that are added tokens count only as those ids. A stream whose first
        delta comes without ids (``delta_token_ids=[]``, as some serving paths and tests send) is read as text.
        """
        if self._session is None:
            self._session = RequestSession(self._parser(request, model, tokens=tokens), new_id)
            if request is not None:
                self._limit = max_tokens(request)
        return self._session

    def get_structural_tag(self, request: Any, *, reasoning: bool = False, strict_level: Any = None) -> Any:
        """The structural tag for ``tool_choice`` "required", a named tool, and "auto" with strict tools,
        built from the format's declaration, so constrained decoding writes exactly what this parser reads
        (docs/integrations.md). The multi-format parser uses the served model's format where it is known
        (its preset or chat template), else one tag for the calls of any format it parses."""
        if self.structural_tag_model is None:
            return None
        level = ToolStrictLevel.AUTO if strict_level is None else strict_level
        return structural_tag(self._tag_formats(request), self.structural_tag_model, request, level)

    def _tag_formats(self, request: Any) -> tuple[str, ...]:
        """The format(s) a tag covers: this parser's own, else the one the request's parser prefers when the
        model's format is known (its first: the preset's most likely, or the template's), else all it reads."""
        if self.format_names:
            return self.format_names[:1] if has_tag(self.format_names[0]) else ()
        fmts = self._parser(request).formats
        if fmts != StreamParser().formats and has_tag(fmts[0]):
            return fmts[:1]
        return tuple(f for f in fmts if has_tag(f))

    # -- non-streaming ---------------------------------------------------------------------------------

    def handoff(self, content: str, session: RequestSession) -> None:
        """The paired reasoning parser parsed the whole output (non-streaming): its calls, for this request."""
        self._handoff = (content, session)

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        handoff, self._handoff = self._handoff, None
        if handoff is not None and handoff[0] == (model_output or ""):
            # The reasoning parser of this request already parsed the whole output: its calls, its text.
            session = handoff[1]
            content: str | None = model_output
        else:
            session = RequestSession(self._parser(request))
            pieces = [session.push(model_output), session.finish(self._one_shot_reason(model_output, request))]
            content, reasoning = split(p for p in pieces if p is not None)
            # Without a reasoning parser, reasoning markup is plain content (vLLM's contract): verbatim here.
            content = _think(model_output, reasoning) + content
        calls = _tool_calls(session)
        # Whitespace between calls is no content (vLLM's parsers answer None there too).
        content = content if content and content.strip() else None
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=content)

    def _one_shot_reason(self, model_output: str, request: Any) -> str:
        """vLLM does not tell a tool parser why the output ended: ``length`` if it fills ``max_tokens``."""
        limit = max_tokens(request)
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
        if self._session is not None and (request is not self._request or self._session.parser.closed):
            self._reset()  # one instance, a new request (vLLM builds one per request; callers may reuse one)
        self._request = request
        session = self.session(request, tokens=bool(delta_token_ids) or not delta_text)
        if self._limit is None:
            self._limit = max_tokens(request)
        self._tokens += len(delta_token_ids)
        return delta_message(self._reasoning_as_content(self.push(session, delta_text, delta_token_ids)))

    def _reset(self) -> None:
        self._session, self._tokens, self._limit, self._in_think = None, 0, None, False
        self._held.clear()

    def _reasoning_as_content(self, piece: Piece | None) -> Piece | None:
        """Without a reasoning parser, vLLM streams reasoning markup as content: ``<think>...</think>``."""
        if piece is None or self.reasoning_parser is not None:
            return piece
        text = piece.content
        if piece.reasoning:
            text = ("" if self._in_think else THINK_OPEN) + piece.reasoning + text
            self._in_think = True
        if self._in_think and (piece.content or piece.calls):
            at = len(text) - len(piece.content)
            text, self._in_think = text[:at] + THINK_CLOSE + text[at:], False
        return Piece(text, "", piece.calls, piece.ended)

    def push(self, session: RequestSession, text: str, ids: Sequence[int]) -> Piece | None:
        """One delta into the session: as token pieces when the session takes token ids."""
        if session.parser.takes_tokens and self.model_tokenizer is not None:
            table = special_table(self.model_tokenizer, self._vocab())
            piece = session.push_tokens(token_pieces(self.model_tokenizer, table, text, ids))
        else:
            piece = session.push(text)
        return header_first(piece, self._held)

    def _vocab(self) -> Any:
        try:
            return self.vocab
        except Exception:  # a tokenizer without get_vocab (mocks): no table from it
            return None

    def count_tokens(self, n: int) -> None:
        self._tokens += n

    def finish_streaming(self) -> DeltaMessage | None:
        """End of the request's output: flush held text, finish or reject open calls."""
        if self._session is None:
            return None
        piece = header_first(self._session.finish("length" if self.stopped_for_length else "stop"), self._held, True)
        return delta_message(self._reasoning_as_content(piece))

    @property
    def stopped_for_length(self) -> bool:
        """Whether the output used up ``max_tokens`` (vLLM does not tell a tool parser why it ended)."""
        return self._limit is not None and self._tokens >= self._limit


def _subclass(base: type, fmt: str, **extra: Any) -> type:
    name = "Streamparse" + "".join(part.title() for part in fmt.split("_")) + base.__name__.removeprefix("Streamparse")
    attrs: dict[str, Any] = {"format_names": (fmt,), "__module__": __name__, "__qualname__": name}
    if base is StreamparseToolParser and not has_tag(fmt):
        # A format without a tag (pythonic) keeps vLLM's JSON-schema constraint for required / named calls.
        attrs["structural_tag_model"], attrs["supports_required_and_named"] = None, True
    return type(name, (base,), {**attrs, **extra})


TOOL_PARSERS: dict[str, type[StreamparseToolParser]] = {PREFIX: StreamparseToolParser}
REASONING_PARSERS: dict[str, type[StreamparseReasoningParser]] = {PREFIX: StreamparseReasoningParser}
for _fmt in formats.names():
    TOOL_PARSERS[f"{PREFIX}_{_fmt}"] = _subclass(StreamparseToolParser, _fmt)
    REASONING_PARSERS[f"{PREFIX}_{_fmt}"] = _subclass(StreamparseReasoningParser, _fmt)
for _name, _family in FAMILIES.items():
    # A family name that is also a format's (glm45, kimi_k2) is that format with the family's convention.
    REASONING_PARSERS[f"{PREFIX}_{_name}"] = _subclass(
        StreamparseReasoningParser, _name, format_names=_family.formats, family=_family
    )
for _cls in (*TOOL_PARSERS.values(), *REASONING_PARSERS.values()):
    globals()[_cls.__name__] = _cls


def tool_parser_names() -> list[str]:
    """Every name this module registers (the same for tool and reasoning parsers)."""
    return list(TOOL_PARSERS)


def register() -> None:
    """Register every name with vLLM (idempotent; vLLM's plugin loader may call it in each process).

    Formats registered since (a user's ``formats.register(declaration)``) get their ``streamparse_<name>``
    parsers here too, with the structural tag built from their declaration."""
    for fmt in formats.names():
        if f"{PREFIX}_{fmt}" not in TOOL_PARSERS:
            TOOL_PARSERS[f"{PREFIX}_{fmt}"] = _subclass(StreamparseToolParser, fmt)
            REASONING_PARSERS[f"{PREFIX}_{fmt}"] = _subclass(StreamparseReasoningParser, fmt)
    for name, tool_cls in TOOL_PARSERS.items():
        ToolParserManager.register_module(name=name, module=tool_cls)
    for name, reasoning_cls in REASONING_PARSERS.items():
        ReasoningParserManager.register_module(name=name, module=reasoning_cls)


register()
