"""Arguments parsed so far: an incremental reader of a call's argument JSON and the per-call snapshot.

A call's ``ToolCallDelta`` fragments join to JSON text that is, at every moment, a prefix of valid JSON
(the formats' readers repair and encode before they emit). :class:`PartialJson` is fed those fragments
and keeps the value they describe, so the arguments so far are maintained in time linear in the text,
never re-parsed from the start per fragment (openai-python's ``parsed_arguments`` re-parses the whole
text on every chunk).

What a partial value holds (the rule of :meth:`PartialJson.value`, documented in docs/API.md):

- complete keys with complete values;
- a string value being written, with the text so far (UIs stream long strings such as code);
- objects and arrays being written, with their complete members (instructor's ``Partial[T]``);
- nothing of a key being written, a key whose value has not begun, or a number or literal being written
  (``12`` may still become ``123``, ``t`` is not yet ``true``).

The reader never raises: text that is not a JSON prefix stops it (``failed``) and the value keeps what
was read before.
"""

from __future__ import annotations

import json
import re
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypeVar, overload

from pydantic import BaseModel, TypeAdapter, ValidationError

__all__ = ["CallSnapshot", "CallStatus", "PartialJson", "copy_value", "partial_arguments", "partial_model"]

M = TypeVar("M", bound=BaseModel)

CallStatus: TypeAlias = Literal["streaming", "complete", "rejected"]

_VALUE, _KEY, _COLON, _AFTER, _STRING, _TOKEN, _DONE, _FAILED = range(8)
_WS = re.compile(r"[ \t\r\n]*")
_RUN = re.compile(r'[^"\\]+')
_TOKEN_CHARS = re.compile(r"[^,\]}\s]*")
_HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")


def _backslashes_before(raw: str, i: int) -> int:
    k = i
    while k > 0 and raw[k - 1] == "\\":
        k -= 1
    return i - k


def _complete_prefix(raw: str) -> int:
    """Length of the longest prefix of string content ``raw`` that ends outside an escape: an escape cut
    off at the end (a lone backslash, ``\\u12``) or the first half of a surrogate pair waits for the rest."""
    cut = len(raw)
    j = raw.rfind("\\", max(0, len(raw) - 12))
    if j >= 0 and _backslashes_before(raw, j) % 2 == 0:  # the last backslash begins an escape
        tail = raw[j:]
        if tail == "\\" or (tail.startswith("\\u") and len(tail) < 6):
            cut = j
    h = cut - 6
    if h >= 0 and _HIGH_SURROGATE.match(raw, h, cut) and _backslashes_before(raw, h) % 2 == 0:
        cut = h  # a high surrogate: decoded with its low half
    return cut


