"""A parser configuration compiled once: the marker tables of every scope, tools and options.

Tables depend only on the active formats and the reasoning policy, so they are cached and shared by
every parser built with the same configuration (a server builds one parser per request).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

from . import formats as catalog
from .core.engine import Engine, Handler, MarkerTable, ScanState, State
from .formats import unmarked
from .formats.base import DeclaredReasoning, Wiring
from .formats.declaration_base import check_marker
from .formats.openers import unparsed_block
from .formats.pyish import pythonic_after_prose
from .states.declared_text import open_declared_reasoning, text_separators
from .states.gates import FALLBACK_MODES, START_FALLBACK
from .states.separators import SEPARATORS, Separators, SeparatorsOption
from .states.start import StartState, intent_handlers
from .states.text import (
    CONTROL_TOKENS,
    ORPHAN_CLOSERS,
    REASONING,
    REASONING_DROPPED,
    START_ONLY_REASONING,
    backticks,
    drop,
    end_of_output_only,
    end_primed_reasoning,
    open_reasoning,
    orphan_closer,
    pop_scope,
    repeated_opener,
    tildes,
    vanish,
    written_opener,
)
from .stats import ParserStats
from .tools import ToolSet

# The public string options, as types (``StreamParser`` takes them).
FormatsOption = Sequence[str] | str | None  # "auto" (or None), one name, or a list of names
CallsInReasoning = Literal["ignore", "promote"]
Fallback = Literal["start", "off", "gated"] | None
# "lenient": a JSON string where the tool's schema admits no string is converted when the text has one
# meaning ("true" -> true for a boolean, "5" -> 5 for an integer), recorded as the repair lenient_types;
# "strict": JSON arguments are validated exactly as written.
Coercion = Literal["lenient", "strict"]
CALLS_IN_REASONING: tuple[CallsInReasoning, ...] = ("ignore", "promote")
PROMPT_TAIL = 512  # the end of a rendered prompt that can decide where its output starts
COERCIONS: tuple[Coercion, ...] = ("lenient", "strict")
# Arguments that are not a JSON object: rejected (the default), or passed on as their JSON text (the engine
# adapters' policy: vLLM's and SGLang's clients validate `arguments` themselves).
NonObjectArgs = Literal["reject", "pass"]
NON_OBJECT_ARGS: tuple[NonObjectArgs, ...] = ("reject", "pass")


# Harmony's message framing is its own reasoning channel, not a call opener that could end primed reasoning.
_REASONING_CHANNELS = frozenset({"<|start|>", "<|channel|>"})
# Call openers that end even a <think> block the model wrote, where their format is active: special tokens
# prose never spells, after which both engines' parsers read calls (Kimi K2 / K2.5: vLLM's kimi_k2 and
# kimi_k25, SGLang's KimiK2Detector tool_start_token).
_ENDS_WRITTEN_REASONING = frozenset({"<|tool_calls_section_begin|>"})


class Tables:
    """The compiled scopes of one (formats, policy) combination."""

    def __init__(
        self,
        active: tuple[str, ...],
        promote: bool,
        explicit: bool = False,
        fallback: str | None = None,
        tools: bool = False,
        control_tokens: tuple[str, ...] = (),
    ) -> None:
        w = Wiring(active=frozenset(active), explicit=explicit)
        for name in active:
            catalog.CATALOG[name].wire(w)
        unmarked.wire_bare(w)  # bare llama3_json / tool_request form c: their specs live in formats/marked.py
        self.wiring = w
        # Start handlers (start rule): named unmarked formats always; otherwise per the fallback policy (gates.py).
        self.start: tuple[Handler, ...] = tuple(w.start) if explicit or fallback in (None, "start") else ()
        gated: tuple[Handler, ...] = ()
        if fallback == "gated":
            gated = tuple(w.start) if not explicit else _unnamed_start_handlers(active)
        calls = {k: list(v) for k, v in w.markers.items()}
        # Reasoning scopes: the closer, control tokens, and (promote) the call openers.
        self.reasoning: dict[str, MarkerTable] = {}
        declared = [r for r in w.reasoning if r.open not in REASONING]  # the built-in table wins
        separator = text_separators(tuple(w.separators))
        closers = set(REASONING.values()) | {r.close for r in declared if r.open is not None}
        for closer in closers:
            handlers: dict[str, list[Handler]] = {t: [drop] for t in (*CONTROL_TOKENS, *w.dropped)}
            for t in w.separators:
                handlers.setdefault(t, []).append(separator)
            for t in REASONING_DROPPED:
                handlers[t] = [drop]
            if promote:
                for k, v in calls.items():
                    handlers.setdefault(k, []).extend(v)
            elif closer == "</think>":
                for k in _ENDS_WRITTEN_REASONING & calls.keys():
                    handlers.setdefault(k, []).append(end_primed_reasoning)
            handlers.setdefault(closer, []).insert(0, pop_scope)
            _last_resort(handlers, control_tokens)
            if closer == "</think>":
                handlers.setdefault("<think>", []).append(repeated_opener)  # a primed output that repeats the opener
            self.reasoning[closer] = MarkerTable(handlers, w.ns if promote else None, w.anchors)
        # Primed reasoning (the prompt opened <think>): as reasoning, but a native call opener of an active
        # format ends it (never a lost call), and a repeated <think> makes it an ordinary block.
        primed = {k: list(v) for k, v in self.reasoning["</think>"].handlers.items()}
        primed["<think>"] = [written_opener(self.reasoning["</think>"])]
        for opener, closer in REASONING.items():  # the prompt may have opened any family's reasoning
            primed.setdefault(closer, []).insert(0, pop_scope)
            # ... and the model may write that family's opener anyway (PLaMo 3, openPangu's [unused16])
            primed.setdefault(opener, [written_opener(self.reasoning[closer])])
        primed_ns: dict[str, list[Handler]] = {}
        if not promote:
            for k in calls:
                if k not in _REASONING_CHANNELS:
                    primed.setdefault(k, []).append(end_primed_reasoning)
            primed_ns = {k: [end_primed_reasoning] for k in w.ns}
        text: dict[str, list[Handler]] = {k: list(v) for k, v in calls.items()}
        _declared_scopes(w, declared, self.reasoning, primed, text)
        _last_resort(text, control_tokens)
        _last_resort(primed, control_tokens)
        self.primed = MarkerTable(primed, primed_ns if not promote else w.ns, w.anchors)
        if tools and "pythonic" in active:
            # A pythonic list after prose, for declared tools only: without tools `[` is never a marker
            # (the commonest character of markdown stays on the fast path).
            text.setdefault("[", []).append(pythonic_after_prose)
        if tools and explicit and "llama3_json" in active:
            text.setdefault("{", []).append(unmarked.json_after_prose)  # named only: `{` is common in prose
        for opener, closer in catalog.BLOCK_CLOSERS.items():
            fmt = catalog.owner(opener, active) if opener in text else None
            if fmt is not None:
                text[opener].append(unparsed_block(fmt, closer))  # last: after every format's check
        for t in CONTROL_TOKENS:
            text.setdefault(t, []).append(drop)
        text.setdefault("</s>", []).append(end_of_output_only)
        # A format may let a built-in opener open anywhere (GLM's interleaved <think> where glm45 is named).
        anywhere = {r.open for r in w.reasoning if not r.start_only}
        for opener in REASONING:
            start_only = opener in START_ONLY_REASONING and opener not in anywhere
            text.setdefault(opener, []).insert(0, open_reasoning(self.reasoning, start_only))
        for closer in ORPHAN_CLOSERS:
            text.setdefault(closer, []).append(orphan_closer)  # markup, never text (reasoning rule)
        text.setdefault("`", []).append(backticks(w.fence_infos))
        text.setdefault("~~~", []).append(tildes)
        if gated:
            for marker, handler in intent_handlers(gated, lambda: self.text).items():
                text.setdefault(marker, []).append(handler)
        self.text = MarkerTable(text, w.ns, w.anchors)


def _declared_scopes(
    w: Wiring,
    declared: list[DeclaredReasoning],
    reasoning: dict[str, MarkerTable],
    primed: dict[str, list[Handler]],
    text: dict[str, list[Handler]],
) -> None:
    """The reasoning delimiters, content wrappers and control tokens of declared formats (their
    declarations, formats/declaration.py) in the visible-text and primed scopes."""
    for r in declared:
        if r.open is not None:
            text.setdefault(r.open, []).insert(0, open_declared_reasoning(reasoning[r.close], r.start_only))
            if r.primed:
                primed[r.open] = [written_opener(reasoning[r.close])]
        primed.setdefault(r.close, []).insert(0, pop_scope)
        if r.close not in CONTROL_TOKENS:  # a control token (Solar Open's <|end|>) alone says nothing
            text.setdefault(r.close, []).append(orphan_closer)  # end-only, or an orphan: markup, never text
    for m in w.wrappers:
        primed.setdefault(m, []).append(end_primed_reasoning)  # the model answered: primed reasoning is over
    for m in (*w.wrappers, *w.dropped):
        text.setdefault(m, []).append(drop)
        primed.setdefault(m, []).append(drop)
    if w.separators:
        separator = text_separators(tuple(w.separators))
        for m in w.separators:
            text.setdefault(m, []).append(separator)


def _last_resort(handlers: dict[str, list[Handler]], control_tokens: tuple[str, ...]) -> None:
    """The parser's own control tokens (a preset's: MiniCPM-V's reserved markers) vanish, but only where no
    other handler takes the marker: a marker a format reads (a call opener) stays that format's."""
    for t in control_tokens:
        found = handlers.setdefault(t, [])
        if vanish in found:
            found.remove(vanish)
        found.append(vanish)


