"""Text vLLM's own tool parsers drop, dropped the same way by the tool-parser adapter of that format.

The adapter is a drop-in: where the engine's parser for a family does not hand some of the model's text on
as content, neither does the adapter of that family (an operator who swaps parsers keeps the engine's
contract). :class:`~streamparse.StreamParser` itself still reports every character; only the adapter's
session filters its text events, and logs what it dropped at debug level. docs/integrations.md lists each
convention with the engine parser it follows.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from streamparse import StreamParser, TextDelta, ToolCallEnd, ToolCallRejected, ToolCallStart
from streamparse.events import Event

from .session import Piece, RequestSession

log = logging.getLogger("streamparse.integrations.vllm")


@dataclass(frozen=True, slots=True)
class Drops:
    """What a family's engine parser leaves out of the content."""

    after_calls: Literal["keep", "stream", "one_shot"] = "keep"
    """Text after the first call: dropped while streaming and in one piece (``stream``: Kimi K2's parser
    stays in its tool state after the section closes), or in one piece only (``one_shot``: DeepSeek V3.1's
    content is the text before its calls section; its streaming path hands the rest on)."""
    all_with_calls: bool = False
    """In one piece, no content at all once a call was read, and the output as written when none was
    (Llama 3 JSON: ``content=None`` with calls; a rejected object stays in the text, never a call)."""
    names_written: bool = False
    """No tools in the request: the engine parser checks no names (Llama 3 JSON reads any object with a
    ``name`` anywhere in the output). streamparse reads a call object after prose only if it names a tool,
    so in one piece the names the output itself writes (``"name": "..."``) are the tools, with no schema:
    :func:`written_names`."""
    echo_end: str | None = None
    """LFM2 repeats a call's body after the call, capped by a second end marker: text after a call that
    starts like markup (``[`` or ``<``) is held (bounded), and dropped through that orphan end marker if one
    comes, as vLLM's LFM2 parser does."""


# The tool parsers of vLLM 0.33 whose conventions the adapter of the same format follows.
DROPS: dict[str, Drops] = {
    "kimi_k2": Drops(after_calls="stream"),
    "deepseek_v31": Drops(after_calls="one_shot"),
    "llama3_json": Drops(all_with_calls=True, names_written=True),
    "pythonic": Drops(echo_end="<|tool_call_end|>"),  # LFM2 wraps its pythonic list in these tokens
}
LFM2_MARKERS = ("<|tool_call_start|>", "<|tool_call_end|>")
ECHO_MIN_HOLD = 256  # characters: an echo is the call's body again; past twice that (or this), it is text


def drops_for(format_names: Sequence[str] | None, vocab: Any = None) -> Drops | None:
    """The convention of a single-format adapter (the multi-format parser keeps every character). The echo
    rule is LFM2's: it applies where the tokenizer has LFM2's markers (vLLM's LFM2 parser requires them)."""
    drops = DROPS.get(format_names[0]) if format_names is not None and len(format_names) == 1 else None
    if drops is not None and drops.echo_end is not None and not all(m in (vocab or {}) for m in LFM2_MARKERS):
        drops = replace(drops, echo_end=None)
    return drops if drops != Drops() else None


# A JSON string after a "name" key: one linear pass over the output (no backtracking across quotes).
_NAME = re.compile(r'"name"\s*:\s*("(?:[^"\\\n]|\\.)*")')


def written_names(model_output: str) -> list[dict[str, Any]] | None:
    """The tools a whole output names (``"name": "..."``), as tool specs without a schema; ``None`` if none."""
    names: dict[str, None] = {}
    for m in _NAME.finditer(model_output):
        try:
            name = json.loads(m.group(1))
        except ValueError:
            continue
        if isinstance(name, str) and name:
            names[name] = None
    return [{"type": "function", "function": {"name": n, "parameters": {}}} for n in names] or None


class DroppingSession(RequestSession):
    """A :class:`RequestSession` whose text events follow the engine parser's :class:`Drops`."""

    def __init__(
        self, parser: StreamParser, drops: Drops, one_shot: bool, new_id: Callable[[str, str], str] | None = None
    ) -> None:
        super().__init__(parser, new_id)
        self._drops = drops
        self._after_calls = drops.after_calls == "stream" or (one_shot and drops.after_calls == "one_shot")
        self._called = False
        self._watching = False  # after an LFM2 call: the text that follows may be its echo
        self._held: list[str] = []
        self._hold_cap = 0
        self._final = False

    def finish(self, reason: str | None = "stop") -> Piece | None:
        self._final = True
        piece = super().finish(reason)  # the held text is released with the close's events
        if piece is None and self._held:
            piece = super()._piece([TextDelta(self._release())])
        return piece

    def _piece(self, events: list[Event]) -> Piece | None:
        return super()._piece(self._filter(events))

    def _filter(self, events: list[Event]) -> list[Event]:
        out: list[Event] = []
        for ev in events:
            if not isinstance(ev, TextDelta):
                self._flush(out)
                self._called = self._called or isinstance(ev, ToolCallStart | ToolCallRejected)
                out.append(ev)
                end = self._drops.echo_end
                if end is not None and isinstance(ev, ToolCallEnd):
                    self._watching, self._hold_cap = True, max(2 * len(ev.call.raw), ECHO_MIN_HOLD)
            elif self._after_calls and self._called:
                if ev.text:
                    log.debug("text after the calls dropped, as the engine's parser drops it: %r", ev.text)
            elif self._watching:
                self._echo(ev.text, out)
            else:
                out.append(ev)
        if self._final:
            self._flush(out)
        return out

    def _echo(self, text: str, out: list[Event]) -> None:
        """Hold text after an LFM2 call while it may be the call's body echoed; pass on what is text."""
        self._held.append(text)
        held = "".join(self._held)
        end = self._drops.echo_end or ""
        at = held.rfind(end)
        if at >= 0:
            log.debug("an echoed call body dropped, as the engine's parser drops it: %r", held[: at + len(end)])
            held = held[at + len(end) :]
            self._held = [held]
        lead = held.lstrip()[:1]
        if len(held) > self._hold_cap or lead not in ("", "[", "<"):
            self._flush(out)

    def _flush(self, out: list[Event]) -> None:
        self._watching = False
        text = self._release()
        if text:
            out.append(TextDelta(text))

    def _release(self) -> str:
        text = "".join(self._held)
        self._held = []
        return text
