"""The life cycle of a call being read: identity, argument deltas, raw markup, verdict.

:class:`CallLifecycle` is the part of the engine that formats' states drive through ``begin_call``,
``set_name``, ``args``, ``end_call`` and ``fail_call``. It turns them into ``ToolCallStart``,
``ToolCallDelta``, ``ToolCallEnd`` and ``ToolCallRejected`` events; nothing is executed here.
"""

from __future__ import annotations

import json
import json.scanner
import logging
from array import array
from collections.abc import Callable
from json.encoder import encode_basestring  # the C string escaper json.dumps uses
from logging import DEBUG
from typing import Any, Final, Protocol

from pydantic import ValidationError

from ..events import ToolCall, ToolCallRejected
from ..rejections import Reason
from ..stats import ParserStats
from .constructors import tool_call, tool_call_delta, tool_call_end, tool_call_start
from .json_reader import NEEDS_ESCAPE
from .output import TextOutput
from .parts import Parts, RawText

# The C scanner json.loads ends in (typeshed types make_scanner's argument oddly).
_scan_once: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]


def _loads(text: str) -> Any:
    """``json.loads(text)`` without its Python layers, for the commonest text (a value, nothing around it);
    anything else, errors included, goes through ``json.loads`` itself (same result, same message)."""
    try:
        value, end = _scan_once(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


log: Final = logging.getLogger("streamparse")


class ToolValidator(Protocol):
    """The declared tools, as the engine sees them: membership and a validation verdict."""

    def __contains__(self, name: object) -> bool: ...

    def validate(self, name: str, arguments: dict[str, Any]) -> str | None: ...

    def property_schema(self, name: str, key: str) -> dict[str, Any] | None: ...

    def model_for(self, name: str) -> Any: ...


class CallSettings(Protocol):
    """What the call life cycle reads from a configuration."""

    @property
    def tools(self) -> ToolValidator | None: ...

    @property
    def max_call_chars(self) -> int | None: ...

    @property
    def id_prefix(self) -> str: ...

    @property
    def non_object_args(self) -> str:
        """``"reject"`` arguments that are not a JSON object, or ``"pass"`` them on as their JSON text."""


class CallGate(Protocol):
    """A policy that sees every call begin and may hold a valid call's verdict (the gated fallback)."""

    @property
    def max_chars(self) -> int | None:
        """Most characters a candidate may be held under this gate, if it bounds them."""

    def begin(self, cand: Candidate) -> None: ...

    def defer(self, eng: Any, cand: Candidate, call: ToolCall) -> bool: ...


def instantiate(model: Any, arguments: dict[str, Any]) -> tuple[Any, str | None]:
    """``(model.model_validate(arguments), None)`` for a pydantic-model tool, ``(None, None)`` without a
    model, ``(None, detail)`` when the model refuses arguments its JSON Schema accepted (a custom
    validator): the call is then rejected, never half-valid (``ToolCall.parsed``). Never raises."""
    if model is None:
        return None, None
    try:
        return model.model_validate(arguments), None
    except ValidationError as exc:
        errors = exc.errors()
        if not errors:
            return None, f"$: {exc}"[:300]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in errors[0]["loc"])
        return None, f"${where}: {errors[0]['msg']}"[:300]
    except Exception as exc:  # whatever else a user validator raises
        return None, f"$: {type(exc).__name__}: {exc}"[:300]


