"""Arguments written as an XML element tree, one element per key (``<city>Paris</city>``): nested elements
are objects, repeated ``<item>`` elements are arrays, leaves are text typed by the tool's schema (text-value
rule). The body is read to the call's closer, then parsed once (the call is complete then), iteratively.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ..core.engine import Engine, MarkerTable, State
from ..rejections import Reason
from .coerce import coerce_text_value

_TAG = re.compile(r"<(/?)([A-Za-z_][\w.\-]{0,199})\s*>")
ITEM = "item"


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


def _value(root: _Node, schema: dict[str, Any] | None) -> Any:
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


def parse_tree(body: str) -> tuple[list[_Node], str | None]:
    """The top-level elements of ``body``, or an error detail."""
    root = _Node("")
    stack = [root]
    pos = 0
    for m in _TAG.finditer(body):
        stack[-1].text.append(body[pos : m.start()])
        pos = m.end()
        if m.group(1):
            if len(stack) == 1 or stack[-1].name != m.group(2):
                return [], f"unexpected closing tag </{m.group(2)}>"
            node = stack.pop()
            stack[-1].children.append(node)
        else:
            stack.append(_Node(m.group(2)))
    stack[-1].text.append(body[pos:])
    if len(stack) > 1:
        return [], f"element <{stack[-1].name}> is not closed"
    if "".join(root.text).strip():
        return [], "text outside the argument elements"
    return root.children, None


class XmlTreeState(State):
    """The body of one call up to ``closer``; ``noise`` (a namespace token written before every tag) is
    removed first. Emits the arguments as one JSON object when the closer arrives."""

    __slots__ = ("table", "noise", "parts")

    def __init__(self, closer: str, noise: str = "") -> None:
        self.table = MarkerTable({closer: []})
        self.noise = noise
        self.parts: list[str] = []

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        found = self.table.markers.search(buf, pos)
        if found is None or found[2] is None:
            end = len(buf) if found is None or final else found[0]
            if not (eng.call is not None and eng.call.closed):
                self.parts.append(buf[pos:end])
            eng.pos = end
            return False
        s, e, _ = found
        self.parts.append(buf[pos:s])
        body = "".join(self.parts)
        if self.noise:
            body = body.replace(self.noise, "")
        self._finish(eng, body)
        eng.pos = e
        eng.end_call(e)
        eng.pop()
        return True

    def _finish(self, eng: Engine, body: str) -> None:
        call = eng.call
        if call is None:
            return
        elements, error = parse_tree(body)
        if error is not None:
            if call.reject is None:
                call.reject, call.detail = Reason.MALFORMED, error
            eng.args("{}")
            return
        tools = eng.cfg.tools
        name = call.name

        def schema(key: str) -> dict[str, Any] | None:
            return tools.property_schema(name, key) if tools is not None and name else None

        args = group((el.name, _value(el, schema(el.name))) for el in elements)
        eng.args(json.dumps(args, ensure_ascii=False))
