"""The fields of JSON call objects: which key holds the name, which the arguments, and how arguments that
are not an object are read (a sink of :class:`~streamparse.core.json_reader.JsonReader`, used by the JSON call
bodies of :mod:`.json_body` and by the formats that read call-shaped objects)."""

from __future__ import annotations

import json
from typing import Any, Final

from ..core.engine import Engine
from ..core.json_reader import JsonReader, dump_json
from ..rejections import Reason
from .lenient import LenientValues, lenient_on

__all__ = ["NAME_KEYS", "ARGS_KEYS", "NON_OBJECT_ARGS", "CallExtractor", "args_value"]

NAME_KEYS: Final = {"name": "name", "tool_name": "name", "tool": "name", "function": "function"}
ARGS_KEYS: Final = frozenset({"arguments", "parameters", "params", "args", "input"})
NON_OBJECT_ARGS: Final = "non_object_arguments"  # repair recorded when non_object_args="pass" kept such a value


class CallExtractor:
    """JSON sink that picks the name and streams the arguments of call objects at depth ``base``."""

    __slots__ = (
        "eng",
        "fmt",
        "base",
        "reader",
        "each",
        "fallback",
        "role",
        "args_depth",
        "args_kind",
        "name_depth",
        "in_fn",
        "obj_done",
        "need_args_key",
        "saw_args",
        "lenient",
        "name_keys",
        "args_keys",
    )

    def __init__(
        self,
        eng: Engine,
        fmt: str,
        base: int,
        each: bool,
        fallback: bool = False,
        fields: tuple[str, tuple[str, ...]] | None = None,
        nested: str = "",
        reader: JsonReader | None = None,
    ) -> None:
        """``reader``: a reader whose sink passes this extractor the callbacks of the call objects (an
        envelope's, formats/envelope.py); by default the extractor's own reader, whose sink it is."""
        self.eng = eng
        # Declared field names (formats/declaration.py JsonName): only these name the tool and hold the
        # arguments; the default accepts every spelling of the ``json`` format.
        self.name_keys = NAME_KEYS
        self.args_keys: frozenset[str] = ARGS_KEYS
        if fields is not None:
            self.name_keys = {fields[0]: "name", **({nested: "function"} if nested else {})}
            self.args_keys = frozenset(fields[1])
        self.fmt = fmt
        self.base = base
        self.each = each  # one candidate per object (list forms); else the opener began the candidate
        self.fallback = fallback
        self.reader: JsonReader = JsonReader(self, watch=base + 2) if reader is None else reader
        self.role: str | None = None
        self.args_depth = -1
        self.args_kind = ""
        self.name_depth = -1
        self.in_fn = False
        self.obj_done = False
        self.saw_args = False
        self.lenient = LenientValues(eng, self.reader) if lenient_on(eng) else None

    @property
    def streaming(self) -> bool:
        return self.args_depth >= 0 and self.args_kind == "{"

    def _member(self, depth: int) -> bool:
        return depth == self.base + 1 or (self.in_fn and depth == self.base + 2)

    def value_start(self, depth: int, kind: str, pos: int) -> None:
        eng = self.eng
        if self.lenient is not None and self.args_depth >= 0 and depth == self.args_depth + 1 and self.args_kind == "{":
            self.lenient.on_start(kind)
            return
        if depth == self.base:
            if self.each:
                eng.begin_call(self.fmt, pos, self.fallback)
                self.reader.repairs = []
            self.role = None
            self.in_fn = False
            self.saw_args = False
            if kind != "{" and eng.call is not None:
                eng.call.reject, eng.call.detail = Reason.MALFORMED, "a call must be a JSON object"
            return
        if not self._member(depth):
            return
        role = self.role
        if role == "args":
            self.reader.drain()
            self.args_depth = depth
            self.args_kind = kind
            lenient = self.lenient
            if kind == "{" and (lenient is None or not lenient.plan()):
                # No member of this object can be converted: the reader need not report them (its keys and
                # values cost no callback); the members of the call object are reported again after it.
                self.reader.watch = depth
        elif role == "name" and kind == '"':
            self.reader.drain()
            self.name_depth = depth
        elif role == "function":
            if kind == '"':
                self.reader.drain()
                self.name_depth = depth
            elif kind == "{" and depth == self.base + 1:
                self.in_fn = True  # OpenAI nesting: {"type": "function", "function": {"name", "arguments"}}

    def key(self, depth: int, key: str) -> None:
        if self.lenient is not None and self.args_depth >= 0 and depth == self.args_depth + 1 and self.args_kind == "{":
            self.lenient.on_key(key)
            return
        if not self._member(depth):
            return
        call = self.eng.call
        if key in self.args_keys:
            self.role = None if self.saw_args else "args"
            self.saw_args = True
        elif key in self.name_keys:
            role = self.name_keys[key]
            named = call is not None and call.name is not None
            self.role = None if (named and role == "name") else role
        else:
            self.role = None

    def value_end(self, depth: int, pos: int) -> None:
        eng = self.eng
        lenient = self.lenient
        if lenient is not None and lenient.holding and self.args_depth >= 0 and depth == self.args_depth + 1:
            lenient.on_end()
            return
        if depth == self.args_depth:
            text = self.reader.drain()
            kind = self.args_kind
            self.args_depth = -1
            self.reader.watch = self.base + 2
            if kind == "{":
                eng.args(text)
            else:
                self._args_value(text, kind)
        elif depth == self.name_depth:
            self.name_depth = -1
            text = self.reader.drain()
            if len(text) >= 2 and text[0] == '"' == text[-1] and "\\" not in text:
                name = text[1:-1]  # (the reader escapes control characters: no escape, no decoding)
            else:
                try:
                    name = json.loads(text)
                except ValueError:
                    name = None
            if isinstance(name, str):
                eng.set_name(name.strip())
        elif depth == self.base:
            eng.add_repairs(self.reader.repairs)
            if self.each:
                eng.end_call(pos)
            else:
                self.obj_done = True
            return
        elif depth == self.base + 1 and self.in_fn:
            self.in_fn = False
        if self._member(depth):
            self.role = None

    def _args_value(self, text: str, kind: str) -> None:
        args_value(self.eng, text)


def args_value(eng: Engine, text: str) -> None:
    """Arguments that are not an object: a JSON-encoded string is decoded (no-coercion rule); null means none;
    anything else is rejected, or with ``non_object_args="pass"`` handed on as its JSON text."""
    call = eng.call
    if call is None:
        return
    value: Any
    try:
        value = json.loads(text)
    except ValueError:
        value = object()
    if value is None:
        eng.args("{}")
        return
    if isinstance(value, str):
        try:
            decoded = json.loads(value) if value.strip() else {}
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            eng.args(dump_json(decoded))
            return
    if eng.cfg.non_object_args == "pass" and not isinstance(value, dict) and type(value) is not object:
        # The engines' contract (vLLM, SGLang): the value is handed on as its JSON text, for the client
        # to validate; streaming and non-streaming then agree. Opt-in: the default rejects.
        eng.add_repairs([NON_OBJECT_ARGS])
        eng.args(dump_json(value))
        return
    call.has_args = True
    call.reject, call.detail = Reason.MALFORMED, "arguments are not a JSON object"
