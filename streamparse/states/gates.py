"""How calls found by unmarked formats are treated: ``fallback_used`` and the gates of the
fail-closed fallback playbook.

``StreamParser(fallback=...)`` (docs/API.md):

- ``None`` (default): unmarked formats (bare json / envelope / xlam / llama3_json, tool_request form c,
  bare pythonic) are tried at the start of the output; when they are named in ``formats`` the JSON family
  is also tried at every line start (start rule). Calls found by a format that was not named have
  ``fallback_used=True``.
- ``"off"``: unmarked formats are tried only when named in ``formats``.
- ``"gated"``: unmarked formats that are not named are tried only behind the gates, all of
  which
  must pass:

  1. explicit intent: a line ``need_tool: yes`` (at a line start; ``true`` also accepted) or the word
     ``CALL_TOOL``, and the candidate follows it (after whitespace). The intent marker is markup: it is
     removed from the visible text. Without it, a would-be candidate is plain text.
  2. size: the candidate's markup is at most ``GATED_MAX_CHARS`` (2 KB), else ``too_large``.
  3. allowlist: ``tools`` must be given and name the tool (``unknown_tool`` otherwise).
  4. strict validation: the arguments must validate against the tool's schema (``validation == "pass"``).
  5. a single candidate in the whole output: with two or more, every gated candidate is rejected
     ``ambiguous``. So a gated call's ``ToolCallEnd`` is held until ``close()`` (its Start and deltas
     stream as usual): the one place where early completion (early completion) yields to fail-closed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ..core.calls import Candidate
from ..core.engine import Engine
from ..events import ToolCall
from ..rejections import Reason

GATED_MAX_CHARS: Final = 2048
FALLBACK_MODES: Final = (None, "start", "off", "gated")
INTENT_LINE: Final = "need_tool:"
INTENT_TOKEN: Final = "CALL_TOOL"
INTENT_YES: Final = ("yes", "true")


@dataclass
class GateBook:
    """Seed 003's single-candidate rule: gated calls are counted and their verdicts held until close."""

    count: int = 0
    held: list[tuple[Candidate, ToolCall]] = field(default_factory=list)

    def settle(self, eng: Engine) -> None:
        held, self.held = self.held, []
        for cand, call in held:
            if self.count == 1:
                eng.accept(cand, call)
            else:
                eng._reject(
                    cand,
                    Reason.AMBIGUOUS,
                    f"{self.count} fallback candidates in one output; re-emit in the primary format",
                    call.raw,
                )


@dataclass(frozen=True)
class Gate:
    """The context a start handler runs in: whether its calls are fallbacks, and the gates (if any)."""

    fallback: bool
    book: GateBook | None = None  # gated: the single-candidate rules apply

    @property
    def max_chars(self) -> int | None:
        """Most characters a candidate may be held under this gate (None: no gate's own bound)."""
        return GATED_MAX_CHARS if self.book is not None else None

    def begin(self, cand: Candidate) -> None:
        cand.fallback = cand.fallback or self.fallback
        if self.book is not None:
            cand.gate = self
            self.book.count += 1

    def defer(self, eng: Engine, cand: Candidate, call: ToolCall) -> bool:
        """A valid call under the gates: reject it now, or hold it for :meth:`GateBook.settle`. True when
        the engine must not emit it."""
        book = self.book
        if book is None:
            return False
        if eng.cfg.tools is None:
            eng._reject(cand, Reason.UNKNOWN_TOOL, "gated fallback: no tools were given, none is allowlisted", call.raw)
        elif len(call.raw) > GATED_MAX_CHARS:
            eng._reject(cand, Reason.TOO_LARGE, f"gated fallback: larger than {GATED_MAX_CHARS} chars", call.raw)
        else:
            book.held.append((cand, call))
        return True


START_FALLBACK: Final = Gate(fallback=True)
