"""Newlines a tokenizer decodes as the two characters ``\\`` ``n`` (MiniCPM-V: vLLM's minicpmv parser).

MiniCPM-V's tokenizer has a token (id 1639) that decodes to a backslash and ``n`` where the model means a
newline. vLLM's minicpmv reasoning parser turns them back into newlines in the reasoning and the visible
text, never in call arguments (JSON, where ``\\n`` means what it says), and leaves alone what is code or
math: a fenced block or inline code span (backticks), LaTeX between ``$``/``$$``, ``\\(``...``\\)`` and
``\\[``...``\\]``, and any run of two or more backslashes. ``\\r\\n``, ``\\n`` and ``\\r`` each become one
newline.

:class:`EscapedNewlines` applies that to a stream of events, each channel (visible text, reasoning) on its
own. A piece that could still be the start of an escape or a span's closer (at most three characters) is
held until the next piece or the end decides it, so every chunking gives the same text. The reasoning
channel is finished when visible text or a call follows it; ``TextWasReasoning`` counts the text this
filter released. ``StreamParser(escaped_newlines=True)`` uses it; the MiniCPM-V preset sets it.
"""

from __future__ import annotations

import re
from typing import Final

from ..events import Event, ReasoningDelta, TextDelta, TextWasReasoning
from ..states.separators import Separators

__all__ = ["EscapedNewlines", "Unescaper"]

# What opens a span left as written, longest first, and what closes it.
_SPANS: Final = (("```", "```"), ("`", "`"), ("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_NEWLINES: Final = ("\\r\\n", "\\n", "\\r")
_SPECIAL: Final = re.compile(r"[\\`$]")


class Unescaper:
    """One channel: text in, text with its escaped newlines recovered out (see the module docstring)."""

    __slots__ = ("closer", "held", "in_run")

    def __init__(self) -> None:
        self.closer: str | None = None  # inside a span: the marker that ends it
        self.held = ""  # a tail that the next piece decides
        self.in_run = False  # the last piece ended in a run of backslashes, which the next may continue

    def feed(self, text: str, final: bool = False) -> str:
        text = self.held + text
        self.held = ""
        out: list[str] = []
        i, n = 0, len(text)
        if self.in_run:  # a doubled escape continued: written on purpose, like its start
            i = len(text) - len(text.lstrip("\\"))
            out.append(text[:i])
            self.in_run = i == n
        while i < n:
            closer = self.closer
            if closer is not None:
                j = text.find(closer, i)
                if j >= 0:
                    out.append(text[i : j + len(closer)])
                    i = j + len(closer)
                    self.closer = None
                    continue
                keep = _partial_tail(text, i, closer) if not final else 0
                out.append(text[i : n - keep])
                self.held = text[n - keep :]
                break
            j = _next_special(text, i)
            out.append(text[i:j])
            if j == n:
                break
            if not final and _undecided(text, j):
                self.held = text[j:]
                break
            i = j + self._special(text, j, out)
        if final and self.held:
            out.append(self.held)
            self.held = ""
        return "".join(out)

    def _special(self, text: str, j: int, out: list[str]) -> int:
        """Consume the special character at ``text[j]``; return how many characters it took."""
        if text[j] == "\\":
            k = j + 1
            while k < len(text) and text[k] == "\\":
                k += 1
            if k - j > 1:  # a doubled escape is written on purpose
                out.append(text[j:k])
                self.in_run = k == len(text)  # the next piece may continue it
                return k - j
            for esc in _NEWLINES:
                if text.startswith(esc, j):
                    out.append("\n")
                    return len(esc)
        for opener, closer in _SPANS:
            if text.startswith(opener, j):
                out.append(opener)
                self.closer = closer
                return len(opener)
        out.append(text[j])  # a lone backslash before anything else
        return 1


def _next_special(text: str, i: int) -> int:
    """The position of the next backslash, backtick or dollar sign at or after ``i`` (or ``len(text)``)."""
    m = _SPECIAL.search(text, i)
    return m.start() if m is not None else len(text)


def _undecided(text: str, j: int) -> bool:
    """Whether more text could change how the special character at ``text[j]`` (near the end) is read."""
    if len(text) - j > 3:
        return False
    rest = text[j:]
    return rest in ("\\", "\\r", "\\r\\", "`", "``", "$")


def _partial_tail(text: str, i: int, closer: str) -> int:
    """How many characters at the end of ``text[i:]`` could begin ``closer``."""
    for k in range(min(len(closer) - 1, len(text) - i), 0, -1):
        if closer.startswith(text[len(text) - k :]):
            return k
    return 0


class EscapedNewlines:
    """The stream filter: visible text and reasoning through their own :class:`Unescaper`, then (unless
    ``separators="keep"``) through the exact-output policy again (``states/separators.py``), since the
    template's separator newlines came as escapes the engine could not see: ``</think>\\n\\nAnswer`` gives
    ``Answer``. A switch of channel or any other event is markup to that policy."""

    __slots__ = ("text", "reasoning", "released", "sep", "last")

    def __init__(self, drop_separators: bool = True) -> None:
        self.text = Unescaper()
        self.reasoning = Unescaper()
        self.released = 0  # visible characters this filter released (TextWasReasoning counts them)
        self.sep = Separators() if drop_separators else None
        self.last: type[Event] | None = None  # the kind of the last event (a change of kind is markup)

    def events(self, events: list[Event], final: bool = False) -> list[Event]:
        out: list[Event] = []
        for ev in events:
            kind = type(ev)
            if kind is not ReasoningDelta:
                self._add(out, ReasoningDelta, self.reasoning.feed("", final=True))  # the reasoning is over
            if kind is not self.last and self.sep is not None:
                self.sep.markup()
            self.last = kind
            if isinstance(ev, ReasoningDelta):
                self._add(out, ReasoningDelta, self.reasoning.feed(ev.text))
            elif isinstance(ev, TextDelta):
                self._add(out, TextDelta, self.text.feed(ev.text))
            elif isinstance(ev, TextWasReasoning):
                self._add(out, TextDelta, self.text.feed("", final=True))
                self.text = Unescaper()  # that text was reasoning: its spans are over too
                if self.sep is not None:
                    self.sep.markup()
                    self.sep.forget_text()
                out.append(TextWasReasoning(self.released))
            else:
                out.append(ev)
        if final:
            self._add(out, ReasoningDelta, self.reasoning.feed("", final=True))
            self._add(out, TextDelta, self.text.feed("", final=True))
        return out

    def _add(self, out: list[Event], kind: type[TextDelta] | type[ReasoningDelta], text: str) -> None:
        sep = self.sep
        if sep is not None and text:
            text = sep.text(text) if kind is TextDelta else sep.reason(text)
        if text:
            if kind is TextDelta:
                self.released += len(text)
            out.append(kind(text))
