"""What the vLLM tool parser and reasoning parser share: the request's tools, the parser each request gets,
token-id pieces, and the mapping of pieces to vLLM's ``DeltaMessage``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vllm import envs
from vllm.entrypoints.generate.base.protocol import DeltaFunctionCall, DeltaMessage, DeltaToolCall
from vllm.renderers.chat_utils import make_tool_call_id
from vllm.tool_parsers.structural_tag_registry import get_structural_tag_tools, resolve_tool_strictness
from xgrammar import StructuralTag

from streamparse import StreamParser

from .session import CallPiece, Piece
from .structural import Choice, Tool, any_format_tag, format_tag
from .templates import template_options

PREFIX = "streamparse"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


# A call id the model wrote itself (Kimi K2's ``functions.NAME:N``): clients send it back in the next turn,
# where the chat template expects it, so it is kept, as vLLM's Kimi parser does.
NATIVE_ID = re.compile(r"[^\s:]+:\d+")


def new_id(_name: str, parser_id: str = "") -> str:
    """vLLM's call id (``chatcmpl-tool-...``), or the model's own where the format has one."""
    return parser_id if NATIVE_ID.fullmatch(parser_id) else str(make_tool_call_id())


def structural_tag(fmts: tuple[str, ...], model_key: str, request: Any, strict_level: Any) -> Any:
    """The structural tag for ``request``, built from the format's declaration (:mod:`.structural`; several
    formats: one tag for the calls of any of them), on vLLM's terms: the tools it lets a tag cover, each
    tool's strictness for ``strict_level``, a named tool as one forced call; ``None`` where vLLM's own parsers
    get none (no tool, ``auto`` without strict tools)."""
    if not fmts or not request.tools or request.tool_choice == "none" or not envs.VLLM_ENFORCE_STRICT_TOOL_CALLING:
        return None
    tools = get_structural_tag_tools(model_key, request.tools, request.tool_choice)
    resolved = resolve_tool_strictness(tools, request.tool_choice, strict_level) if tools else None
    if not resolved:
        return None
    choice = request.tool_choice
    forced = getattr(getattr(choice, "function", None), "name", None) or (
        getattr(choice, "name", None) if getattr(choice, "type", None) == "function" else None
    )
    specs = [t for t in map(_tool, resolved) if t is not None and (forced is None or t.name == forced)]
    simple: Choice = "forced" if forced is not None else "auto" if choice in (None, "auto") else "required"
    tag = format_tag(fmts[0], specs, simple) if len(fmts) == 1 else any_format_tag(fmts, specs, simple)
    return None if tag is None else StructuralTag.model_validate(tag)


def _tool(tool: Any) -> Tool | None:
    function = getattr(tool, "function", None) or tool  # chat tools wrap a function; Responses tools are one
    name = getattr(function, "name", None)
    if not isinstance(name, str):
        return None
    params = getattr(function, "parameters", None)
    return Tool(name, params if isinstance(params, dict) else None, getattr(function, "strict", None) is True)


# Formats whose argument values are markup text: a schema's property types decide what the text means.
STRING_VALUED = frozenset({"qwen3_coder", "glm45", "minimax", "deepseek_dsml", "seed_oss", "xml_invoke"})


# Markup an engine parser reads besides its format's own, which its tests pin: vLLM's xLAM parser also takes
# the list after Mistral's `[TOOL_CALLS]` and inside Hermes' `<tool_call>`. Gated here (the adapter of that
# format), not in the format: the library's xlam stays the bare list.
ENGINE_FORMATS: dict[str, tuple[str, ...]] = {"xlam": ("xlam", "mistral", "hermes")}
# vLLM's tool parsers of these formats strip the whitespace around calls from the content (the others, Hermes
# first, hand it on): their tool-parser adapters drop the template's separators, as streamparse's default does.
DROP_SEPARATORS = frozenset({"xlam", "gemma4", "glm45", "qwen3_coder", "pythonic"})


def max_tokens(request: Any) -> int | None:
    # Read the fields directly: the `max_tokens` property warns that it is deprecated.
    fields = getattr(request, "__dict__", {})
    limit = fields.get("max_completion_tokens") or fields.get("max_tokens")
    return limit if isinstance(limit, int) else None


def make_parser(
    format_names: tuple[str, ...] | None,
    model: str | None,
    tools: list[dict[str, Any]] | None,
    start_in_reasoning: bool | None = None,
    chat_template_kwargs: dict[str, Any] | None = None,
    special_tokens: dict[int, str] | None = None,
    calls_in_reasoning: str = "promote",
    tokenizer: Any = None,
    tool_parser: bool = False,
    prompt: str | None = None,
) -> StreamParser:
    # Engine policy (docs/integrations.md): calls inside <think> are promoted, and arguments that are not a
    # JSON object are handed on as their JSON text, as vLLM's own parsers do (clients validate them).
    # Content keeps the separator whitespace the engine's own parsers hand on (the engine's contract,
    # which its tests pin); streamparse's own default drops it (exact output, docs/FORMATS.md).
    options: dict[str, Any] = {
        "calls_in_reasoning": calls_in_reasoning,
        "tools": tools,
        "non_object_args": "pass",
        "separators": "keep",
    }
    if special_tokens:
        options["special_tokens"] = special_tokens
    if start_in_reasoning is not None:
        options["start_in_reasoning"] = start_in_reasoning
    elif prompt is not None:  # the rendered prompt's end says where the output starts (Kimi K3's channels)
        options["prompt"] = prompt
    if format_names is None:
        # The request's chat_template_kwargs (enable_thinking...) decide primed reasoning with the preset.
        # An unknown model is parsed with the format derived from its own chat template (zero-config).
        options.update(template_options(tokenizer))
        return StreamParser.for_model(model or "", chat_template_kwargs=chat_template_kwargs, **options)
    if tool_parser and len(format_names) == 1 and format_names[0] in DROP_SEPARATORS:
        options["separators"] = "drop"
    names = ENGINE_FORMATS.get(format_names[0], format_names) if len(format_names) == 1 else format_names
    return StreamParser(list(names), **options)


@dataclass(frozen=True, slots=True)
class Family:
    """A vLLM reasoning parser's family: its formats and its convention for where the output starts."""

    formats: tuple[str, ...]
    primed: bool
    """Whether the output starts inside reasoning when neither the request's ``chat_template_kwargs`` nor
    the prompt's last tokens say (the engine parser's assumption: only ``</think>`` will appear)."""
    switch: str = "enable_thinking"
    """The ``chat_template_kwargs`` key that turns the family's thinking on or off."""
    enders: tuple[str, ...] = ()
    """Markers that end reasoning where they appear, as ``</think>`` does (Kimi's tool section)."""
    empty: str | None = None
    """The non-streaming reasoning when it is empty (DeepSeek R1's parser answers ``""``, the others ``None``)."""


