"""Arguments written as an XML element tree, one element per key (``<city>Paris</city>``): nested elements
are objects, repeated ``<item>`` elements are arrays, leaves are text typed by the tool's schema (text-value
rule).

The body is read as it arrives, tag by tag (never re-read): a top-level element whose text may stream as a
string (the schema says string, or says nothing, and the element starts with text) streams fragment by
fragment, tags inside it being text up to its closing tag; any other top-level element is built as a tree
and its value emitted when it closes (nested objects, arrays, typed leaves: known only then). A key
written twice at the top level is written twice in the arguments JSON, the last one counting, as in the
other tag formats; nested repeated keys hold the array of their values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from json.encoder import encode_basestring
from typing import Any, Final

from ..core.engine import Engine, MarkerTable, State
from ..core.json_reader import dump_json
from ..rejections import Reason
from .coerce import coerce_text_value, streams_as_string

_TAG: Final = re.compile(r"<(/?)([A-Za-z_][\w.\-]{0,199})[ \t\r\n]{0,64}>")
# What a tag can look like before its ``>`` arrives (held until it completes or cannot).
_PARTIAL_TAG: Final = re.compile(r"<(?:/?(?:[A-Za-z_][\w.\-]{0,199}[ \t\r\n]{0,64})?)?")
ITEM: Final = "item"


class _Node:
    __slots__ = ("name", "children", "text")

    def __init__(self, name: str) -> None:
        self.name = name
        self.children: list[_Node] = []
        self.text: list[str] = []


def _sub_schema(schema: Any, key: str | None) -> dict[str, Any] | None:
    """The schema of a child element: ``items`` for an array item, else ``properties[key]``."""
    if not isinstance(schema, dict):
        return None
    sub = schema.get("items") if key is None else (schema.get("properties") or {}).get(key)
    return sub if isinstance(sub, dict) else None


def _value(root: _Node, schema: Any) -> Any:
    """The JSON value of an element (post-order over an explicit stack: no recursion on model input)."""
    done: dict[int, Any] = {}
    stack: list[tuple[_Node, dict[str, Any] | None, bool]] = [(root, schema, False)]
    while stack:
        node, sch, expanded = stack.pop()
        if not node.children:
            done[id(node)] = coerce_text_value("".join(node.text), sch)
            continue
        as_list = all(c.name == ITEM for c in node.children)
        if not expanded:
            stack.append((node, sch, True))
            for c in node.children:
                stack.append((c, _sub_schema(sch, None if as_list else c.name), False))
            continue
        if as_list:
            done[id(node)] = [done[id(c)] for c in node.children]
            continue
        obj = group((c.name, done[id(c)]) for c in node.children)
        text = "".join(node.text).strip()
        if text:
            obj["$text"] = text  # text beside child elements
        done[id(node)] = obj
    return done[id(root)]


def group(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Key-value pairs as an object; a key written more than once holds the array of its values."""
    values: dict[str, list[Any]] = {}
    for key, value in pairs:
        values.setdefault(key, []).append(value)
    return {k: v[0] if len(v) == 1 else v for k, v in values.items()}


_OPEN: Final = 0  # a top-level element: undecided, streaming text, a tree; bad body
_STREAM: Final = 1
_TREE: Final = 2
_BROKEN: Final = 3