class Candidate:
    """A call being read: its identity, arguments so far and the markup it came from."""

    __slots__ = (
        "format",
        "index",
        "id",
        "name",
        "args",
        "pending",
        "has_args",
        "started",
        "reject",
        "detail",
        "raw_parts",
        "raw_mark",
        "raw_len",
        "repairs",
        "fallback",
        "closed",
        "gate",
        "outcome",
        "args_seen",
        "loose",
        "loose_end",
    )

    def __init__(self, fmt: str, raw_mark: int, fallback: bool) -> None:
        self.format = fmt
        self.index: int | None = None
        self.id: str | None = None
        self.name: str | None = None
        self.args = Parts()  # the arguments JSON so far (pieces joined as they come: see parts.py)
        self.pending: list[str] = []
        self.has_args = False
        self.started = False
        self.reject: str | None = None
        self.detail = ""
        self.raw_parts = RawText(self.args)  # markup; what is also argument text is kept once, in args
        self.raw_mark = raw_mark
        self.raw_len = 0
        self.repairs: list[str] | tuple[()] = ()  # a list from the first repair (most calls have none)
        self.fallback = fallback
        self.closed = False  # a rejection was already emitted (too_large): swallow the rest silently
        self.gate: CallGate | None = None  # the gated fallback's policy, when it applies to this call
        self.outcome: ToolCall | ToolCallRejected | None = None  # the verdict, once emitted (snapshots)
        self.args_seen: Parts | None = None  # a rejected call's argument text (kept past too_large)
        # Argument text appended by ``args`` since the engine last moved markup aside, and the arguments'
        # size after it: when that markup is this very text (verbatim or escaped), it is kept once.
        self.loose: list[str] = []
        self.loose_end = 0

    def share_loose(self, piece: str) -> bool:
        """``piece``, markup just consumed, is the loose argument text (verbatim or JSON-escaped): keep it
        as a reference to the arguments. False when it is not (the caller keeps it as literal markup).

        A tag value's final newline is held by its state (it may be the markup before the closing tag): a
        piece ending in it shares all but the newline, which stays literal until the next piece brings the
        newline into the arguments and ``RawText.rejoin`` folds it back into the stretch."""
        args = self.args
        if args.size != self.loose_end:
            return False
        raw = self.raw_parts
        spans = raw.spans
        text = self.loose[0] if len(self.loose) == 1 else "".join(self.loose)
        if spans and spans[-1] and raw.run < 0 and raw.rejoin(piece, text):
            return True
        if self._share(piece, text):
            return True
        if piece[-1] == "\n" and len(piece) > 1 and self._share(piece[:-1], text):
            raw.append("\n")
            return True
        return False

    def _share(self, piece: str, text: str) -> bool:
        args = self.args
        raw = self.raw_parts
        spans = raw.spans
        if len(piece) < 32 and not (spans and spans[-4] == raw.lit.size):
            return False  # (neither long enough for a stretch of its own nor next to one: not worth it)
        if text == piece:
            kinds: tuple[int, ...] = (0, 1) if NEEDS_ESCAPE.search(piece) is None else (0,)  # (its own escape)
        elif len(text) > len(piece) and text == encode_basestring(piece)[1:-1]:
            kinds = (1,)
        else:
            return False
        raw.unshare()
        start = args.size - len(text)
        if spans and spans[-4] == raw.lit.size and spans[-2] == start and spans[-1] in kinds:
            spans[-2] = args.size  # continues the stretch before it
        elif len(text) >= 32:  # (a stretch of its own costs 32 bytes: short text is kept twice instead)
            if spans is None:
                spans = raw.spans = array("q")
            spans.extend((raw.lit.size, start, args.size, kinds[0]))
        else:
            return False
        return True