# vLLM's reasoning parser names with a streamparse counterpart, as ``streamparse_<name>`` reasoning parsers.
FAMILIES: dict[str, Family] = {
    "qwen3": Family(("qwen3_coder", "hermes"), True),
    "deepseek_r1": Family(("deepseek_v3",), True, empty=""),
    "deepseek_v3": Family(("deepseek_v31", "deepseek_dsml"), False, "thinking"),
    "glm45": Family(("glm45",), True),
    "minimax_m2": Family(("minimax",), True),
    "ernie45": Family(("hermes",), True),
    "kimi_k2": Family(("kimi_k2",), True, "thinking", enders=("<|tool_calls_section_begin|>",)),
    "olmo3": Family(("pythonic",), True),
}


def thinking_switch(kwargs: dict[str, Any] | None, key: str) -> bool | None:
    """The request's explicit thinking switch (``enable_thinking`` / ``thinking``), ``None`` if absent."""
    for name in (key, "enable_thinking", "thinking"):
        value = (kwargs or {}).get(name)
        if isinstance(value, bool):
            return value
    return None


_TABLES: dict[int, tuple[Any, Any, dict[int, str]]] = {}
_BY_TEXT: dict[int, tuple[dict[int, str], re.Pattern[str], dict[str, int]]] = {}


