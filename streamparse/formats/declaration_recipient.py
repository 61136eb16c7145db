"""The declaration vocabulary for message-structured output: messages with a header and a body.

Some models write their turn as a series of messages, each with a header naming where it goes and a
body: gpt-oss (harmony) writes ``<|start|>assistant<|channel|>analysis<|message|>...<|end|>`` and
``<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>{ARGS}<|call|>``; Muse Glimmer
``<|start|>assistant to=self<|message|>...<|eom|>``; Functionary v3.2 ``>>>all\\n...`` and
``>>>NAME\\n{ARGS}``. :class:`Messages` says how such a header is written and what each kind of message
is (reasoning, visible text, a call); :class:`RecipientName` says that a call's name is the recipient of
its message (then the body is the call's JSON arguments). Without it the header is markup and the body is
read as text, in which calls are found by their own markers (Muse's ``<atem:function_calls>``).

Like the rest of the vocabulary (:mod:`.declaration`), these are frozen, validated on construction and
round-trip through plain JSON data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .declaration_base import Part, check_bool, check_end, check_marker, check_spellings, check_text, fail

__all__ = ["Messages", "RecipientName", "check_messages"]

_WORD_MAX = 64


def _check_words(path: str, words: object) -> None:
    if not isinstance(words, tuple):
        raise fail(path, "must be a list of words")
    for i, w in enumerate(words):
        if not isinstance(w, str) or not w or len(w) > _WORD_MAX or any(c.isspace() or c in "<>" for c in w):
            raise fail(f"{path}[{i}]", f"must be one word (no blanks, no '<' or '>'), got {w!r}")


@dataclass(frozen=True)
class Messages(Part):
    """Output written as messages: ``open`` HEADER ``body`` BODY [one of ``ends``].

    The header holds, in any order with other words (a role, a content type), the recipient after
    ``recipient`` (``to=``) and the channel after ``channel`` (``<|channel|>``); with ``recipient`` empty
    the whole header is the recipient (Functionary's ``>>>NAME\\n``). ``also_open``: other markers that
    begin a header and are part of it (harmony's ``<|channel|>final<|message|>``, a header without a
    role). A body ends at one of ``ends`` (where a new header or the end of the output follows, so a body
    that mentions them keeps them), at the next header, or at the end of the output.

    What a message is: reasoning when its channel or its recipient is one of ``reasoning_words``
    (``analysis``; Muse's ``self``); visible text when it has no recipient or one of ``text_words`` (``all``,
    ``user``); otherwise a call message (see :class:`RecipientName`). ``primed``: the generation prompt
    writes ``open`` (and the role), so the output starts inside the first header.
    """

    open: str
    body: str
    also_open: tuple[str, ...] = ()
    recipient: str = ""
    channel: str = ""
    ends: tuple[str, ...] = ()
    reasoning_words: tuple[str, ...] = ()
    text_words: tuple[str, ...] = ()
    primed: bool = False

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open)
        check_end(path + "body", self.body)
        if self.body == self.open:
            raise fail(path + "body", "must differ from open")
        check_spellings(path + "also_open", self.also_open, self.open)
        if self.body in self.also_open:
            raise fail(path + "also_open", "must not hold the body marker")
        check_text(path + "recipient", self.recipient)
        if self.recipient and (self.recipient[0].isspace() or len(self.recipient) > _WORD_MAX):
            raise fail(path + "recipient", f"must be a short marker, got {self.recipient!r}")
        check_marker(path + "channel", self.channel, empty=True)
        if not self.recipient and self.channel:
            raise fail(path + "channel", "a header that is its recipient alone holds no channel")
        check_spellings(path + "ends", self.ends, self.open)
        if self.body in self.ends:
            raise fail(path + "ends", "must not hold the body marker")
        _check_words(path + "reasoning_words", self.reasoning_words)
        _check_words(path + "text_words", self.text_words)
        both = set(self.reasoning_words) & set(self.text_words)
        if both:
            raise fail(path + "text_words", f"{sorted(both)[0]!r} is also a reasoning word")
        if not self.recipient and not self.text_words:
            raise fail(path + "text_words", "a header that is its recipient alone needs the recipients meaning text")
        check_bool(path + "primed", self.primed)

    def openers(self) -> tuple[str, ...]:
        """Every marker that begins a header."""
        return (self.open, *self.also_open)

    def markers(self) -> list[tuple[str, str]]:
        """(field, marker) of the markers the visible-text scope sees: the header openers."""
        return [("open", self.open), *((f"also_open[{i}]", m) for i, m in enumerate(self.also_open))]


@dataclass(frozen=True)
class RecipientName(Part):
    """The call's name is the recipient of its message (:class:`Messages`), after ``prefix``
    (harmony's ``functions.``) and the body holds its JSON arguments. A recipient without the prefix
    names a built-in tool: a call only when the tool is declared, else rejected as unknown."""

    prefix: str = ""

    kind: ClassVar[str] = "recipient"

    def check(self, path: str) -> None:
        check_text(path + "prefix", self.prefix)
        if any(c.isspace() for c in self.prefix) or len(self.prefix) > _WORD_MAX:
            raise fail(path + "prefix", f"must be a short word, got {self.prefix!r}")


def check_messages(messages: object, recipient_named: bool, section: bool) -> None:
    """The declaration's ``messages``: a :class:`Messages` or None; a recipient-named call needs one
    (and no section: each call is a message of its own)."""
    if recipient_named and section:
        raise fail("section", "a call named by its message's recipient is a message of its own, in no section")
    if messages is None:
        if recipient_named:
            raise fail("call.name", "a recipient names the call only in messages: declare messages")
        return
    if not isinstance(messages, Messages):
        raise fail("messages", "must be a Messages")
    messages.check("messages.")
    if recipient_named and not messages.recipient and not messages.text_words:
        raise fail("messages.text_words", "recipients that mean text are needed to tell a call from text")
