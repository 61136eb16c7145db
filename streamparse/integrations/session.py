"""One request's parse, mapped to the per-chunk deltas serving engines stream (engine-neutral).

vLLM's ``DeltaMessage`` and SGLang's ``StreamingParseResult`` both carry, per chunk, some content,
some reasoning and a list of tool-call pieces ``(index, id, name, arguments fragment)``. A
:class:`RequestSession` owns one :class:`~streamparse.StreamParser` (one per request, nothing shared)
and turns the events of each chunk into one :class:`Piece`, or ``None`` when the chunk made nothing
certain, so an engine never sends an empty message.

Indices are the engine's: gap-free, counted over the calls whose name was sent. A candidate rejected
before its name was known never took an index, so the next call does not leave a hole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from streamparse import (
    ReasoningDelta,
    StreamParser,
    TextDelta,
    TextWasReasoning,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
)
from streamparse.events import Event

__all__ = ["CallPiece", "Piece", "RequestSession", "OneShot", "ReasoningSplit", "one_shot", "split", "tool_specs"]


def tool_specs(tools: Iterable[Any] | None) -> list[dict[str, Any]] | None:
    """The request's tools for the parser: names, and parameter schemas without ``required``.

    An unknown name is rejected before anything of the call is sent, and the property types drive the
    typing of string-valued formats (qwen3_coder's ``<parameter=...>``). A missing required argument is the
    client's to report, as vLLM's contract has it: a call whose name was streamed is not withdrawn for it.
    """
    if not tools:
        return None
    out: list[dict[str, Any]] = []
    for tool in _flat(tools):
        function = getattr(tool, "function", None)
        name = getattr(function, "name", None) or getattr(tool, "name", None)
        if not (isinstance(name, str) and name):
            continue
        params = getattr(function, "parameters", None) if function is not None else getattr(tool, "parameters", None)
        params = {k: v for k, v in params.items() if k != "required"} if isinstance(params, dict) else {}
        out.append({"type": "function", "function": {"name": name, "parameters": params}})
    return out or None


def _flat(tools: Iterable[Any], prefix: str = "") -> Iterable[Any]:
    """The request's tools with Responses API namespaces flattened: a namespace's function ``NAME`` is the
    tool ``NAMESPACE__NAME``, the name the model calls and vLLM maps back to the namespace."""
    for tool in tools:
        nested = getattr(tool, "tools", None)
        if getattr(tool, "type", None) == "namespace" and isinstance(nested, list):
            yield from _flat(nested, f"{prefix}{getattr(tool, 'name', '')}__")
        elif prefix and getattr(tool, "type", None) == "function":
            yield _Named(prefix + str(getattr(tool, "name", "")), getattr(tool, "parameters", None))
        elif not prefix:
            yield tool


@dataclass(frozen=True, slots=True)
class _Named:
    """A namespaced function under its flat name (Responses API tools carry name and parameters directly)."""

    name: str
    parameters: Any


@dataclass(slots=True)
class CallPiece:
    """A fragment of one call: the first piece of a call carries ``id`` and ``name``."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(slots=True)
class Piece:
    """What one chunk made certain."""

    content: str = ""
    reasoning: str = ""
    calls: list[CallPiece] = field(default_factory=list)
    ended: list[int] = field(default_factory=list)
    """Engine indices of the calls that ended (accepted or rejected) in this chunk."""
    text_was_reasoning: bool = False
    """An orphan ``</think>`` said the content sent before this piece was reasoning (a stream cannot take
    it back; :func:`one_shot` moves it)."""

    def __bool__(self) -> bool:
        return bool(self.content or self.reasoning or self.calls or self.text_was_reasoning)


class RequestSession:
    """Feeds one request's output to its own parser and returns engine-shaped pieces.

    ``new_id(name, parser_id)`` makes the call ids the engine's clients expect (vLLM's
    ``make_tool_call_id``, or a format's native id); without it the parser's own ids are used.

    ``rejected_text`` is for engines whose API has no rejection (SGLang's): the markup of a rejected call
    goes on as content, visible and never executed, in its place in the text: ``"unsent"``, the markup of
    a call none of which was sent (the engine cannot take back a sent name); ``"all"``, of every rejected
    call (the caller sends nothing of a call before it is accepted). The rejection is recorded either way.
    """

    def __init__(
        self,
        parser: StreamParser,
        new_id: Callable[[str, str], str] | None = None,
        rejected_text: Literal["none", "unsent", "all"] = "none",
    ) -> None:
        self.parser = parser
        self._new_id = new_id
        self._rejected_text = rejected_text
        self._index: dict[int, int] = {}  # parser index -> engine index
        self._streamed: dict[int, list[str]] = {}  # engine index -> argument fragments sent
        self.accepted: list[ToolCall] = []
        self.rejected: list[ToolCallRejected] = []
        self.rejected_after_name: list[ToolCallRejected] = []
        """Rejected calls whose name was already sent: the engine cannot take a sent delta back."""

    @property
    def calls_sent(self) -> int:
        """How many calls got an engine index (their name was sent)."""
        return len(self._index)

    def push(self, text: str) -> Piece | None:
        """One chunk of model output in; what became certain out (``None`` if nothing did)."""
        if not text:
            return None
        return self._piece(self.parser.feed(text))

    def push_tokens(self, pieces: Iterable[tuple[int | None, str]]) -> Piece | None:
        """Token-id input (the parser was built with ``special_tokens``): ``(token id, text)`` pieces."""
        return self._piece(self.parser.feed_tokens(pieces))

    def finish(self, reason: str | None = "stop") -> Piece | None:
        """End of stream: flush held text and finish or reject open calls.

        ``reason`` is the engine's finish reason: on ``"stop"`` a call whose body is complete but whose
        closing marker a stop sequence ate is accepted; on ``"length"`` it is rejected as truncated.
        """
        if self.parser.closed:
            return None
        return self._piece(self.parser.close(reason))

    def _piece(self, events: list[Event]) -> Piece | None:
        if not events:
            return None
        content: list[str] = []
        reasoning: list[str] = []
        calls: list[CallPiece] = []
        ended: list[int] = []
        moved = False
        for ev in events:
            if isinstance(ev, TextDelta):
                content.append(ev.text)
            elif isinstance(ev, ReasoningDelta):
                reasoning.append(ev.text)
            elif isinstance(ev, ToolCallStart):
                index = len(self._index)
                self._index[ev.index] = index
                self._streamed[index] = []
                call_id = self._new_id(ev.name, ev.id) if self._new_id is not None else ev.id
                calls.append(CallPiece(index, call_id, ev.name))
            elif isinstance(ev, ToolCallDelta):
                self._arguments(calls, self._index[ev.index], ev.arguments)
            elif isinstance(ev, ToolCallEnd):
                self.accepted.append(ev.call)
                # The deltas are the call's JSON by contract; send any remainder so the joined
                # arguments are exactly the accepted call's, whatever happened on the way.
                index = self._index[ev.index]
                sent = "".join(self._streamed[index])
                if ev.call.arguments_json.startswith(sent) and len(ev.call.arguments_json) > len(sent):
                    self._arguments(calls, index, ev.call.arguments_json[len(sent) :])
                ended.append(index)
            elif isinstance(ev, ToolCallRejected):
                self.rejected.append(ev)
                named = ev.index in self._index
                if named:
                    self.rejected_after_name.append(ev)
                    ended.append(self._index[ev.index])
                if self._rejected_text == "all" or (self._rejected_text == "unsent" and not named):
                    content.append(ev.raw)
            elif isinstance(ev, TextWasReasoning):
                moved = True
                reasoning.insert(0, "".join(content))  # this piece's text so far was reasoning too
                content.clear()
        piece = Piece("".join(content), "".join(reasoning), calls, ended, moved)
        return piece if piece else None

    def _arguments(self, calls: list[CallPiece], index: int, fragment: str) -> None:
        if not fragment:
            return
        self._streamed[index].append(fragment)
        last = calls[-1] if calls else None
        if last is not None and last.index == index:
            last.arguments += fragment  # one piece per call per chunk
        else:
            calls.append(CallPiece(index, arguments=fragment))


@dataclass(slots=True)
class OneShot:
    """A whole output parsed at once (the non-streaming path)."""

    content: str
    reasoning: str
    calls: list[ToolCall]
    rejected: list[ToolCallRejected]


def one_shot(parser: StreamParser, text: str, reason: str | None = "stop") -> OneShot:
    """Parse a complete output with a fresh ``parser``: the same engine as the streaming path."""
    session = RequestSession(parser)
    content, reasoning = split(p for p in (session.push(text), session.finish(reason)) if p is not None)
    return OneShot(content, reasoning, session.accepted, session.rejected)


def split(pieces: Iterable[Piece]) -> tuple[str, str]:
    """Content and reasoning of whole pieces, with content an orphan ``</think>`` showed was reasoning moved."""
    content: list[str] = []
    reasoning: list[str] = []
    for piece in pieces:
        if piece.text_was_reasoning:
            reasoning.insert(0, "".join(content))
            content.clear()
        content.append(piece.content)
        reasoning.append(piece.reasoning)
    return "".join(content), "".join(reasoning)


class ReasoningSplit:
    """A reasoning parser's contract on its own: reasoning, then everything else verbatim as content.

    An engine pairs a reasoning parser with its own tool parser, which reads the content: so once reasoning
    ends (at ``</think>``, or at a call's opener written inside reasoning, which ends it as the engines'
    parsers have it) the rest of the output, call markup included, is content exactly as the model wrote it.
    The parser decides where reasoning ends; the output read while in reasoning is kept until then (it is
    the reasoning itself, plus markers), and nothing after it.
    """

    def __init__(self, parser: StreamParser, enders: tuple[str, ...] = ()) -> None:
        self.parser = parser
        self.ended = False
        self.finished = False
        self._enders = enders
        """Markers that end reasoning where they appear, whatever the parser makes of them."""
        self._seen: list[str] = []
        self._reasoning: list[str] = []
        self._tail = ""

    def push(self, text: str) -> Piece | None:
        if self.ended:
            return Piece(content=text) if text else None
        self._seen.append(text)
        if self._enders and self._ender_in(text):
            return self._cut_at_ender()
        return self._piece(self.parser.feed(text))

    def _ender_in(self, text: str) -> bool:
        window = self._tail + text
        self._tail = window[-max(map(len, self._enders)) :]
        return any(e in window for e in self._enders)

    def _cut_at_ender(self) -> Piece:
        """An ender arrived: reasoning is the output before it (less what was sent), the rest is content."""
        self.ended = True
        whole, said = "".join(self._seen), "".join(self._reasoning)
        self._seen.clear()
        self._reasoning.clear()
        at = min(i for i in (whole.find(e) for e in self._enders) if i >= 0)
        start = whole.find("<think>") + len("<think>") if whole.lstrip().startswith("<think>") else 0
        return Piece(content=whole[at:], reasoning=whole[start:at][len(said) :])

    def finish(self) -> Piece | None:
        done, self.finished = self.finished, True
        if self.ended or done:
            return None
        return self._piece(self.parser.close("stop"))

    def _piece(self, events: list[Event]) -> Piece | None:
        reasoning: list[str] = []
        for ev in events:
            if isinstance(ev, ReasoningDelta):
                reasoning.append(ev.text)
            elif isinstance(ev, TextDelta | ToolCallStart | ToolCallRejected) and not (
                isinstance(ev, TextDelta) and not ev.text
            ):
                self._reasoning.extend(reasoning)
                return Piece(content=self._rest(at_call=not isinstance(ev, TextDelta)), reasoning="".join(reasoning))
        self._reasoning.extend(reasoning)
        piece = Piece(reasoning="".join(reasoning))
        return piece if piece else None

    def _rest(self, at_call: bool) -> str:
        """The output after the end of reasoning, verbatim; from now on every chunk is content."""
        self.ended = True
        whole, said = "".join(self._seen), "".join(self._reasoning)
        self._seen.clear()
        self._reasoning.clear()
        start = whole.find("<think>") + len("<think>") if whole.lstrip().startswith("<think>") else 0
        at = whole.find(said, start) + len(said) if said else start
        close = -1 if at_call else whole.find("</think>", at)
        if close >= 0 and (said or not whole[at:close].strip()):
            # Reasoning ended at this closer. With no reasoning said, a closer after text (an orphan: the output
            # did not start in reasoning) stays in the content verbatim.
            at = close + len("</think>")
        return whole[at:]
