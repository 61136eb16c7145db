""":class:`Parts`: text appended piece by piece and joined once, in memory close to the text's own size.

A call's arguments and raw markup arrive in pieces as small as one character. Kept in a plain list, every
piece costs a string object and a list slot (about 60 bytes for a 2-character piece); kept here, pieces are
joined in groups of :data:`FAN` as they come and the groups are joined again a level up, so at most
``FAN - 1`` strings wait on each level and the overhead stays a few kilobytes whatever the chunking. The
top level (:data:`LEVELS`) only collects blocks of ``FAN ** LEVELS`` pieces and never joins them, so no
step copies more than one such block at a time (a join of everything would briefly double the memory),
and each character is copied at most ``LEVELS`` times.
"""

from __future__ import annotations

__all__ = ["FAN", "LEVELS", "Parts"]

FAN = 32
LEVELS = 3


class Parts:
    """``append(piece)``, ``join() -> str``; truthy once anything (even ``""``) was appended."""

    __slots__ = ("tail", "levels", "tap")

    def __init__(self) -> None:
        self.tail: list[str] = []  # the newest pieces, as appended
        self.levels: list[list[str]] = []  # levels[k]: joins of FAN strings of level k-1 (older than level k-1)
        # Pieces appended since a reader last took them (running snapshots, StreamParser.snapshot): set by
        # the reader, so nothing is spent on it unless snapshots are asked for.
        self.tap: Parts | None = None

    def append(self, piece: str) -> None:
        if self.tap is not None:
            self.tap.append(piece)
        tail = self.tail
        tail.append(piece)
        if len(tail) >= FAN:
            self._carry()

    def _carry(self) -> None:
        block = "".join(self.tail)
        self.tail = []
        levels = self.levels
        for k, level in enumerate(levels):
            level.append(block)
            if len(level) < FAN or k == LEVELS - 1:
                return
            block = "".join(level)
            level.clear()
        levels.append([block])

    def join(self) -> str:
        parts = [s for level in reversed(self.levels) for s in level]
        parts += self.tail
        return parts[0] if len(parts) == 1 else "".join(parts)

    def __bool__(self) -> bool:
        return bool(self.tail) or any(self.levels)
