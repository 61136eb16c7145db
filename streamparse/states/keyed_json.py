"""A JSON call object whose single key is the tool's name: ``{"NAME": {ARGS}}`` (or a list of them).

The name is known as soon as the key is read, so the call starts before its arguments stream, exactly as
with ``{"name": ..., "arguments": ...}``. A second key in the same object is malformed (one object, one
call), as is an object with no key.
"""

from __future__ import annotations

from ..core.engine import Engine
from ..rejections import Reason
from .call_fields import CallExtractor
from .json_body import JsonCallState


class KeyedExtractor(CallExtractor):
    """:class:`CallExtractor` where the member key names the tool and its value holds the arguments."""

    __slots__ = ()

    def key(self, depth: int, key: str) -> None:
        if self.lenient is not None and self.args_depth >= 0 and depth == self.args_depth + 1 and self.args_kind == "{":
            self.lenient.on_key(key)
            return
        if depth != self.base + 1:
            return
        call = self.eng.call
        if call is None:
            return
        if self.saw_args:
            self.role = None
            if call.reject is None:
                call.reject, call.detail = Reason.MALFORMED, "a call object holds one key, the tool's name"
            return
        self.saw_args = True
        self.role = "args"
        self.eng.set_name(key.strip())

    def value_end(self, depth: int, pos: int) -> None:
        call = self.eng.call
        if depth == self.base and call is not None and not self.saw_args and call.reject is None:
            call.reject, call.detail = Reason.MALFORMED, "a call object holds one key, the tool's name"
        super().value_end(depth, pos)


class KeyedCallState(JsonCallState):
    """:class:`JsonCallState` reading ``{"NAME": {ARGS}}`` objects (``list_form``: a list of them); takes
    the same options."""

    __slots__ = ()

    def __init__(
        self, eng: Engine, fmt: str, closers: tuple[str, ...] = (), *, list_form: bool = False, fenced: bool = False
    ) -> None:
        super().__init__(eng, fmt, closers, list_form=list_form, fenced=fenced)
        self.sink = KeyedExtractor(eng, fmt, 1 if self.list_form else 0, each=self.list_form)