def _decode(raw: str) -> str | None:
    try:
        value = json.loads('"' + raw + '"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def copy_value(value: Any) -> Any:
    """A copy of JSON data whose containers are new (strings and numbers are immutable and shared)."""
    return _copy(value, {})


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    """A copy of the containers of ``value`` (strings and numbers are immutable and shared)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        memo[id(value)] = out
        for k, v in value.items():
            out[k] = _copy(v, memo) if isinstance(v, dict | list) else v
        return out
    if isinstance(value, list):
        items: list[Any] = []
        memo[id(value)] = items
        for v in value:
            items.append(_copy(v, memo) if isinstance(v, dict | list) else v)
        return items
    return value


class PartialJson:
    """Reads one JSON value from successive fragments; :meth:`value` is the value so far.

    ``feed`` costs O(len(fragment)) (regex runs over string contents, Python per structural token);
    ``value`` copies the containers (O(number of values); strings are shared, not copied) and decodes
    only the part of the string being written that arrived since the previous call.
    """

    __slots__ = (
        "stack",
        "keys",
        "state",
        "root",
        "parts",
        "is_key",
        "escape",
        "failed_at",
        "_started",
        "_dec",
        "_dec_parts",
        "_dec_rest",
        "_dec_bad",
    )

    def __init__(self) -> None:
        self.stack: list[dict[str, Any] | list[Any]] = []
        self.keys: list[str | None] = []  # per open object: the key whose value comes next
        self.state = _VALUE
        self.root: Any = None
        self.parts: list[str] = []  # raw JSON content of the string or token being read
        self.is_key = False
        self.escape = False  # the previous fragment ended inside an escape (after a backslash)
        self.failed_at: str | None = None
        self._started = False
        # The string being written, decoded as far as asked for: decoded text, raw parts read, raw rest
        # (an escape not yet complete), so each request decodes only what arrived since the last one.
        self._dec: list[str] = []
        self._dec_parts = 0
        self._dec_rest = ""
        self._dec_bad = False  # the string holds what JSON forbids (a raw control character): it has no value

    @property
    def done(self) -> bool:
        return self.state == _DONE

    @property
    def failed(self) -> bool:
        return self.state == _FAILED

    def _fail(self, detail: str) -> None:
        self.state = _FAILED
        self.failed_at = detail

    def _attach(self, value: Any) -> None:
        if not self.stack:
            self.root = value
            self._started = True
            return
        parent = self.stack[-1]
        if isinstance(parent, dict):
            key = self.keys[-1]
            if key is not None:
                parent[key] = value
        else:
            parent.append(value)

    def _after_value(self) -> None:
        self.state = _AFTER if self.stack else _DONE

    def _token_end(self) -> bool:
        text = "".join(self.parts)
        self.parts.clear()
        try:
            value = json.loads(text)
        except ValueError:
            self._fail(f"bad token {text[:20]!r}")
            return False
        self._attach(value)
        self._after_value()
        return True

    def feed(self, text: str) -> None:
        """Consume the next fragment of the JSON text."""
        pos, n = 0, len(text)
        parts = self.parts
        while pos < n:
            state = self.state
            if state in (_DONE, _FAILED):
                if state == _DONE and not text[pos:].isspace():
                    self._fail("text after the value")
                return
            if state == _STRING:
                if self.escape:
                    parts.append(text[pos])
                    self.escape = False
                    pos += 1
                    continue
                m = _RUN.match(text, pos)
                if m is not None:
                    parts.append(m.group())
                    pos = m.end()
                    continue
                c = text[pos]
                if c == "\\":
                    parts.append(c)
                    self.escape = True
                    pos += 1
                    continue
                # the closing quote
                pos += 1
                raw = "".join(parts)
                parts.clear()
                decoded = _decode(raw)
                if decoded is None:
                    self._fail("bad string")
                    return
                if self.is_key:
                    self.keys[-1] = decoded
                    self.state = _COLON
                else:
                    self._attach(decoded)
                    self._after_value()
                continue
            if state == _TOKEN:
                m = _TOKEN_CHARS.match(text, pos)
                end = m.end() if m is not None else pos
                parts.append(text[pos:end])
                pos = end
                if pos < n and not self._token_end():
                    return
                continue
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]  # always matches
            if pos >= n:
                return
            c = text[pos]
            if state == _VALUE:
                if c == "{" or c == "[":
                    container: dict[str, Any] | list[Any] = {} if c == "{" else []
                    self._attach(container)
                    self.stack.append(container)
                    self.keys.append(None)
                    self.state = _KEY if c == "{" else _VALUE
                elif c == '"':
                    self.state = _STRING
                    self.is_key = False
                    self._dec, self._dec_parts, self._dec_rest, self._dec_bad = [], 0, "", False
                elif c == "]" and self.stack and isinstance(self.stack[-1], list) and not self.stack[-1]:
                    self._close()
                else:
                    self.state = _TOKEN
                    continue  # the token's first character is read by the token branch
                pos += 1
            elif state == _KEY:
                if c == '"':
                    self.state = _STRING
                    self.is_key = True
                elif c == "}":
                    self._close()
                else:
                    self._fail(f"expected a key, got {c!r}")
                    return
                pos += 1
            elif state == _COLON:
                if c != ":":
                    self._fail(f"expected ':', got {c!r}")
                    return
                self.state = _VALUE
                pos += 1
            else:  # _AFTER
                top = self.stack[-1]
                if c == ",":
                    self.state = _KEY if isinstance(top, dict) else _VALUE
                    if isinstance(top, dict):
                        self.keys[-1] = None
                elif (c == "}" and isinstance(top, dict)) or (c == "]" and isinstance(top, list)):
                    self._close()
                else:
                    self._fail(f"unexpected {c!r}")
                    return
                pos += 1

    def _close(self) -> None:
        self.stack.pop()
        self.keys.pop()
        self._after_value()

    def _string_so_far(self) -> str | None:
        """The string value being written, decoding only the content that arrived since the last call."""
        if self._dec_bad:  # sticky: the part that failed is never decoded again, so it must not be skipped
            return None
        parts = self.parts
        raw = self._dec_rest + "".join(parts[self._dec_parts :])
        self._dec_parts = len(parts)
        cut = _complete_prefix(raw)
        if cut:
            piece = _decode(raw[:cut])
            if piece is None:
                self._dec_bad = True
                return None
            self._dec.append(piece)
        self._dec_rest = raw[cut:]
        dec = self._dec
        if len(dec) > 1:
            dec[:] = ["".join(dec)]
        return dec[0] if dec else ""

    def value(self) -> Any:
        """The value so far (a fresh copy: mutating it does not affect the reader); None before any."""
        if not self._started:
            return None
        memo: dict[int, Any] = {}
        root = _copy(self.root, memo)
        if self.state == _STRING and not self.is_key and self.stack:
            text = self._string_so_far()
            if text is not None:
                inner = memo[id(self.stack[-1])]
                if isinstance(inner, dict):
                    key = self.keys[-1]
                    if key is not None:
                        inner[key] = text
                else:
                    inner.append(text)
        return root


@dataclass(frozen=True, slots=True)
class CallSnapshot:
    """One call as far as it has streamed: what a UI draws for a card.

    ``arguments`` follows the partial-value rule of :class:`PartialJson` while ``status`` is
    ``"streaming"``; once ``"complete"`` it equals ``ToolCall.arguments``; once ``"rejected"`` it holds
    what had streamed before the rejection (``reason`` says why). ``parsed`` is the pydantic instance of a
    complete call to a tool given as a pydantic model class (``ToolCall.parsed``), else None.
    """

    index: int
    id: str
    name: str
    arguments: dict[str, Any]
    status: CallStatus
    format: str
    parsed: Any = None
    reason: str | None = None
    tool: Any = field(default=None, compare=False, repr=False)
    """The pydantic model class of the tool when it was given to ``tools=`` as one (:meth:`partial` uses it);
    not part of equality: a snapshot built from the events (``ParseResult.snapshots``) equals the parser's."""

    @overload
    def partial(self) -> Any: ...
    @overload
    def partial(self, model: type[M]) -> M: ...
    def partial(self, model: type[BaseModel] | None = None) -> Any:
        """The arguments so far as an instance of ``model`` (default: the tool's own pydantic model), like
        instructor's ``Partial[T]``: each field holds its value once it has streamed far enough to be valid
        (a string as far as it has come), every other field is None; nested models are partial too. No
        validation error is raised while the call streams. A complete call gives ``parsed`` itself."""
        model = model or self.tool
        if model is None:
            raise TypeError(f"{self.name!r} was not given as a pydantic model: pass the model, partial(Model)")
        if self.status == "complete" and isinstance(self.parsed, model):
            return self.parsed
        return partial_model(model, self.arguments)

    @property
    def complete(self) -> bool:
        """The call ended valid (``ToolCallEnd`` was emitted): safe to dispatch."""
        return self.status == "complete"

    @property
    def done(self) -> bool:
        """The call has its verdict (complete or rejected): nothing more will stream for it."""
        return self.status != "streaming"


def partial_arguments(text: str) -> dict[str, Any]:
    """The arguments object described by the JSON prefix ``text`` (empty when it is not an object yet)."""
    reader = PartialJson()
    reader.feed(text)
    value = reader.value()
    return value if isinstance(value, dict) else {}


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(annotation: Any) -> TypeAdapter[Any]:
    try:
        adapter = _ADAPTERS.get(annotation)
    except TypeError:  # an unhashable annotation: build it each time
        return TypeAdapter(annotation)
    if adapter is None:
        adapter = _ADAPTERS[annotation] = TypeAdapter(annotation)
    return adapter


def _model_in(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The pydantic model inside ``annotation`` (``Model``, ``Model | None``, ``list[Model]``) and whether
    it is a list of them."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, tuple, set, frozenset) and args:
        inner, _ = _model_in(args[0])
        return inner, True
    for arg in args:
        inner, many = _model_in(arg)
        if inner is not None:
            return inner, many
    return None, False


def _field_value(annotation: Any, value: Any) -> Any:
    try:
        return _adapter(annotation).validate_python(value)
    except (ValidationError, TypeError, ValueError):
        pass
    inner, many = _model_in(annotation)
    if inner is None:
        return None  # not valid yet (a literal or number being written, an enum value half-way)
    if many and isinstance(value, list):
        return [partial_model(inner, v) if isinstance(v, dict) else None for v in value]
    if not many and isinstance(value, dict):
        return partial_model(inner, value)
    return None


def partial_model(model: type[M], arguments: dict[str, Any]) -> M:
    """An instance of ``model`` holding the fields of ``arguments`` that are valid so far, the others None
    (built with ``model_construct``: no validator runs on the whole, so a half-streamed call never raises)."""
    values: dict[str, Any] = {}
    present: set[str] = set()
    for name, info in model.model_fields.items():
        key = info.alias if info.alias is not None and info.alias in arguments else name
        if key not in arguments:
            values[name] = None
            continue
        value = _field_value(info.annotation, arguments[key])
        values[name] = value
        if value is not None:
            present.add(name)
    return model.model_construct(_fields_set=present, **values)
