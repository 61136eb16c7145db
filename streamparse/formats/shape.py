"""Deciding what an unmarked candidate is while its JSON streams in: a call, an envelope, or text.

:class:`Shape` watches the candidate's top-level keys; :class:`~.family.Family` says what the active unmarked
formats allow. See :mod:`.unmarked` for how a candidate is held and released.
"""

from __future__ import annotations

import json
from typing import Final

from ..core.json_reader import STRING, JsonReader
from ..states.call_fields import ARGS_KEYS, NAME_KEYS

NEUTRAL_KEYS: Final = frozenset({"type", "id"})
ENVELOPE_KEYS: Final = frozenset({"toolCalls", "needsMoreWork"})
TEXT: Final = 1
CALL: Final = 2
ENVELOPE: Final = 3


# -- deciding what a candidate is ----------------------------------------------------------------------


class Shape:
    """JSON sink that classifies a candidate from its top-level keys (see the module docstring).

    ``verdict`` is 0 while undecided; ``at`` is the buffer position where the verdict was reached, so the
    hold cap is applied to the text, not to the chunking.
    """

    __slots__ = (
        "reader",
        "verdict",
        "at",
        "base",
        "role",
        "name",
        "name_depth",
        "args_depth",
        "args_ok",
        "args_key",
        "evidence",
        "in_fn",
        "envelope_ok",
        "name_keys",
        "args_keys",
        "fn_name",
    )

    def __init__(self, envelope_ok: bool, fields: tuple[str, tuple[str, ...]] | None = None, nested: str = "") -> None:
        self.reader = JsonReader(self, watch=3)
        # The keys that name the tool (their role: "name", or "function" for OpenAI's envelope) and hold
        # its arguments; the name's key inside that envelope.
        self.name_keys: dict[str, str] = NAME_KEYS
        self.args_keys: frozenset[str] = ARGS_KEYS
        self.fn_name = "name"
        if fields is not None:
            self.args_keys = frozenset(fields[1])
            self.fn_name = fields[0]
            self.name_keys = {nested: "function"} if nested else {fields[0]: "name"}
        elif nested:
            self.name_keys = {nested: "function"}
        self.verdict = 0
        self.at = 0
        self.base = 0  # 0: an object; 1: a list whose first element is classified
        self.role: str | None = None
        self.name: str | None = None
        self.name_depth = -1
        self.args_depth = -1
        self.args_ok = False
        self.args_key = False
        self.evidence = False  # a name or args key was seen: no longer an envelope
        self.in_fn = False  # inside OpenAI's {"type": "function", "function": {...}}
        self.envelope_ok = envelope_ok

    def _decide(self, verdict: int, pos: int) -> None:
        if not self.verdict:
            self.verdict = verdict
            self.at = pos

    def _members(self) -> int:
        return self.base + (2 if self.in_fn else 1)

    def key(self, depth: int, key: str) -> None:
        if self.verdict or depth != self._members():
            return
        role: str | None
        if self.in_fn:
            role = "name" if key == self.fn_name else "args" if key in self.args_keys else None
            if role == "args":
                role = None if self.args_key else role
                self.args_key = True
        elif key in self.args_keys:
            role = None if self.args_key else "args"
            self.args_key = self.evidence = True
        elif key in self.name_keys:
            role = self.name_keys[key]
            if self.name is not None or self.name_depth >= 0:
                role = None
            self.evidence = True
        elif key in NEUTRAL_KEYS:
            role = None
        elif self.envelope_ok and not self.evidence and self.base == 0 and key in ENVELOPE_KEYS:
            role = "envelope"
        elif self.envelope_ok and not self.evidence and self.base == 0 and key == "content":
            role = None
        else:
            role = "text"
        self.role = role

    def value_start(self, depth: int, kind: str, pos: int) -> None:
        if self.verdict:
            return
        if depth == 0:
            if kind == "[":
                self.base = 1
                self.envelope_ok = False
            return
        if self.base == 1 and depth == 1:
            if kind != "{":
                self._decide(TEXT, pos)
            return
        if depth != self._members():
            return
        role = self.role
        if role == "name" or role == "function":
            if kind == '"':
                self.reader.drain()
                self.name_depth = depth
            elif role == "function" and kind == "{" and not self.in_fn:
                self.in_fn = True
                self.role = None
            else:
                self._decide(TEXT, pos)
        elif role == "args":
            if kind == "{":
                self.args_ok = True
                if self.name is not None:
                    self._decide(CALL, pos)
            elif kind == '"' or kind == "n":
                self.reader.drain()
                self.args_depth = depth
            else:
                self._decide(TEXT, pos)
        elif role == "text":
            self._decide(TEXT, pos)
        elif role == "envelope":
            self._decide(ENVELOPE, pos)

    def value_end(self, depth: int, pos: int) -> None:
        if self.verdict:
            return
        if depth == self.name_depth:
            self.name_depth = -1
            name = load_json(self.reader.drain())
            if isinstance(name, str) and name.strip():
                self.name = name.strip()
                if self.args_ok:
                    self._decide(CALL, pos)
            else:
                self._decide(TEXT, pos)
        elif depth == self.args_depth:
            self.args_depth = -1
            if _args_ok(self.reader.drain()):
                self.args_ok = True
                if self.name is not None:
                    self._decide(CALL, pos)
            else:
                self._decide(TEXT, pos)
        elif self.in_fn and depth == self.base + 1:
            self.in_fn = False
        if depth == self._members():
            self.role = None
        if depth == self.base and not self.verdict:
            self._decide(TEXT, pos)  # complete but not call-shaped (start rule)

    def truncated(self) -> bool:
        """end-of-stream rule: a complete name pair and the start of an args key were seen."""
        if self.name is None or self.verdict:
            return False
        if self.args_key:
            return True
        r = self.reader
        if r.state != STRING or not r.is_key or r.depth != self._members():
            return False
        typed = "".join(r.keyparts)
        return bool(typed) and any(k.startswith(typed) for k in self.args_keys)


def load_json(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return INVALID


INVALID: Final = object()


def _args_ok(text: str) -> bool:
    """Arguments given as a scalar: null, or a string holding a JSON object (no-coercion rule)."""
    value = load_json(text)
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip() or isinstance(load_json(value), dict)
    return False
