"""Structural tags for constrained decoding, built from a format's declaration (engine-neutral).

A structural tag (xgrammar's JSON format, which vLLM and SGLang hand to their grammar backend) says what
the model may write when a call is required: the call's markers, its name, and its arguments by the tool's
schema. Built here from the :class:`~streamparse.formats.Declaration` the parser reads, the grammar and the
parser cannot drift apart: whatever constrained decoding produces is a call this format parses.

Hand-written families carry the layout their chat template writes in the same vocabulary
(``FormatSpec.layout``, next to each family's definition; the family's handler reads it, tests/integrations
check both), or, where the vocabulary cannot say it (harmony's channel messages), a writer of the tag
(``FormatSpec.tag_writer``). Formats with neither (Python-style calls, ...) get no tag: the engine then falls
back to its own JSON-schema constraint, as it does for its own parsers without one. :func:`any_format_tag`
joins several formats' tags into one (the multi-format parser of a model whose format is not known).

The result is plain JSON data (``{"type": "structural_tag", "format": ...}``): no engine is imported here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from streamparse import formats
from streamparse.formats import (
    Call,
    Declaration,
    ElementArgs,
    HeaderName,
    JsonArgs,
    JsonName,
    PythonName,
    TaggedArgs,
)

__all__ = ["Choice", "Tool", "any_format_tag", "declaration_for", "format_tag", "has_tag", "structural_tag"]

Choice = Literal["auto", "required", "forced"]
"""xgrammar's simplified tool choice: ``forced`` is a named tool (one call of it)."""

Format = dict[str, Any]

# A call id the grammar lets the model write (Solar Open's may be empty): no marker character fits.
ID_PATTERN = r"[A-Za-z0-9_.:\-]*"


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool the grammar lets the model call: its name, its parameters' schema, and whether the values are
    held to that schema (``strict``) or only the call's shape is."""

    name: str
    parameters: dict[str, Any] | None = None
    strict: bool = True


def declaration_for(fmt: str) -> Declaration | None:
    """The declaration a format's tag is built from: its own (declared formats, a user's ``formats.declare``),
    else the layout its family's module attaches to its spec; ``None`` when it has neither."""
    declared = formats.declaration_of(fmt)
    if declared is not None:
        # messages: a call is a message whose header the model writes freely; the vocabulary gives no tag for it;
        # nor for element-tree arguments (a value's shape is nested tags, not a JSON schema), nor for Python
        # call expressions (keyword arguments written as Python literals, which no JSON schema describes)
        untagged = (
            declared.messages is not None
            or isinstance(declared.call.arguments, ElementArgs)
            or isinstance(declared.call.name, PythonName)
        )
        return None if untagged else declared
    layout = formats.get(fmt).layout
    return layout if isinstance(layout, Declaration) else None


def has_tag(fmt: str) -> bool:
    """Whether :func:`format_tag` can build ``fmt``'s tag (a declaration, a layout or a tag writer)."""
    return formats.get(fmt).tag_writer is not None or declaration_for(fmt) is not None


def format_tag(fmt: str, tools: Sequence[Tool], choice: Choice, *, parallel: bool = True) -> dict[str, Any] | None:
    """``fmt``'s structural tag: from its tag writer (harmony's channel messages), else its declaration."""
    writer = formats.get(fmt).tag_writer
    if writer is not None:
        node = writer([(t.name, _schema(t)) for t in tools], choice, parallel)
        return None if node is None else {"type": "structural_tag", "format": node}
    decl = declaration_for(fmt)
    return None if decl is None else structural_tag(decl, tools, choice, parallel=parallel)


# -- xgrammar's format nodes, as JSON data ---------------------------------------------------------------


def _const(value: str) -> Format:
    return {"type": "const_string", "value": value}


def _seq(*elements: Format) -> Format:
    parts: list[Format] = []
    for e in elements:
        if e["type"] == "const_string" and parts and parts[-1]["type"] == "const_string":
            parts[-1] = _const(parts[-1]["value"] + e["value"])  # adjacent literals are one literal
        elif not (e["type"] == "const_string" and not e["value"]):
            parts.append(e)
    if not parts:
        return _const("")
    return parts[0] if len(parts) == 1 else {"type": "sequence", "elements": parts}


def _or(elements: list[Format]) -> Format:
    return elements[0] if len(elements) == 1 else {"type": "or", "elements": elements}


def _tags(tags: list[Format], separator: str, one: bool) -> Format:
    return {
        "type": "tags_with_separator",
        "tags": tags,
        "separator": separator,
        "at_least_one": True,
        "stop_after_first": one,
    }


def _json_schema(schema: Any) -> Format:
    return {"type": "json_schema", "json_schema": schema if isinstance(schema, dict) and schema else True}