class XmlTreeState(State):
    """The body of one call up to ``closer``; ``noise`` (a namespace token written before every tag) is
    removed. Emits the arguments JSON as the elements arrive (see the module docstring)."""

    __slots__ = ("table", "noise", "tail", "mode", "key", "schema", "ws", "stack", "nkeys", "quoted")

    def __init__(self, closer: str, noise: str = "") -> None:
        self.table = MarkerTable({closer: []})
        self.noise = noise
        self.tail = ""  # undecided text: a partial tag or namespace token at the end of what was read
        self.mode: int | None = None  # None: between top-level elements
        self.key = ""  # the open top-level element
        self.schema: Any = None
        self.ws: list[str] = []  # _OPEN: the element's leading whitespace
        self.stack: list[_Node] = []  # _TREE: the open elements, the top-level one first
        self.nkeys = 0
        self.quoted = False  # _STREAM: the opening quote was written

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        found = self.table.markers.search(buf, pos)
        done = eng.call is not None and eng.call.closed  # too large: nothing more is kept
        if found is None or found[2] is None:
            end = len(buf) if found is None or final else found[0]
            if not done:
                self._feed(eng, buf[pos:end], False)
            eng.pos = end
            return False
        s, e, _ = found
        if not done:
            self._feed(eng, buf[pos:s], True)
            self._finish(eng)
        eng.pos = e
        eng.end_call(e)
        eng.pop()
        return True

    # -- reading -----------------------------------------------------------------------------------------

    def _feed(self, eng: Engine, piece: str, last: bool) -> None:
        """Read ``piece`` after what is held; hold a possible partial namespace token or tag (unless ``last``)."""
        text = self.tail + piece
        held = ""
        noise = self.noise
        if noise and not last:
            for k in range(min(len(noise) - 1, len(text)), 0, -1):
                if text.endswith(noise[:k]):
                    text, held = text[:-k], text[-k:]
                    break
        if noise and noise in text:
            text = text.replace(noise, "")
        i = 0
        n = len(text)
        while i < n:
            j = text.find("<", i)
            if j < 0:
                self._text(eng, text[i:])
                i = n
                break
            if j > i:
                self._text(eng, text[i:j])
                i = j
            m = _TAG.match(text, j)
            if m is not None:
                self._tag(eng, m.group(2), bool(m.group(1)), m.group(0))
                i = m.end()
                continue
            p = _PARTIAL_TAG.match(text, j)
            if not last and p is not None and p.end() == n:
                break  # may still become a tag
            self._text(eng, "<")
            i = j + 1
        self.tail = text[i:] + held

    def _reject(self, eng: Engine, detail: str) -> None:
        call = eng.call
        if call is not None and call.reject is None:
            call.reject, call.detail = Reason.MALFORMED, detail
        self.mode = _BROKEN

    def _key(self, eng: Engine, name: str) -> None:
        eng.args(("{" if self.nkeys == 0 else ", ") + dump_json(name) + ": ")
        self.nkeys += 1

    def _text(self, eng: Engine, text: str) -> None:
        mode = self.mode
        if mode == _STREAM:
            eng.args(encode_basestring(text)[1:-1])
        elif mode == _TREE:
            self.stack[-1].text.append(text)
        elif mode == _OPEN:
            if text.isspace():
                self.ws.append(text)
            elif self._streams():
                self.mode = _STREAM
                eng.args(encode_basestring("".join(self.ws) + text)[:-1])
                self.ws = []
            else:
                node = _Node(self.key)
                node.text.extend((*self.ws, text))
                self.ws, self.stack, self.mode = [], [node], _TREE
        elif mode is None and not text.isspace():
            self._reject(eng, "text outside the argument elements")

    def _streams(self) -> bool:
        """The open top-level element's text may stream as a string: no type, or a string-first type."""
        return streams_as_string(self.schema)

    def _tag(self, eng: Engine, name: str, closing: bool, raw: str) -> None:
        mode = self.mode
        if mode == _BROKEN:
            return
        if mode is None:
            if closing:
                return self._reject(eng, f"unexpected closing tag </{name}>")
            tools = eng.cfg.tools
            call = eng.call
            cname = call.name if call is not None else None
            self.schema = tools.property_schema(cname, name) if tools is not None and cname else None
            self.key, self.mode, self.ws = name, _OPEN, []
            self._key(eng, name)
            return
        if mode == _STREAM:
            if closing and name == self.key:
                eng.args('"')
                self.mode = None
            else:
                eng.args(encode_basestring(raw)[1:-1])  # a tag inside a string value is its text
            return
        if mode == _OPEN:
            if closing:
                if name != self.key:
                    return self._reject(eng, f"unexpected closing tag </{name}>")
                value = coerce_text_value("".join(self.ws), self.schema)
                eng.args(dump_json(value))
                self.mode, self.ws = None, []
                return
            root = _Node(self.key)
            root.text.extend(self.ws)
            self.ws, self.stack, self.mode = [], [root], _TREE
        stack = self.stack
        if not closing:
            stack.append(_Node(name))
            return
        if stack[-1].name != name:
            return self._reject(eng, f"unexpected closing tag </{name}>")
        node = stack.pop()
        if stack:
            stack[-1].children.append(node)
            return
        value = _value(node, self.schema)
        eng.args(dump_json(value))
        self.mode = None

    def _finish(self, eng: Engine) -> None:
        """At the call's closer: close the arguments object; an element left open makes the call malformed."""
        mode = self.mode
        if mode == _STREAM:
            eng.args('"')
        if mode in (_STREAM, _OPEN, _TREE):
            name = self.stack[-1].name if mode == _TREE and self.stack else self.key
            if mode != _STREAM:
                eng.args("null")  # (the call is rejected; its arguments JSON stays well formed)
            self._reject(eng, f"element <{name}> is not closed")
        eng.args("}" if self.nkeys else "{}")
