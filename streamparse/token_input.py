"""Token-id input: a marker that is a special (added) token counts only when it arrives as that token.

Given the tokenizer's table of special tokens once (``{id: text}``), :class:`TokenGuard` takes the output as
``(token id, text)`` pieces. Text from any other token is plain: where the characters of a special token
appear in it (a user's ``<tool_call>`` echoed as ordinary tokens), one invisible separator (``GUARD``, a
Unicode noncharacter) goes after their first character, so no marker matches there, and :meth:`clean`
removes it again from every event. The same characters arriving as the special token id pass unchanged.

Plain text is scanned once: a compiled alternation finds the special texts, and only a tail that may still
grow into one (shorter than the longest special text) is held until the next piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any

from .events import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRejected,
    ToolCallStart,
)

__all__ = ["GUARD", "TokenGuard"]

GUARD = "\uffff"  # a noncharacter: not text a model writes, kept as is by the JSON writers (ensure_ascii=False)


class TokenGuard:
    """Neutralises special-token texts that arrive as plain text; see the module docstring."""

    __slots__ = ("ids", "_find", "_prefixes", "_longest", "_pending")

    def __init__(self, special_tokens: Mapping[int, str]) -> None:
        self.ids = frozenset(i for i, t in special_tokens.items() if t)
        # A server builds one parser per request with the same table: the compiled parts are shared.
        self._find, self._prefixes, self._longest = _compile(
            tuple(sorted({t for t in special_tokens.values() if len(t) > 1}))
        )
        self._pending = ""

    def text(self, pieces: Iterable[tuple[int | None, str]]) -> str:
        """The text to feed for these pieces (held plain tails included once they are decided)."""
        out: list[str] = []
        for token_id, piece in pieces:
            if token_id is not None and token_id in self.ids:
                out.append(self.flush())  # a held tail cannot grow into a special text across a special token
                out.append(piece)
            elif piece:
                out.append(self._plain(piece))
        return "".join(out)

    def flush(self) -> str:
        """End of stream (or a special token next): the held plain tail, as text."""
        tail, self._pending = self._pending, ""
        return self._neutral(tail)[0]

    def _plain(self, piece: str) -> str:
        text = self._pending + piece
        guarded, last_end = self._neutral(text)
        # Hold the longest tail after the last whole occurrence that may still grow into a special text.
        hold = 0
        for k in range(min(len(text) - last_end, self._longest - 1), 0, -1):
            if text[-k:] in self._prefixes:
                hold = k
                break
        if not hold:
            self._pending = ""
            return guarded
        self._pending = text[-hold:]
        return guarded[:-hold]  # the held tail holds no GUARD: it starts after the last occurrence

    def _neutral(self, text: str) -> tuple[str, int]:
        """``text`` with a GUARD after the first character of each special text in it; the end of the last."""
        if not text or not self._longest:
            return text, 0
        out: list[str] = []
        pos = last_end = 0
        find = self._find
        while (m := find(text, pos)) is not None:
            s = m.start()
            last_end = m.end()
            out.append(text[pos : s + 1])
            out.append(GUARD)
            out.append(text[s + 1 : last_end])
            pos = last_end
        out.append(text[pos:])
        return "".join(out), last_end

    @staticmethod
    def clean(events: list[Event]) -> list[Event]:
        """The events with every ``GUARD`` removed (only events that carry one are rebuilt)."""
        return [_clean(ev) for ev in events]


@lru_cache(maxsize=32)
def _compile(texts: tuple[str, ...]) -> tuple[Callable[[str, int], re.Match[str] | None], frozenset[str], int]:
    pattern = "|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True)) or "(?!)"
    prefixes = frozenset(t[:k] for t in texts for k in range(1, len(t)))
    return re.compile(pattern).search, prefixes, max((len(t) for t in texts), default=0)


def _strip(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(GUARD, "") if GUARD in value else value
    if isinstance(value, dict):
        return {_strip(k): _strip(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _clean(ev: Event) -> Event:
    if isinstance(ev, TextDelta | ReasoningDelta):
        return ev if GUARD not in ev.text else replace(ev, text=ev.text.replace(GUARD, ""))
    if isinstance(ev, ToolCallDelta):
        return ev if GUARD not in ev.arguments else replace(ev, arguments=ev.arguments.replace(GUARD, ""))
    if isinstance(ev, ToolCallStart):
        return ev if GUARD not in ev.name else replace(ev, name=ev.name.replace(GUARD, ""))
    if isinstance(ev, ToolCallRejected):
        if GUARD not in ev.raw and GUARD not in (ev.name or "") and GUARD not in ev.detail:
            return ev
        return replace(ev, raw=_strip(ev.raw), name=_strip(ev.name), detail=_strip(ev.detail))
    if isinstance(ev, ToolCallEnd):
        call: ToolCall = ev.call
        if GUARD not in call.raw and GUARD not in call.arguments_json and GUARD not in call.name:
            return ev
        fixed = replace(
            call,
            name=_strip(call.name),
            arguments=_strip(call.arguments),
            arguments_json=_strip(call.arguments_json),
            raw=_strip(call.raw),
        )
        return replace(ev, call=fixed)
    return ev