def _xml_attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


# -- one call ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Call:
    begin: str  # a literal: xgrammar dispatches tags on it
    content: Format
    end: str


def _json_call(call: Call, spec: JsonName, tool: Tool, in_list: bool) -> _Call:
    name = json.dumps(tool.name, ensure_ascii=False)
    if spec.name_is_key:
        head = "{" + name + ": "
    else:
        head = "{" + json.dumps(spec.field) + ": " + name + ", " + json.dumps(spec.arguments_field) + ": "
    tail = "}"
    if spec.nested:
        head, tail = '{"type": "function", ' + json.dumps(spec.nested) + ": " + head, tail + "}"
    if spec.list and not in_list:
        head, tail = "[" + head, tail + "]"
    return _Call(call.open + head, _json_schema(_schema(tool)), tail + (call.close or ""))


def _schema(tool: Tool) -> Any:
    return tool.parameters if tool.strict and tool.parameters else True


def _header_call(call: Call, spec: HeaderName, tool: Tool) -> _Call:
    if spec.attribute is not None:
        begin = f'{call.open} {spec.attribute}="{_xml_attr(tool.name)}"'
        rest: list[Format] = [_const(spec.end)]
    else:
        begin = call.open + spec.prefix + tool.name
        rest = [{"type": "regex", "pattern": spec.suffix_pattern}] if spec.suffix_pattern else []
        rest.append(_const(spec.end))
    if call.id is not None:
        ident = [{"type": "regex", "pattern": ID_PATTERN}, _const(call.id.end)]
        if call.id.position == "after_name":
            rest += ident
        else:  # before the name: the literal part ends at the opener, the rest is content
            rest = [*ident, _const(begin[len(call.open) :]), *rest]
            begin = call.open
    args = call.arguments
    if isinstance(args, TaggedArgs):
        # Layout as the templates write it: a newline after the header and after each argument, and one
        # on each side of a value where the format drops one (Qwen3-Coder); nothing where values are verbatim.
        gap = "" if args.values.whitespace == "verbatim" else "\n"
        pad = "\n" if args.values.whitespace == "one_newline" else ""
        lead = "" if rest and rest[-1].get("value", "").endswith("\n") else gap
        body = _seq(*rest, _const(lead), _tagged(args, tool, gap, pad))
    else:
        assert isinstance(args, JsonArgs), "element-tree arguments have no tag (declaration_for)"
        body = _seq(*rest, _json_args(args, tool))
    return _Call(begin, body, call.close or "")


def _json_args(spec: JsonArgs, tool: Tool) -> Format:
    if spec.fenced:
        return _seq(_const("```json\n"), _json_schema(_schema(tool)), _const("\n```"))
    return _seq(_const(spec.open), _json_schema(_schema(tool)), _const(spec.close))


def _tagged(spec: TaggedArgs, tool: Tool, gap: str, pad: str) -> Format:
    """One element per argument: the required ones in the schema's order, then any optional ones."""
    params = tool.parameters or {}
    props = params.get("properties")
    if not isinstance(props, dict) or not props:
        return _const("")  # no declared argument: a call without arguments
    required = params.get("required") if tool.strict else None
    required = required if isinstance(required, list) else []
    pairs = {
        key: _argument(spec, key, prop if isinstance(prop, dict) else {}, tool.strict, gap, pad)
        for key, prop in props.items()
    }
    first = [pairs[k] for k in props if k in required]
    rest = [pairs[k] for k in props if k not in required]
    tail: list[Format] = [{"type": "star", "content": _or(rest)}] if rest else []
    return _seq(*first, *tail)


def _is_text(prop: dict[str, Any]) -> bool:
    kind = prop.get("type")
    return kind in (None, "string") and "enum" not in prop and "const" not in prop


def _argument(spec: TaggedArgs, key: str, prop: dict[str, Any], strict: bool, gap: str, pad: str) -> Format:
    text = _is_text(prop) and spec.values.strings == "raw"
    if spec.key_attribute is not None:
        head = f'{spec.open} {spec.key_attribute}="{_xml_attr(key) if spec.attribute_escapes == "xml" else key}"'
        if spec.type_attribute is not None:
            head += f' {spec.type_attribute}="{"string" if text else prop.get("type", "object")}"'
        if spec.string_attribute is not None:
            head += f' {spec.string_attribute}="{"true" if text else "false"}"'
        head += spec.key_end
    else:
        head = spec.open + key + spec.key_end
    close = spec.close if spec.close is not None else f"</{key}>"
    if text:
        value: Format = {"type": "any_text", "excludes": [close, spec.open]}
    else:
        value = _json_schema(prop if strict else ({"type": prop["type"]} if "type" in prop else True))
    return _seq(_const(head + spec.value_open + pad), value, _const(pad + close + gap))