def _unnamed_start_handlers(active: tuple[str, ...]) -> tuple[Handler, ...]:
    """Start handlers of the formats not named (for ``fallback="gated"`` with a list of formats)."""
    others = tuple(n for n in catalog.ORDER if n not in active and not catalog.CATALOG[n].opt_in)
    w = Wiring(active=frozenset(others))
    for name in others:
        catalog.CATALOG[name].wire(w)
    unmarked.wire_bare(w)
    return tuple(w.start)


# Room for every format of the catalog alone (70) and their common combinations: with fewer entries than
# the configurations a process cycles through (a proxy serving each model, make bench's section 4), the
# least recently used one is always the next one asked for, and every parser rebuilt its tables (~0.1 ms).
@lru_cache(maxsize=128)
def tables(
    active: tuple[str, ...],
    promote: bool,
    explicit: bool = False,
    fallback: str | None = None,
    tools: bool = False,
    generation: int = 0,
    control_tokens: tuple[str, ...] = (),
) -> Tables:
    """The tables of one configuration; ``generation`` (of the catalog) keeps a re-registered name fresh."""
    return Tables(active, promote, explicit, fallback, tools, control_tokens)


class Config:
    """Everything a stream needs that does not change while it runs."""

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
        separators: SeparatorsOption = "drop",
        prompt: str | None = None,
        control_tokens: Sequence[str] = (),
    ) -> None:
        active = catalog.resolve(formats)
        if separators not in SEPARATORS:
            raise ValueError(f"separators must be one of {SEPARATORS}, not {separators!r}")
        if coercion not in COERCIONS:
            raise ValueError(f"coercion must be one of {COERCIONS}, not {coercion!r}")
        if non_object_args not in NON_OBJECT_ARGS:
            raise ValueError(f"non_object_args must be one of {NON_OBJECT_ARGS}, not {non_object_args!r}")
        if calls_in_reasoning not in CALLS_IN_REASONING:
            raise ValueError(f"calls_in_reasoning must be one of {CALLS_IN_REASONING}, not {calls_in_reasoning!r}")
        if fallback not in FALLBACK_MODES:
            raise ValueError(f"fallback must be one of {FALLBACK_MODES}, not {fallback!r}")
        if max_call_chars is not None and max_call_chars < 1:
            raise ValueError("max_call_chars must be a positive number of characters")
        if isinstance(control_tokens, str):
            raise ValueError(f"control_tokens must be a list of strings, not the string {control_tokens!r}")
        self.control_tokens = tuple(control_tokens)
        for i, token in enumerate(self.control_tokens):
            check_marker(f"control_tokens[{i}]", token)
        self.formats = active
        self.format_set = frozenset(active)
        self.auto = formats is None or formats == "auto"
        self.tools = ToolSet.from_any(tools)
        # Naming formats never implies starting in reasoning: a server that split the reasoning off, or a
        # request with thinking switched off, sends the calls alone. Only a preset or this option does.
        self.start_in_reasoning = bool(start_in_reasoning)
        self.prompt_tail = prompt[-PROMPT_TAIL:] if prompt is not None else None
        self.calls_in_reasoning = calls_in_reasoning
        self.fallback = fallback
        self.max_call_chars = max_call_chars
        self.id_prefix = id_prefix
        self.coercion = coercion
        self.non_object_args = non_object_args
        self.separators = separators
        promote = calls_in_reasoning == "promote"
        self.tables = tables(
            active, promote, not self.auto, fallback, self.tools is not None, catalog.generation(), self.control_tokens
        )
        if start_in_reasoning is None and self.prompt_tail is not None:
            self.start_in_reasoning = self.prompt_opens_reasoning(self.prompt_tail)

    def prompt_opens_reasoning(self, prompt: str) -> bool:
        """The rendered prompt ends (whitespace aside) with a reasoning opener of an active format: the
        output continues inside reasoning (a template with thinking on writes ``<think>\n``, Kimi K3's
        ``<|open|>think<|sep|>``; with it off, ``<think></think>`` or K3's ``<|open|>response<|sep|>``)."""
        tail = prompt.rstrip()
        openers = {*REASONING, *(r.open for r in self.tables.wiring.reasoning if r.open is not None)}
        return any(o.strip() and tail.endswith(o.strip()) for o in openers)

    def initial_state(self, eng: Engine) -> State:
        return ScanState(self.tables.text)

    def start(self, eng: Engine) -> None:
        """Set up the scopes a new stream begins in: the start of the output (start rule), reasoning if primed."""
        if self.tables.start:
            eng.push(StartState(self.tables.text, self.tables.start, START_FALLBACK if self.auto else None))
        if self.start_in_reasoning:
            eng.push(ScanState(self.tables.primed, reasoning=True))

    def new_stats(self) -> ParserStats:
        return ParserStats()

    def new_release(self) -> Separators | None:
        return Separators() if self.separators == "drop" else None
