"""How content leaves the engine: visible text and reasoning as events, through the exact-output policy.

A mixin of :class:`~streamparse.core.engine.Engine`: the separator whitespace a template writes around
markup is held by the policy (``states/separators.py``, the :class:`TextRelease` protocol) until the next
character or marker decides it; the orphan-closer and reasoning-segment rules live here too.
"""

from __future__ import annotations

from typing import Final, Protocol

from ..events import Event, TextWasReasoning
from .constructors import reasoning_delta, text_delta

__all__ = ["SEP_WS", "TextRelease", "TextOutput"]

SEP_WS: Final = " \t\r\n"  # separator whitespace (exact output): what templates write around markers


class TextRelease(Protocol):
    """What content is released when (exact output, ``states/separators.py``): separator whitespace around
    markup is held until the next character or marker decides it. ``idle``: a text chunk that does not end
    in whitespace is released as it is."""

    idle: bool

    def text(self, text: str) -> str: ...

    def reason(self, text: str) -> str: ...

    def markup(self) -> None: ...


class TextOutput:
    """Mixin: the content channel of the engine (visible text, reasoning) and its counters."""

    sep: TextRelease | None
    events: list[Event]
    seen_output: bool
    released: int
    reasoning_seen: bool
    orphan_window: bool
    buf: str

    def output_began(self) -> None:
        """The first visible text (FastPaths', which re-arms the text search)."""
        raise NotImplementedError

    def line_start(self, s: int) -> bool:
        """True when only up to three spaces stand between ``s`` and the previous newline (or output start)."""
        buf = self.buf
        i = s - 1
        spaces = 0
        while i >= 0 and buf[i] == " " and spaces < 4:
            i -= 1
            spaces += 1
        return spaces <= 3 and (i < 0 or buf[i] == "\n")

    def content(self, reasoning: bool, text: str) -> None:
        if reasoning:
            self.reason(text)
        else:
            self.text(text)

    def text(self, text: str) -> None:
        if text:
            self.events += self.release_text(text)

    def release_text(self, text: str) -> list[Event]:
        """Visible text as events, through the separator policy (exact output): the fast paths return them,
        the states' ``text`` appends them."""
        sep = self.sep
        if sep is not None and text:
            text = sep.text(text)
        if not text:
            return []
        if not self.seen_output and not text.isspace():
            self.output_began()
        self.released += len(text)
        return [text_delta(text)]

    def reason(self, text: str) -> None:
        sep = self.sep
        if sep is not None and text:
            text = sep.reason(text)
        if text:
            self.reasoning_seen = True
            self.orphan_window = False
            self.events.append(reasoning_delta(text))

    def orphan_closer(self) -> None:
        """An orphan ``</think>`` (reasoning rule): the visible text released so far was reasoning."""
        if self.orphan_window and self.seen_output:
            self.events.append(TextWasReasoning(self.released))
            self.reasoning_seen = True
            self.seen_output = False  # the output proper starts after the closer
        self.orphan_window = False

    def begin_reasoning_segment(self) -> None:
        """reasoning rule: reasoning segments are joined with a newline."""
        if self.reasoning_seen:
            self.events.append(reasoning_delta("\n"))