def _one(decl: Declaration, tool: Tool, in_list: bool) -> _Call:
    name = decl.call.name
    if isinstance(name, JsonName):
        return _json_call(decl.call, name, tool, in_list)
    if isinstance(name, PythonName):
        raise ValueError("Python call expressions have no structural tag: their arguments are not JSON")
    if not isinstance(name, HeaderName):
        raise ValueError("a call named by its message's recipient has no structural tag")
    return _header_call(decl.call, name, tool)


def _merged(calls: list[_Call]) -> list[Format]:
    """Calls that share their literal begin and end become one tag whose content is the choice among them."""
    groups: dict[tuple[str, str], list[Format]] = {}
    for c in calls:
        groups.setdefault((c.begin, c.end), []).append(c.content)
    return [{"type": "tag", "begin": b, "content": _or(contents), "end": e} for (b, e), contents in groups.items()]


# -- the whole tag ----------------------------------------------------------------------------------------


def structural_tag(
    decl: Declaration, tools: Sequence[Tool], choice: Choice, *, parallel: bool = True
) -> dict[str, Any] | None:
    """The structural tag that lets the model write calls of ``tools`` in ``decl``'s format.

    ``auto``: free text until a call's (or section's) opener, then calls; ``required``: one or more calls;
    ``forced``: exactly one call (``tools`` holds the named one); ``parallel=False``: at most one call.
    ``None`` when there is no tool.
    """
    one = choice == "forced" or not parallel
    if not tools:
        return None
    section = decl.section
    in_list = (
        section is not None and not decl.call.open and isinstance(decl.call.name, JsonName) and decl.call.name.list
    )
    tags = _merged([_one(decl, t, in_list) for t in tools])
    if section is not None:
        begin, end, separator = section.open, section.close or "", ""
        if in_list:  # the section holds one JSON list, whose items are the calls (Apertus)
            begin, end, separator = begin + "[", "]" + end, ", "
        calls = _tags(tags, separator, one)
        if choice == "auto" and not end:
            # An open-ended section (Solar Open's) ends with the output: text, or text and then the section.
            text: Format = {"type": "any_text", "excludes": [section.open]}
            lead = {"type": "tag", "begin": "", "content": text, "end": begin}
            fmt: Format = _or([text, _seq(lead, calls)])
        elif choice == "auto":
            fmt = {
                "type": "triggered_tags",
                "triggers": [section.open],
                "tags": [{"type": "tag", "begin": begin, "content": calls, "end": end}],
            }
        else:
            fmt = _seq(_const(begin), calls, _const(end))
    elif choice == "auto":
        fmt = {"type": "triggered_tags", "triggers": [decl.call.open], "tags": tags, "stop_after_first": one}
    else:
        fmt = _tags(tags, "", one)
    return {"type": "structural_tag", "format": fmt}


def any_format_tag(
    fmts: Sequence[str], tools: Sequence[Tool], choice: Choice, *, parallel: bool = True
) -> dict[str, Any] | None:
    """One tag for a model whose format is not known: the calls of any of ``fmts``.

    ``required`` / ``forced``: the calls of whichever format the model starts with; ``auto``: free text, and
    at any format's trigger (its call's or section's opener) that format's calls. Left out: formats with
    neither a declaration nor a layout, harmony (its tag is the whole message stream, not calls inside free
    text) and open-ended sections (Solar Open's: a tag without an end cannot be triggered). A trigger that
    another one begins is dropped (xgrammar dispatches on the shorter one). ``None`` when nothing is left.
    """
    nodes: list[Format] = []
    triggers: list[str] = []
    tags: list[Format] = []
    for fmt in dict.fromkeys(fmts):
        decl = declaration_for(fmt)
        tag = None if decl is None else structural_tag(decl, tools, choice, parallel=parallel)
        if tag is None:
            continue
        node = tag["format"]
        if choice != "auto":
            nodes.append(node)
        elif node["type"] == "triggered_tags":
            triggers += node["triggers"]
            tags += [t for t in node["tags"] if t not in tags]
    if choice == "auto":
        if not tags:
            return None
        kept = [t for t in dict.fromkeys(triggers) if not any(t != u and t.startswith(u) for u in triggers)]
        one = not parallel
        fmt_node: Format = {"type": "triggered_tags", "triggers": kept, "tags": tags, "stop_after_first": one}
        return {"type": "structural_tag", "format": fmt_node}
    unique = [n for i, n in enumerate(nodes) if n not in nodes[:i]]
    return {"type": "structural_tag", "format": _or(unique)} if unique else None
