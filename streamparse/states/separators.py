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
whitespace, else nothing. So ``text, call, text`` neither glues two sentences together nor keeps the
template's blank lines.

The engine calls :meth:`Separators.markup` when it consumes markup: a marker a text-scope handler took
(control tokens, reasoning delimiters, channel headers) and the start of every call.
``StreamParser(separators="keep")`` leaves all whitespace in the content.
"""

from __future__ import annotations

from typing import Literal

from ..core.engine import SEP_WS
from ..core.lookahead import LOOKAHEAD

SeparatorsOption = Literal["drop", "keep"]
SEPARATORS: tuple[SeparatorsOption, ...] = ("drop", "keep")
HOLD_LIMIT = LOOKAHEAD  # a whitespace run longer than this is content (bounded hold)


class _Channel:
    """One content channel's separator state."""

    __slots__ = ("lead", "held", "long", "released", "join", "gap")

    def __init__(self, join: bool) -> None:
        self.lead = True  # at the start of a segment: leading whitespace is a separator
        self.held = ""  # trailing whitespace not decided yet
        self.long = False  # inside a whitespace run already released as content (longer than HOLD_LIMIT)
        self.released = False  # this channel released content (a later segment is joined to it)
        self.join = join
        self.gap = ""  # the joiner the whitespace dropped since the last release calls for

    def take(self, text: str) -> str:
        """What of ``text`` (the next piece of this channel's content) is released now."""
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
        whole = self.held + text if self.held else text
        body = whole.rstrip(SEP_WS)
        if len(whole) - len(body) > HOLD_LIMIT:
            self.held = ""
            self.long = True
            self.released = True
            return whole
        self.held = whole[len(body) :]
        if body:
            self.released = True
        return body

    def _widen(self, dropped: str) -> None:
        if "\n" in dropped:
            self.gap = "\n"
        elif not self.gap:
            self.gap = " "

    def markup(self) -> None:
        if self.held and self.join:
            self._widen(self.held)
        self.held = ""
        self.long = False
        self.lead = True


class Separators:
    """The engine's exact-output policy (``core.engine.TextRelease``) for one stream."""

    __slots__ = ("_text", "_reasoning", "pieces")

    def __init__(self) -> None:
        self._text = _Channel(join=True)
        self._reasoning = _Channel(join=False)  # reasoning segments are joined by the reasoning rule
        self.pieces = 0

    @property
    def idle(self) -> bool:
        t = self._text
        return not (t.lead or t.held or t.long)

    def text(self, text: str) -> str:
        self.pieces += 1
        return self._text.take(text)

    def reason(self, text: str) -> str:
        self.pieces += 1
        return self._reasoning.take(text)

    def markup(self) -> None:
        self._text.markup()
        self._reasoning.markup()

    def forget_text(self) -> None:
        """The visible text released so far was reasoning (an orphan ``</think>``): nothing to join to."""
        self._text.released = False
        self._text.gap = ""
