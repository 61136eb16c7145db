""":class:`Parts`: text appended piece by piece and joined once, in memory close to the text's own size.

A call's arguments and raw markup arrive in pieces as small as one character. Kept in a plain list, every
piece costs a string object and a list slot (about 60 bytes for a 2-character piece); kept here, pieces are
joined in groups of :data:`FAN` as they come and the groups are joined again a level up, so at most
``FAN - 1`` strings wait on each level and the overhead stays a few kilobytes whatever the chunking. The
top level (:data:`LEVELS`) only collects; a level below it holds at most :data:`BLOCK` characters and sends
them up joined before a block would take it past that, so no step copies more than one such block at a
time (a join of everything would briefly double the memory, and the allocator keeps what a large
transient copy freed), the top level's strings are long whatever the chunking, and each character is
copied at most ``LEVELS`` times.

:class:`RawText` is a call's raw markup. Most of it is usually the arguments text itself (a JSON string
value read verbatim, or a tag value that the arguments carry JSON-escaped): such stretches are kept as
positions in the arguments' :class:`Parts`, not as a second copy, so a buffered call holds its text once.
"""

from __future__ import annotations

import json
from array import array
from json.encoder import encode_basestring  # the C string escaper json.dumps uses
from typing import Final

__all__ = ["BLOCK", "FAN", "LEVELS", "Parts", "RawText"]

FAN: Final = 32
LEVELS: Final = 3
# The most characters one join copies (a join briefly holds the text twice, and the allocator keeps what
# it freed): 16 KB, not 2 MB, at a 64-character chunking, whose text ends in 16 KB strings (0.4 % of
# overhead), not 2 KB ones (3 %).
BLOCK: Final = 1 << 14
SMALL_JOIN: Final = 1 << 12  # literal markup up to this many characters is joined whole by RawText.join


class Parts:
    """``append(piece)``, ``join() -> str``; truthy once anything (even ``""``) was appended."""

    __slots__ = ("tail", "levels", "sizes", "tap", "size")

    def __init__(self) -> None:
        self.size = 0  # characters appended so far
        self.tail: list[str] = []  # the newest pieces, as appended
        # levels[k]: joins of strings of level k-1 (older than level k-1); sizes[k]: characters held by
        # level k. Empty tuples until the first carry: most texts (a small call's arguments) never need a
        # level, and every call makes two Parts (four lists fewer a call: a third of a Candidate's cost).
        self.levels: list[list[str]] | tuple[()] = ()
        self.sizes: list[int] | tuple[()] = ()
        # Pieces appended since a reader last took them (running snapshots, StreamParser.snapshot): set by
        # the reader, so nothing is spent on it unless snapshots are asked for.
        self.tap: Parts | None = None

    def append(self, piece: str) -> None:
        if self.tap is not None:
            self.tap.append(piece)
        self.size += len(piece)
        tail = self.tail
        tail.append(piece)
        if len(tail) >= FAN:
            self._carry()

    def _carry(self) -> None:
        block = "".join(self.tail)
        self.tail = []
        self._push(0, block)

    def _push(self, k: int, block: str) -> None:
        """``block`` (the newest text) into level ``k``. Below the top a level holds fewer than FAN strings
        of at most BLOCK characters in all; a full one is joined into one string for the level above, a
        block that would take it past BLOCK first sends up what it holds (joined: one copy of at most BLOCK
        characters at a time), and a block as long as BLOCK goes up as it is."""
        levels, sizes = self.levels, self.sizes
        if not isinstance(levels, list) or not isinstance(sizes, list):  # the first carry
            levels, sizes = self.levels, self.sizes = [], []
        if k == len(levels):
            levels.append([])
            sizes.append(0)
        level = levels[k]
        if k == LEVELS - 1:
            level.append(block)
            return
        if level and sizes[k] + len(block) > BLOCK:
            held = level[0] if len(level) == 1 else "".join(level)
            level.clear()
            sizes[k] = 0
            self._push(k + 1, held)
        if len(block) >= BLOCK:
            self._push(k + 1, block)
            return
        level.append(block)
        sizes[k] += len(block)
        if len(level) >= FAN:
            held = "".join(level)
            level.clear()
            sizes[k] = 0
            self._push(k + 1, held)

    def pieces(self) -> list[str]:
        """The strings held, oldest first (their concatenation is ``join()``)."""
        parts = [s for level in reversed(self.levels) for s in level]
        parts += self.tail
        return parts

    def join(self) -> str:
        parts = self.pieces() if self.levels else self.tail  # (a short text: its pieces as appended)
        return parts[0] if len(parts) == 1 else "".join(parts)

    def __bool__(self) -> bool:
        return bool(self.tail) or any(self.levels)

    def keep(self, text: str) -> None:
        """``text`` is what ``join()`` gave: hold it as the one piece, so that the pieces go and whoever
        keeps ``text`` (a finished call's ``ToolCall``) shares it instead of a second copy."""
        if self:
            self.tail = [text]
            self.levels = self.sizes = ()