def special_table(tokenizer: Any, vocab: Any = None) -> dict[int, str]:
    """The tokenizer's added tokens (special or not), ``{id: text}``: computed once per tokenizer and vocabulary.

    The ids are ``vocab``'s (the parser's ``vocab``, what vLLM's parsers and serving loop use) where it has the
    token, so the table and the ids vLLM hands the parser agree."""
    vocab = vocab if isinstance(vocab, dict) else {}
    cached = _TABLES.get(id(tokenizer))
    if cached is not None and cached[0] is tokenizer and cached[1] is vocab:
        return cached[2]
    table: dict[int, str] = {}
    decoder = getattr(tokenizer, "added_tokens_decoder", None)
    if isinstance(decoder, dict):
        for token_id, token in decoder.items():
            text = getattr(token, "content", token)
            if isinstance(text, str) and text:
                found = vocab.get(text, token_id)
                table[int(found) if isinstance(found, int) else int(token_id)] = text
    if len(_TABLES) >= 8:
        _TABLES.clear()
    _TABLES[id(tokenizer)] = (tokenizer, vocab, table)
    return table


def token_pieces(tokenizer: Any, table: dict[int, str], text: str, ids: Sequence[int]) -> list[tuple[int | None, str]]:
    """One delta as ``(token id, text)`` pieces: each added token's text, and the plain text between them.

    A plain run's text is found by decoding it; where that does not line up with the delta (the detokenizer
    held a partial character back), the added token's text is looked up from the current position instead.
    """
    if not ids:
        return by_text(table, text)
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


def by_text(table: dict[int, str], text: str) -> list[tuple[int | None, str]]:
    """A delta that came without token ids (``delta_token_ids=[]``, as some serving paths and tests pass
    it): an added token's text in it counts as that token, as the text parser would read it."""
    if not text:
        return []
    cached = _BY_TEXT.get(id(table))
    if cached is None or cached[0] is not table:
        texts = sorted(set(table.values()), key=len, reverse=True)
        cached = (table, re.compile("|".join(map(re.escape, texts))), {t: i for i, t in table.items()})
        _BY_TEXT.clear() if len(_BY_TEXT) >= 8 else None
        _BY_TEXT[id(table)] = cached
    _, pattern, ids = cached
    out: list[tuple[int | None, str]] = []
    cursor = 0
    for m in pattern.finditer(text):
        if m.start() > cursor:
            out.append((None, text[cursor : m.start()]))
        out.append((ids[m.group()], m.group()))
        cursor = m.end()
    if cursor < len(text):
        out.append((None, text[cursor:]))
    return out


def delta_message(piece: Piece | None) -> DeltaMessage | None:
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


def header_first(piece: Piece | None, held: dict[int, str], final: bool = False) -> Piece | None:
    """A call's id and name in a delta of their own, as vLLM's parsers send them (clients and vLLM's tests read
    the header delta's arguments as empty): a call that starts in this delta and is still open holds its first
    argument fragment, which leads the next delta (or the end of the stream, ``final``). Joined, the fragments
    are unchanged; only the delta that carries them moves by one."""
    if held:
        piece = piece if piece is not None else Piece()
        for index in sorted(held, reverse=True):
            fragment = held.pop(index)
            same = next((c for c in piece.calls if c.index == index and c.name is None), None)
            if same is not None:
                same.arguments = fragment + same.arguments
            else:
                piece.calls.insert(0, CallPiece(index, arguments=fragment))
    if piece is None or final:
        return piece
    for call in piece.calls:
        if call.name is not None and call.arguments and call.index not in piece.ended:
            held[call.index], call.arguments = call.arguments, ""
    return piece


# vLLM's per-request Parser builds its reasoning parser and then, in the same synchronous __init__, its tool
# parser. A streamparse reasoning parser leaves itself here and the streamparse tool parser built right
# after it (with the same tokenizer) takes it: the pair then shares one engine per request.
UNPAIRED: list[Any] = [None]


def served_model(model_config: Any) -> str | None:
    if model_config is None:
        return None
    name = getattr(model_config, "served_model_name", None)
    if isinstance(name, list | tuple):
        name = name[0] if name else None
    return name or getattr(model_config, "model", None)