class CallLifecycle(TextOutput):
    """Part of :class:`~streamparse.core.engine.Engine` (a chain of single bases, which mypyc compiles: see
    scripts/compile.py): the open call and its events."""

    cfg: Any  # (core.engine.EngineConfig: typed loosely, so that this module does not import the engine's)
    pos: int
    call: Candidate | None
    next_index: int
    accepted: int
    stats: ParserStats
    gate: CallGate | None
    started_calls: list[Candidate]  # every call that had its ToolCallStart, in index order (snapshots)

    def begin_call(self, fmt: str, raw_start: int, fallback: bool = False) -> Candidate:
        if self.call is not None:  # defensive: a state forgot to finish its call
            self.fail_call(Reason.MALFORMED, "a new call began before the previous one ended", raw_start)
        cand = Candidate(fmt, raw_start, fallback)
        self.orphan_window = False  # an orphan </think> after a call is only markup (reasoning rule)
        if self.sep is not None:
            self.sep.markup()  # whitespace around a call's markup is a separator (exact output)
        if self.gate is not None:
            self.gate.begin(cand)
        self.call = cand
        return cand

    def set_name(self, name: str, call_id: str | None = None) -> None:
        cand = self.call
        if cand is None or cand.name is not None:
            return
        cand.name = name
        if call_id:
            cand.id = call_id
        if not name:
            cand.reject, cand.detail = Reason.MALFORMED, "empty tool name"
            return
        tools = self.cfg.tools
        if tools is not None and name not in tools:
            cand.reject, cand.detail = Reason.UNKNOWN_TOOL, f"{name!r} is not a declared tool"
            return
        if cand.closed:
            return
        index = cand.index = self.next_index
        self.next_index = index + 1
        call_id = cand.id
        if call_id is None:
            call_id = cand.id = f"{self.cfg.id_prefix}{index}"
        cand.started = True
        self.started_calls.append(cand)
        self.events.append(tool_call_start(index, call_id, name))

    def args(self, text: str) -> None:
        cand = self.call
        if cand is None or not text:
            return
        cand.has_args = True
        if cand.closed:
            return
        raw = cand.raw_parts
        if raw.run >= 0:
            raw.unshare()
        args = cand.args
        args.append(text)
        cand.pending.append(text)
        cand.loose.append(text)
        cand.loose_end = args.size

    def args_verbatim(self, start: int, text: str) -> None:
        """Argument text that is also the markup ``buf[start:start + len(text)]``, just consumed: kept once.

        Falls back to :meth:`args` when the stretch is not next in the call's markup."""
        cand = self.call
        if cand is None or not text:
            return
        if cand.closed or cand.raw_mark > start:
            self.args(text)
            return
        cand.has_args = True
        raw = cand.raw_parts
        if start > cand.raw_mark:
            raw.append(self.buf[cand.raw_mark : start])
            cand.raw_len += start - cand.raw_mark
        raw.share()
        cand.args.append(text)
        cand.pending.append(text)
        cand.raw_len += len(text)
        cand.raw_mark = start + len(text)

    def add_repairs(self, repairs: list[str]) -> None:
        cand = self.call
        if cand is not None:
            for r in repairs:
                known = cand.repairs
                if r not in known:
                    if isinstance(known, list):
                        known.append(r)
                    else:
                        cand.repairs = [r]

    def _flush_deltas(self, cand: Candidate) -> None:
        pending = cand.pending
        text = pending[0] if len(pending) == 1 else "".join(pending)
        pending.clear()
        if text and cand.index is not None:
            self.events.append(tool_call_delta(cand.index, text))

    def _raw(self, cand: Candidate, end: int, args_text: str | None = None) -> str:
        if cand.closed:
            return ""
        if end > cand.raw_mark:
            cand.raw_parts.append(self.buf[cand.raw_mark : end])
            cand.raw_mark = end
        return cand.raw_parts.join(args_text)

    def end_call(self, end: int) -> None:
        """The call's closing delimiter ends at ``end``: finish, validate, emit End or Rejected."""
        cand = self.call
        if cand is None:
            return
        if cand.closed:
            self.call = None
            return
        name = cand.name
        if cand.reject is not None or name is None:
            raw = self._raw(cand, end)
            self.call = None
            if cand.reject is not None:
                self._reject(cand, cand.reject, cand.detail, raw)
            else:
                self._reject(cand, Reason.MALFORMED, "no tool name", raw)
            return
        # A call with a name and no verdict yet (the commonest end).
        raw_parts = cand.raw_parts
        raw_parts.unshare()  # ("{}" below is no markup)
        if not cand.has_args:
            cand.args.append("{}")
            cand.pending.append("{}")
        args_json = cand.args.join()  # also what the markup refers to: joined once for both
        raw = raw_parts.join(args_json or None)
        if end > cand.raw_mark:  # the markup's last piece (the closer), added to the text rather than the parts
            raw += self.buf[cand.raw_mark : end]
            cand.raw_mark = end
        # The finished call keeps its text once: what it holds from now on (snapshots, a gate's verdict) is
        # the strings its ToolCall holds, not the pieces they were joined from as well.
        cand.args.keep(args_json)
        raw_parts.keep(raw)
        self.call = None
        if cand.pending:
            self._flush_deltas(cand)
        try:
            args = _loads(args_json)
        except (ValueError, RecursionError) as exc:
            self._reject(cand, Reason.MALFORMED, f"arguments are not valid JSON: {exc}", raw)
            return
        validation = "skipped"
        parsed = None
        if not isinstance(args, dict):
            if self.cfg.non_object_args != "pass":
                self._reject(cand, Reason.MALFORMED, "arguments are not a JSON object", raw)
                return
            args = {}  # the value is in arguments_json; there is no object to validate or to hand out
        tools = self.cfg.tools
        if tools is not None and (args_json.startswith("{") or args_json.lstrip().startswith("{")):
            problem = tools.validate(name, args)
            if problem is None:
                model = tools.model_for(name)
                if model is not None:  # (instantiate answers (None, None) without a model)
                    parsed, problem = instantiate(model, args)
            if problem is not None:
                self._reject(cand, Reason.SCHEMA_VIOLATION, problem, raw)
                return
            validation = "pass"
        assert cand.index is not None and cand.id is not None
        call = tool_call(
            cand.id,
            name,
            args,
            args_json,
            cand.format,
            raw,
            cand.fallback,
            list(cand.repairs),
            validation,  # type: ignore[arg-type]
            parsed,
        )
        if cand.gate is not None and cand.gate.defer(self, cand, call):
            return  # the gated fallback decides at close
        self.accept(cand, call)

    def accept(self, cand: Candidate, call: ToolCall) -> None:
        assert cand.index is not None
        self.accepted += 1
        self.seen_output = True
        self.stats.record_call(cand.format, cand.repairs, cand.fallback)
        # Asked at every call (logging may be switched on at any time); the logger caches the answer, and
        # the check spares building the arguments of a record that would be dropped.
        if log.isEnabledFor(DEBUG):
            log.debug(  # the telemetry fields, one line per decision
                "call %s accepted: format=%s fallback_used=%s repairs=%s validation=%s",
                cand.name,
                cand.format,
                cand.fallback,
                list(cand.repairs),  # (printed as the list it always was)
                call.validation,
            )
        cand.outcome = call
        self.events.append(tool_call_end(cand.index, call))

    def fail_call(self, reason: str, detail: str, end: int) -> None:
        """Reject the open call; its markup up to ``end`` is the rejection's raw text."""
        cand = self.call
        if cand is None:
            return
        self.call = None
        if cand.closed:
            return
        raw = self._raw(cand, end)
        if cand.reject is not None:
            reason, detail = cand.reject, cand.detail  # an earlier, more specific verdict stands
        self._reject(cand, reason, detail, raw)

    def truncate_call(self) -> None:
        self.fail_call(Reason.TRUNCATED, "the stream ended inside the call", len(self.buf))

    def reject_too_large(self) -> None:
        cand = self.call
        if cand is None or cand.closed:
            return
        if self.pos > cand.raw_mark:  # consumed but not yet moved to raw_parts
            cand.raw_parts.append(self.buf[cand.raw_mark : self.pos])
            cand.raw_mark = self.pos
        # The call's markup so far, including the part a state still holds undecided.
        raw = cand.raw_parts.join() + self.buf[cand.raw_mark :]
        limit = self.cfg.max_call_chars
        if cand.reject is not None:  # an earlier, more specific verdict stands (as in fail_call)
            self._reject(cand, cand.reject, cand.detail, raw)
        else:
            self._reject(cand, Reason.TOO_LARGE, f"the call grew past max_call_chars={limit}", raw)
        cand.closed = True
        cand.args = Parts()
        cand.raw_parts = RawText(cand.args)
        cand.pending = []

    def _reject(self, cand: Candidate, reason: str, detail: str, raw: str) -> None:
        if cand.started and cand.pending:
            self._flush_deltas(cand)  # what streamed so far, whatever the chunking (chunking invariance)
        if cand.index is None:
            cand.index = self.next_index
            self.next_index += 1
        self.stats.record_rejection(str(reason), cand.format)
        if log.isEnabledFor(DEBUG):  # (as in accept)
            log.debug(
                "call %r rejected: reason=%s format=%s fallback_used=%s detail=%s",
                cand.name,
                str(reason),
                cand.format,
                cand.fallback,
                detail,
            )
        args = cand.args.join() if reason == Reason.SCHEMA_VIOLATION else None
        event = ToolCallRejected(cand.index, str(reason), raw, cand.name, detail, cand.format, args, cand.started)
        cand.outcome = event
        cand.args_seen = cand.args if cand.started else None
        self.events.append(event)