class RawText:
    """A call's raw markup: literal pieces (``append``) and stretches shared with the arguments.

    Between ``share()`` and the next ``append`` or ``unshare``, every piece appended to ``args`` is also the
    next stretch of raw markup: verbatim, or (``escaped``) JSON-escaped, i.e. the raw text is
    ``json.loads('"' + piece + '"')``. Whoever appends arguments that are not also markup calls
    ``unshare`` first.
    """

    __slots__ = ("lit", "args", "spans", "run", "run_escaped")

    def __init__(self, args: Parts) -> None:
        self.lit = Parts()
        self.args = args
        # Shared stretches in order, four numbers each (flat: 32 bytes a stretch, not a tuple of objects):
        # the position in ``lit`` where it stands, its start and end in the arguments, escaped (0/1). None
        # until the first stretch: most calls' markup is never shared (an array costs ~0.3 µs a call).
        self.spans: array[int] | None = None
        self.run = -1  # ``args.size`` where the open shared stretch began; -1: none open
        self.run_escaped = False

    def append(self, piece: str) -> None:
        if self.run >= 0:
            self.unshare()
        lit = self.lit  # (Parts.append, inlined: this is once per slow feed of an open call)
        lit.size += len(piece)
        tail = lit.tail
        tail.append(piece)
        if len(tail) >= FAN:
            lit._carry()

    def share(self, escaped: bool = False) -> None:
        if self.run >= 0:
            if self.run_escaped == escaped:
                return
            self.unshare()
        self.run = self.args.size
        self.run_escaped = escaped

    def unshare(self) -> None:
        start = self.run
        if start < 0:
            return
        end = self.args.size
        if end > start:
            spans = self.spans
            if spans is None:
                spans = self.spans = array("q")
            at = self.lit.size
            escaped = int(self.run_escaped)
            if spans and spans[-4] == at and spans[-2] == start and spans[-1] == escaped:
                spans[-2] = end  # continues the previous stretch
            else:
                spans.extend((at, start, end, escaped))
        self.run = -1

    def rejoin(self, piece: str, text: str) -> bool:
        """``piece``, markup just consumed, follows a short literal that follows an escaped stretch, and the
        two are together the markup of ``text``, the arguments appended since that stretch (JSON-escaped):
        drop the literal and extend the stretch over ``text``. A tag value's newline, held by its state
        until the next character says it is not the value's last, comes back to the stretch this way
        instead of splitting it (32 bytes a stretch: with a newline every line, half a byte a character)."""
        lit = self.lit
        tail = lit.tail
        if not tail:
            return False
        last = tail[-1]
        spans = self.spans
        if not spans:
            return False
        end = self.args.size
        if len(last) > 2 or spans[-4] != lit.size - len(last) or spans[-2] != end - len(text):
            return False
        if encode_basestring(last + piece)[1:-1] != text:
            return False
        tail.pop()
        lit.size -= len(last)
        spans[-2] = end
        return True

    def join(self, args_text: str | None = None) -> str:
        """The raw markup; ``args_text`` is ``args.join()`` when the caller has it (saves a copy)."""
        if self.run >= 0:
            self.unshare()
        spans = self.spans
        if not spans:
            return self.lit.join()
        if args_text is None:
            args_text = self.args.join()
        out: list[str] = []
        if self.lit.size <= SMALL_JOIN:
            # Little literal text (a small call's markup): joined once, then cut at each stretch, in a few
            # steps per stretch rather than per literal piece; the copy is small by definition.
            lit = self.lit.join()
            if len(spans) == 4:  # one stretch (the commonest small call): cut around it, in one step
                at, start, end, escaped = spans
                piece = args_text[start:end]
                return lit[:at] + (json.loads('"' + piece + '"') if escaped else piece) + lit[at:]
            cut = 0
            for k in range(0, len(spans), 4):
                at = spans[k]
                if at > cut:
                    out.append(lit[cut:at])
                    cut = at
                out.append(_shared(args_text, spans, k))
            out.append(lit[cut:])
            return "".join(out)
        # The literal pieces as they are (cut only where a stretch stands inside one), so that no more than
        # the result is allocated on top of what is held.
        k, n = 0, len(spans)
        offset = 0
        for piece in self.lit.pieces():
            end = offset + len(piece)
            cut = 0
            while k < n and spans[k] <= end:
                at = spans[k] - offset
                if at > cut:
                    out.append(piece[cut:at])
                    cut = at
                out.append(_shared(args_text, spans, k))
                k += 4
            out.append(piece[cut:] if cut else piece)
            offset = end
        while k < n:  # stretches after all literal text (none held)
            out.append(_shared(args_text, spans, k))
            k += 4
        return "".join(out)

    def __bool__(self) -> bool:
        return bool(self.lit) or bool(self.spans) or (self.run >= 0 and self.args.size > self.run)

    def keep(self, raw: str) -> None:
        """The markup is now ``raw`` (a finished call's, its closer included): held once, as literal text
        that its ``ToolCall`` shares, instead of the pieces and stretches it was joined from."""
        lit = self.lit
        lit.tail = [raw]
        lit.levels = lit.sizes = ()
        lit.size = len(raw)
        self.spans = None
        self.run = -1


def _shared(args_text: str, spans: array[int], k: int) -> str:
    piece = args_text[spans[k + 1] : spans[k + 2]]
    return json.loads('"' + piece + '"') if spans[k + 3] else piece
