"""The public sans-I/O parser: ``StreamParser.feed/close/reset`` and the one-shot ``parse``."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import formats as catalog
from .config import CallsInReasoning, Coercion, Config, Fallback, FormatsOption, NonObjectArgs
from .core.calls import Candidate
from .core.engine import Engine
from .core.parts import Parts
from .errors import ParserClosedError
from .events import (
    Event,
    ParseResult,
    ReasoningDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
)
from .formats.escaped_newlines import EscapedNewlines
from .messages import finish_reason
from .partial import CallSnapshot, PartialJson, copy_value
from .states.separators import SeparatorsOption
from .stats import ParserStats
from .structured_calls import verdict as structured_verdict
from .token_input import TokenGuard

log = logging.getLogger("streamparse")

__all__ = ["StreamParser", "parse", "build_parser", "describe", "ParserClosedError"]


class StreamParser:
    """Push model output in, get events out. No I/O, no threads, no event loop.

    ``feed(chunk)`` accepts ``str`` or ``bytes`` (decoded incrementally as UTF-8, so a character split
    across chunks is fine) and returns the events that became certain; ``close()`` ends the stream.

    ``coercion``: with ``tools``, ``"lenient"`` (the default) converts a JSON string argument whose schema
    admits no string when its meaning is unambiguous (``"true"`` -> true, ``"5"`` -> 5), recorded as the
    repair ``lenient_types``; ``"strict"`` validates JSON arguments exactly as written. Text-valued
    formats (qwen3_coder, xml_invoke, ...) always convert by the schema: their values are text by design.
    ``prompt``: the rendered prompt this output continues (its end suffices). Unless ``start_in_reasoning``
    is given, it decides that: the output starts inside reasoning exactly when the prompt ends with a
    reasoning opener of an active format (``<think>``, Kimi K3's ``<|open|>think<|sep|>``).
    ``separators``: ``"drop"`` (the default) gives content and reasoning as the message fields the template
    was given, without the whitespace it writes around its markup (``<think>\n``, ``\n\n<tool_call>``);
    ``"keep"`` leaves that whitespace in the text (docs/FORMATS.md, exact output).
    ``escaped_newlines``: text and reasoning get back the newlines a tokenizer decoded as ``\\n`` (MiniCPM-V's
    preset sets it; call arguments, code and math keep theirs: ``formats/escaped_newlines.py``).
    ``control_tokens``: more markup removed from text and reasoning, as ``<|im_end|>`` is (MiniCPM-V's preset
    gives its reserved markers ``<reserved_12>``...``<|reserved_15|>``).
    ``calls`` / ``snapshot(index)``: each call as far as it has streamed (:class:`CallSnapshot`).
    ``record=True`` keeps every event so that :meth:`result` can give the whole turn (memory then grows with
    the stream; off by default, so a parser holds no more than its longest open call).

    Without ``tools``, a call to any name is accepted (logged once per parser at INFO): pass your tools so
    that unknown names and invalid arguments are rejected.
    """

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
        special_tokens: Mapping[int, str] | None = None,
        record: bool = False,
        separators: SeparatorsOption = "drop",
        prompt: str | None = None,
        escaped_newlines: bool = False,
        control_tokens: Sequence[str] = (),
    ) -> None:
        self._config = Config(
            formats,
            tools=tools,
            start_in_reasoning=start_in_reasoning,
            calls_in_reasoning=calls_in_reasoning,
            fallback=fallback,
            max_call_chars=max_call_chars,
            id_prefix=id_prefix,
            coercion=coercion,
            non_object_args=non_object_args,
            separators=separators,
            prompt=prompt,
            control_tokens=control_tokens,
        )
        self._engine = Engine(self._config)
        # Token-id input (``feed_tokens``): markers that are special tokens count only as their token ids.
        self._guard = TokenGuard(special_tokens) if special_tokens else None
        self._record: list[Event] | None = [] if record else None
        self._cut = False  # close() was told the output hit its length limit
        self._unescape = EscapedNewlines(separators == "drop") if escaped_newlines else None  # MiniCPM-V
        if self._guard is None and self._record is None and self._unescape is None:
            # The hot path: feed() is the engine's own method (one call per chunk, no wrapper).
            self.feed = self._engine.feed  # type: ignore[method-assign]
        self.preset: Any = None
        self.derivation: Any = None  # from_chat_template: the streamparse.derive.Derivation
        self._readers: dict[int, PartialJson] = {}  # calls whose snapshot was asked for: their arguments so far
        self._structured: dict[int, Candidate] = {}  # open calls the server structured (open_call)
        if self._config.tools is None:
            log.info("no tools= given: a call to any tool name is accepted; pass tools= to validate calls")

    @classmethod
    def for_model(
        cls,
        model_id: str,
        *,
        chat_template_kwargs: dict[str, Any] | None = None,
        chat_template: str | None = None,
        template_first: bool = False,
        **options: Any,
    ) -> StreamParser:
        """A parser preset for a model id (Hugging Face, Ollama, OpenRouter, LM Studio spellings).

        Explicit ``options`` win over the preset. The preset's formats are preferred, not exclusive:
        formats sharing an opener with them stay on (``formats.siblings``). ``chat_template_kwargs`` (the
        request's, e.g. ``{"enable_thinking": False}``) decides whether the output starts in reasoning
        (``presets.start_in_reasoning_for``), unless ``prompt=`` (the rendered prompt) is given: it decides.

        ``model_id`` may be a local model folder (its ``chat_template.jinja`` or ``tokenizer_config.json``
        supplies the template and special tokens); ``chat_template`` gives a template (text, or a path to
        a file or folder). A model no preset knows, with a template, gets the format derived from it
        (:meth:`from_chat_template`; with ``template_first``, even a known one); a template that cannot be
        analysed logs a warning and falls back to ``formats="auto"``.
        """
        from .derive.model_dir import template_for
        from .presets import preset_for, start_in_reasoning_for

        preset = preset_for(model_id)
        found = template_for(model_id, chat_template) if template_first or not preset.matched else None
        if found is None and chat_template is not None and (template_first or not preset.matched):
            log.warning("streamparse: no chat template found in %s", chat_template[:200])
        if found is not None and "formats" not in options:
            special = options.pop("special_tokens", None)  # the {id: text} table of token input, if any
            try:
                parser = cls.from_chat_template(
                    found.template,
                    special_tokens=special if special is not None else found.special_tokens,
                    chat_template_kwargs=chat_template_kwargs,
                    **options,
                )
            except ValueError as exc:  # DeriveError: what could not be derived, then the usual fallback
                log.warning("streamparse: no format derived from %s (%s); using formats='auto'", found.source, exc)
                if special is not None:
                    options["special_tokens"] = special
            else:
                parser.preset = preset
                return parser
        options.setdefault("formats", catalog.siblings(preset.formats) if preset.matched else "auto")
        if preset.escaped_newlines:
            options.setdefault("escaped_newlines", True)
        options.setdefault("control_tokens", preset.control_tokens)
        if options.get("prompt") is None:  # a prompt says where the output starts better than the request
            options.setdefault("start_in_reasoning", start_in_reasoning_for(model_id, chat_template_kwargs))
        parser = cls(**options)
        parser.preset = preset
        return parser

    @classmethod
    def from_chat_template(
        cls,
        template: str,
        *,
        tools: Any = None,
        special_tokens: Any = None,
        chat_template_kwargs: dict[str, Any] | None = None,
        **options: Any,
    ) -> StreamParser:
        """A parser for the model a chat template belongs to, derived from the template text alone.

        The template is rendered in a bounded sandbox as ``transformers`` renders it, the renders are
        compared to find each part of the format, and the result is a declaration in the vocabulary of
        the built-in formats (``parser.derivation.declaration``), checked against the template's own
        renders. ``special_tokens``: the tokenizer's special tokens (a list of strings, a
        ``tokenizer_config.json``-style mapping, or the ``{id: text}`` map :meth:`feed_tokens` reads).
        ``chat_template_kwargs``: the options the prompt is rendered with (``{"enable_thinking": False}``
        means the output does not start in reasoning). Needs jinja2 (the ``templates`` extra). Raises
        ``ValueError`` (:class:`streamparse.derive.DeriveError`) naming what could not be derived.
        """
        from .derive import derive

        by_id = isinstance(special_tokens, Mapping) and all(isinstance(k, int) for k in special_tokens)
        derivation = derive(
            template,
            special_tokens=list(special_tokens.values()) if by_id else special_tokens,
            chat_template_kwargs=chat_template_kwargs,
        )
        options.setdefault("formats", [derivation.name])
        if options.get("prompt") is None:
            options.setdefault("start_in_reasoning", derivation.primed)
        if by_id:
            options.setdefault("special_tokens", special_tokens)
        parser = cls(tools=tools, **options)
        parser.derivation = derivation
        return parser

    # -- the contract ------------------------------------------------------------------------------

    def feed(self, chunk: str | bytes | bytearray | memoryview) -> list[Event]:
        """Consume the next piece of model output; return the events it made certain.

        Raises ``ParserClosedError`` after ``close()`` and ``TypeError`` for anything but str/bytes.
        (Replaced per instance by the engine's method; this is its documentation.) With ``special_tokens``,
        text fed here is plain text, as from tokens that are not special (see :meth:`feed_tokens`).
        """
        if self._guard is None:
            return self._kept(self._engine.feed(chunk))
        if isinstance(chunk, str):
            return self.feed_tokens(((None, chunk),))
        raise TypeError("a parser given special_tokens takes text (str) or feed_tokens(), not bytes")

    def _kept(self, events: list[Event], final: bool = False) -> list[Event]:
        if self._unescape is not None:
            events = self._unescape.events(events, final)
        if self._record is not None:
            self._record.extend(events)
        return events

    def feed_tokens(self, pieces: Iterable[tuple[int | None, str]]) -> list[Event]:
        """Consume ``(token id, text)`` pieces. Needs ``special_tokens`` (the tokenizer's table, ``{id: text}``).

        A marker that is a special token is recognised only when it arrives as that token's id: the same
        characters inside other tokens' text stay text (and reach the events unchanged). ``None`` as the id
        means plain text.
        """
        guard = self._guard
        if guard is None:
            raise ValueError("feed_tokens() needs StreamParser(special_tokens={id: text, ...})")
        if self._engine.closed:
            raise ParserClosedError("feed() after close(): call reset() to parse a new stream")
        return self._kept(guard.clean(self._engine.feed(guard.text(pieces))))

    def close(self, reason: str | None = None) -> list[Event]:
        """End of stream: flush held text, finish or reject open calls (end-of-stream rule).

        ``reason`` is why the stream ended, as the server reports it. ``"stop"`` (a normal stop, e.g. a stop
        sequence that ate a closing marker) accepts a call whose body is complete but whose closer is
        missing; anything else (``"length"``...) or ``None`` rejects it as truncated.
        """
        cut: list[Event] = []
        if not self._engine.closed:
            self._cut = reason == "length"
            for index in list(self._structured):  # a structured call the stream never ended
                cut += self.close_call(index, cut=True)
        guard = self._guard
        if guard is None or self._engine.closed:
            return cut + self._kept(self._engine.close(reason), True)
        tail = guard.flush()
        head = self._engine.feed(tail) if tail else []
        return cut + self._kept(guard.clean(head + self._engine.close(reason)), True)

    def reset(self) -> None:
        """Return to the initial state for a new stream (same configuration)."""
        self._engine.reset()
        self._readers.clear()
        self._structured.clear()
        self._cut = False
        if self._unescape is not None:
            self._unescape = EscapedNewlines(self._unescape.sep is not None)
        if self._record is not None:
            self._record = []
        if self._guard is not None:
            self._guard.flush()

    @property
    def takes_tokens(self) -> bool:
        """Whether this parser was given ``special_tokens`` (then :meth:`feed_tokens` is its input)."""
        return self._guard is not None

    # -- snapshots ---------------------------------------------------------------------------------

    @property
    def calls(self) -> list[CallSnapshot]:
        """A snapshot of every call that had its ``ToolCallStart`` in this stream, in index order.

        Indices of candidates rejected before they started are not in it (their ``ToolCallRejected``
        has ``started=False``), so a position in this list is not necessarily an index. Cost: see
        :meth:`snapshot`."""
        return [self._snapshot(c) for c in self._engine.started_calls]

    def snapshot(self, index: int) -> CallSnapshot:
        """The call with ``index`` as far as it has streamed: name, arguments parsed so far, status.

        The arguments of an open call are read incrementally: each request reads only the argument text
        that arrived since the previous one (linear in the call's text overall, never re-parsed), then
        copies the containers (O(number of values)), decoding only the new part of the string being written.
        Raises ``KeyError`` when no call with this index has started."""
        for cand in reversed(self._engine.started_calls):  # the open call is the last one
            if cand.index == index:
                return self._snapshot(cand)
        raise KeyError(f"no call with index {index} has started")

    def _snapshot(self, cand: Any) -> CallSnapshot:
        index, call_id, name, fmt = cand.index, cand.id, cand.name, cand.format
        tools = self._config.tools
        tool = tools.model_for(name) if tools is not None else None
        outcome = cand.outcome
        if isinstance(outcome, ToolCall):
            self._readers.pop(index, None)
            args = copy_value(outcome.arguments)
            return CallSnapshot(index, call_id, name, args, "complete", fmt, outcome.parsed, None, tool)
        parts = cand.args_seen if outcome is not None and cand.args_seen is not None else cand.args
        reader = self._readers.get(index)
        if reader is None:  # first request: read what came so far once, then only what the tap collects
            reader = self._readers[index] = PartialJson()
            reader.feed(parts.join())
            parts.tap = Parts()
        elif parts.tap:
            reader.feed(parts.tap.join())
            parts.tap = Parts()
        value = reader.value()
        args = value if isinstance(value, dict) else {}
        if outcome is not None:
            return CallSnapshot(index, call_id, name, args, "rejected", fmt, None, outcome.reason, tool)
        return CallSnapshot(index, call_id, name, args, "streaming", fmt, None, None, tool)

    # -- what the server already separated -----------------------------------------------------------

    def feed_reasoning(self, text: str) -> list[Event]:
        """Reasoning the server already split off (``reasoning_content``, ``thinking``): passed on as is."""
        return self._kept([ReasoningDelta(text)]) if text else []

    def open_call(
        self, name: str | None, call_id: str | None = None, format: str = "structured"
    ) -> tuple[int, list[Event]]:
        """A call the server already structured (``delta.tool_calls``, Ollama ``tool_calls``, Anthropic
        ``tool_use``) begins: ``(index, events)``. It takes the next index of this stream, so its events
        interleave with the calls parsed from the text, and it is checked as they are: an undeclared or
        missing name is rejected at once (``started=False``), else ``ToolCallStart``. Feed its arguments
        JSON to :meth:`call_arguments`, end it with :meth:`close_call`."""
        eng = self._engine
        if eng.closed:
            raise ParserClosedError("open_call() after close(): call reset() to parse a new stream")
        cand = Candidate(format, 0, False)
        cand.index = index = eng.next_index
        eng.next_index += 1
        cand.name = name
        tools = self._config.tools
        if not name:
            return index, self._reject_structured(cand, "malformed", "no tool name", None)
        if tools is not None and name not in tools:
            return index, self._reject_structured(cand, "unknown_tool", f"{name!r} is not a declared tool", None)
        cand.id = call_id or f"{self._config.id_prefix}{index}"
        cand.started = True
        eng.started_calls.append(cand)
        self._structured[index] = cand
        return index, self._kept([ToolCallStart(index, cand.id, name)])

    def call_arguments(self, index: int, text: str) -> list[Event]:
        """The next piece of a structured call's arguments JSON (nothing for a call already rejected)."""
        cand = self._structured.get(index)
        if cand is None or not text:
            return []
        cand.args.append(text)
        cand.has_args = True
        return self._kept([ToolCallDelta(index, text)])

    def close_call(self, index: int, *, cut: bool = False) -> list[Event]:
        """A structured call is complete (``cut``: the output ended inside it): validated as a parsed call is
        (arguments a JSON object, the tool's schema, its pydantic model), then ``ToolCallEnd`` or
        ``ToolCallRejected``. Its arguments are taken as the server wrote them (no lenient typing)."""
        cand = self._structured.pop(index, None)
        if cand is None:
            return []
        out: list[Event] = []
        if not cand.has_args:
            cand.args.append("{}")
            out.append(ToolCallDelta(index, "{}"))
        verdict = structured_verdict(self._config.tools, cand, cand.args.join(), cut)
        if isinstance(verdict, ToolCall):
            cand.outcome = verdict
            self._engine.accepted += 1
            self._engine.stats.record_call(cand.format, [], False)
            return self._kept([*out, ToolCallEnd(index, verdict)])
        reason, detail, arguments = verdict
        return self._kept(out + self._reject_structured(cand, reason, detail, arguments))

    def _reject_structured(self, cand: Candidate, reason: str, detail: str, arguments: str | None) -> list[Event]:
        assert cand.index is not None
        self._engine.stats.record_rejection(reason, cand.format)
        raw = cand.args.join()
        event = ToolCallRejected(cand.index, reason, raw, cand.name, detail, cand.format, arguments, cand.started)
        cand.outcome = event
        cand.args_seen = cand.args if cand.started else None
        return [event]

    @property
    def closed(self) -> bool:
        return self._engine.closed

    @property
    def finish_reason(self) -> str:
        """``"tool_calls"`` when any call was accepted, else ``"length"`` when the output was cut (``close("length")``
        or a call ``truncated``), else ``"stop"``: the rule of ``ParseResult.finish_reason`` and the writers."""
        eng = self._engine
        return finish_reason(bool(eng.accepted), self._cut or bool(eng.stats.rejections.get("truncated")))

    def result(self) -> ParseResult:
        """The :class:`~streamparse.ParseResult` of everything fed so far (after ``close()``: the whole turn),
        e.g. ``parser.result().to_openai_message()`` for the next request. Needs ``StreamParser(record=True)``."""
        if self._record is None:
            raise RuntimeError("result() needs the events kept: build the parser with StreamParser(..., record=True)")
        return ParseResult.from_events(list(self._record), self.finish_reason, self.metadata)

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
        """Stream-level facts the output stated, e.g. ``{"needsMoreWork": True}`` from an envelope
        (``{"content": ..., "toolCalls": [...], "needsMoreWork": ...}``)."""
        return self._engine.metadata

    @property
    def formats(self) -> tuple[str, ...]:
        return self._config.formats

    @property
    def tools(self) -> Any:
        return self._config.tools


def parse(
    text: str | bytes, formats: FormatsOption | None = None, *, model: str | None = None, **options: Any
) -> ParseResult:
    """One-shot parse; the same engine and the same result as any chunking of ``text``.

    ``model`` (a model id) picks the formats and reasoning start as :meth:`StreamParser.for_model` does;
    without it ``formats`` defaults to ``"auto"``."""
    parser = build_parser(model, formats, **options)
    events = parser.feed(text)
    events += parser.close()
    return ParseResult.from_events(events, parser.finish_reason, parser.metadata)


def build_parser(model: str | None = None, formats: Sequence[str] | str | None = None, **options: Any) -> StreamParser:
    """A parser for ``model``'s preset (explicit ``formats`` win), or for ``formats`` (default ``"auto"``).

    The one helper ``parse``, ``aparse``, the provider readers, the CLI, the demo, the proxy and the
    integrations share to turn "this model / these formats" into a parser (``model`` goes to
    :meth:`StreamParser.for_model`)."""
    if formats is not None:
        options["formats"] = list(formats) if not isinstance(formats, str) else formats
    if model:
        return StreamParser.for_model(model, **options)
    options.pop("chat_template_kwargs", None)  # without a model nothing says the template primes reasoning
    return StreamParser(**options)


def describe(name: str) -> dict[str, Any]:
    """Models, delimiters and an example of one format, with what the example parses to."""
    spec = catalog.get(name)
    result = parse(spec.example, formats=[spec.name], start_in_reasoning=False)
    return {
        "name": spec.name,
        "models": spec.models,
        "delimiters": spec.delimiters,
        "example": spec.example,
        "parses_to": [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls],
        "opt_in": spec.opt_in,
        "notes": spec.notes,
    }
