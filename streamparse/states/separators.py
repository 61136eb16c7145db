"""Exact output: content and reasoning are the message fields the template was given.

A chat template writes separator whitespace around its markup (``<think>\\n``, ``\\n</think>\\n\\n``,
``\\n\\n<tool_call>``, a newline between calls or after a call before text). That whitespace is neither
the model's content nor its reasoning, so each channel (visible text, reasoning) drops

- whitespace at the start of the output and right after markup (``lead``), and
- whitespace right before markup or the end of the output (``held``).

Streaming keeps earliest release: a whitespace run at the end of released text is held, nothing else, and
only until the next character (then it is content, released with it) or marker (then it was a separator)
decides it. A run longer than :data:`HOLD_LIMIT` is content whatever follows, so what is held stays
bounded; the decision depends only on the run, never on the chunking.

Visible text that resumes after markup, once text was released, is joined to it by the lightest form of
the separator that was dropped between them: a newline if it held one, else a space if it held any
whitespace (its first tab or carriage return when it held no space), else nothing. So ``text, call, text``
neither glues two sentences together nor keeps the template's blank lines.

The engine calls :meth:`Separators.markup` when it consumes markup: a marker a text-scope handler took
(control tokens, reasoning delimiters, channel headers) and the start of every call.
``StreamParser(separators="keep")`` leaves all whitespace in the content.
"""

from __future__ import annotations

from typing import Final, Literal

from ..core.lookahead import LOOKAHEAD
from ..core.output import SEP_WS

SeparatorsOption = Literal["drop", "keep"]
SEPARATORS: tuple[SeparatorsOption, ...] = ("drop", "keep")
HOLD_LIMIT: Final = LOOKAHEAD  # a whitespace run longer than this is content (bounded hold)


class _Channel:
    """One content channel's separator state. ``idle``: nothing held, not at a segment's start, not in a
    long run, so a piece that does not end in whitespace is released as it is (the engine's fast path)."""

    __slots__ = ("lead", "held", "long", "released", "join", "gap", "idle")

    def __init__(self, join: bool) -> None:
        self.lead = True  # at the start of a segment: leading whitespace is a separator
        self.held = ""  # trailing whitespace not decided yet
        self.long = False  # inside a whitespace run already released as content (longer than HOLD_LIMIT)
        self.released = False  # this channel released content (a later segment is joined to it)
        self.join = join
        self.gap = ""  # the joiner the whitespace dropped since the last release calls for
        self.idle = False

    def text(self, text: str) -> str:
        """What of ``text`` (the next piece of this channel's content) is released now."""
        if text[-1] not in SEP_WS and not (self.lead or self.long):  # the common case: release what was held
            held = self.held
            self.held = ""
            self.idle = self.released = True
            return held + text if held else text
        if self.lead:
            body = text.lstrip(SEP_WS)
            if self.join and len(body) < len(text):
                self._widen(text[: len(text) - len(body)])
            if not body:
                return ""
            self.lead = False
            text = self.gap + body if self.released else body
            self.gap = ""
        elif self.long:
            if not text.strip(SEP_WS):
                return text
            self.long = False
        held = self.held
        if held:
            text = held + text
        body = text.rstrip(SEP_WS)
        n = len(text) - len(body)
        if n > HOLD_LIMIT:
            self.held = ""
            self.long = True
            self.released = True
            self.idle = False
            return text
        self.held = text[len(body) :] if n else ""
        self.idle = not n
        if body:
            self.released = True
        return body

    def widen(self, dropped: str) -> None:
        """``dropped`` was separator whitespace (the layout of markup): the joiner accounts for it."""
        self._widen(dropped)

    def _widen(self, dropped: str) -> None:
        # A newline, else a space, else the first blank dropped (a tab): the joiner is a character of the input,
        # and the same whatever the chunking (the order of preference, not of arrival, decides).
        if "\n" in dropped:
            self.gap = "\n"
        elif " " in dropped and self.gap != "\n":
            self.gap = " "
        elif not self.gap:
            self.gap = dropped[0]

    def markup(self) -> None:
        if self.held and self.join:
            self._widen(self.held)
        self.held = ""
        self.long = False
        self.lead = True
        self.idle = False


class Separators(_Channel):
    """The engine's exact-output policy (``core.engine.TextRelease``) for one stream: itself the visible-text
    channel (so the engine's fast path reads ``idle`` and calls ``text`` directly), with a reasoning channel."""

    __slots__ = ("_reasoning",)

    def __init__(self) -> None:
        super().__init__(join=True)
        self._reasoning = _Channel(join=False)  # reasoning segments are joined by the reasoning rule

    def reason(self, text: str) -> str:
        return self._reasoning.text(text)

    def markup(self) -> None:
        super().markup()
        self._reasoning.markup()

    def at_lead(self, reasoning: bool) -> bool:
        """At the start of a segment of that channel (nothing but separators since the last markup)."""
        return (self._reasoning if reasoning else self).lead

    def forget_text(self) -> None:
        """The visible text released so far was reasoning (an orphan ``</think>``): nothing to join to."""
        self.released = False
        self.gap = ""
