"""The compiler of the declaration vocabulary: a :class:`Declaration` -> a catalog :class:`FormatSpec`.

The spec's ``wire`` uses the engine's handler factories and shared states (:mod:`.openers`,
``states/json_body``, ``states/tag_body``, ``states/blocks``, ``states/keyed_json``), so a declared format
gets what every built-in one gets: earliest release, chunking invariance, schema validation, fail closed,
snapshots, ``max_call_chars``. Reasoning delimiters, the content wrapper and control tokens are handed to
the text scopes through the :class:`Wiring` (``config.py`` builds them into its tables).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any, Final, Literal, TypeAlias

from ..core.engine import Engine, Handler, State
from ..core.lookahead import LOOKAHEAD, after_ws, blanks_then_prefix, read_header, starts_or_prefix
from ..states.blocks import BlockState
from ..states.json_body import JsonArgsState, JsonCallState
from ..states.keyed_json import KeyedCallState
from ..states.tag_body import TagCallState, TagSyntax
from ..states.text import drop
from ..states.xml_tree import XmlTreeState
from .base import FormatSpec, Wiring
from .declaration import (
    Call,
    Declaration,
    ElementArgs,
    HeaderName,
    JsonArgs,
    JsonName,
    PythonName,
    RecipientName,
    TaggedArgs,
)
from .gemma_call import GemmaCallState
from .header_wait import header_undecided
from .markup_doc import describe_markup
from .messages import wire_messages
from .openers import Decision, _first, block_table, cut_off, json_call, unparsed_block
from .pyish import wrapped_list
from .standalone import wire_standalone

Match: TypeAlias = re.Match[str] | None | Literal[False]

__all__ = ["compile_declaration", "describe_markup", "header_pattern", "attribute_pattern"]

_NAME_CHARS: Final = r"[^\s<>\"'=]{1,200}"
_ATTRS: Final = r"""(?:\s+[\w.:\-]{1,64}\s*=\s*(?:"[^"<>\n]{0,400}"|'[^'<>\n]{0,400}'))*"""


def header_pattern(name: HeaderName, id_end: str | None = None) -> re.Pattern[str]:
    """The header after ``Call.open``: [ID ``id_end``] ``prefix`` NAME ``suffix_pattern`` ``end``."""
    if name.attribute is not None:
        return attribute_pattern(name.attribute, "name", name.end)
    head = ""
    if id_end is not None:
        head = r"[ \t]*(?P<id>[^\s<>]{0,200}?)[ \t]*" + re.escape(id_end)  # an empty id: none written
    blank = r"[ \t]*"
    return re.compile(
        head
        + blank
        + re.escape(name.prefix)
        + r"(?P<name>"
        + _NAME_CHARS
        + r"?)"
        + (r"(?:" + name.suffix_pattern + r")" if name.suffix_pattern else "")
        + (blank if name.end else r"\s*")  # empty end: blanks before the arguments' opener are no name
        + re.escape(name.end),
        re.S,
    )


def attribute_pattern(
    attribute: str, group: str, end: str, *, type_attr: str | None = None, string_attr: str | None = None
) -> re.Pattern[str]:
    """XML-style attributes up to ``end``, capturing ``attribute`` as ``group`` (and the type or string
    attribute as ``type`` / ``string``), in any order among other attributes."""
    parts = [
        r"(?=[^<>]*?\s" + re.escape(attribute) + r"""\s*=\s*(?P<q1>["'])(?P<""" + group + r">[^\"'<>\n]{1,400})(?P=q1))"
    ]
    if type_attr is not None:
        parts.append(
            r"(?=(?:[^<>]*?\s" + re.escape(type_attr) + r"""\s*=\s*(?P<q2>["'])(?P<type>[^"'<>\n]{1,40})(?P=q2))?)"""
        )
    if string_attr is not None:
        parts.append(
            r"(?=(?:[^<>]*?\s" + re.escape(string_attr) + r"""\s*=\s*(?P<q2>["'])(?P<string>true|false)(?P=q2))?)"""
        )
    return re.compile("".join(parts) + _ATTRS + r"\s*" + re.escape(end), re.I if string_attr else 0)


def _unescape(text: str, escapes: str) -> str:
    return html.unescape(text) if escapes == "xml" and "&" in text else text


def _closers(call: Call) -> tuple[str, ...]:
    return (call.close,) if call.close is not None else ()


@lru_cache(maxsize=256)
def tag_syntax(args: TaggedArgs, call_close: str, next_open: tuple[str, ...] = ()) -> TagSyntax:
    """The shared tag-body syntax of declared tagged arguments. ``next_open``: the call's own openers, which
    end a call whose closer is missing where the call can end (after a complete parameter), and are left
    for the next call; inside a value they are value text."""
    if args.key_attribute is not None:
        header = attribute_pattern(
            args.key_attribute, "key", args.key_end, type_attr=args.type_attribute, string_attr=args.string_attribute
        )
    else:
        value_open = r"\s*" + re.escape(args.value_open) if args.value_open else ""
        if args.type_open:  # optional, typing the value like a type attribute (tag_body reads the group)
            typed = re.escape(args.type_open) + r"(?P<type>[^<>\n]{1,40})" + re.escape(args.type_close)
            value_open = r"(?:\s*" + typed + ")?" + value_open
        header = re.compile(r"(?P<key>[^<>\n]{1,200}?)[ \t]*" + re.escape(args.key_end) + value_open)
    header_end = args.value_open or args.key_end
    return TagSyntax(
        param_open=args.open,
        header_end=header_end,
        param_header=header,
        param_close=args.close,
        call_close=call_close,
        lenient=args.close is not None,
        trim=args.values.whitespace == "strip",
        verbatim=args.values.whitespace == "verbatim",
        key_escapes=args.attribute_escapes == "xml",
        json_values=args.values.strings == "json",
        python_values=args.values.others == "python",
        cdata=args.values.cdata,
        outer_close=next_open,
    )


def call_handler(fmt: str, call: Call, section_close: str | None = None) -> Handler:
    """The handler of ``call.open``: reads the header (name, id) and pushes the body's state."""
    name = call.name
    closers = _closers(call)
    if isinstance(name, JsonName):
        return json_handler(fmt, name, closers, several=call.close is not None)
    if isinstance(name, PythonName):  # the pythonic family's list reader, behind the declared markers
        assert call.close is not None  # Call.check
        return wrapped_list(call.close, fmt, raw_strings=name.strings == "raw")
    assert isinstance(name, HeaderName), "a recipient-named call is read by its message header (formats/messages.py)"
    id_end = call.id.end if call.id is not None and call.id.position == "before_name" else None
    after_id = call.id.end if call.id is not None and call.id.position == "after_name" else None
    header = header_pattern(name, id_end)
    args = call.arguments
    # The next call's opener where this call can end (after its complete JSON or a complete parameter) ends
    # a call whose closer the model left out: the complete call is kept and the next one read.
    next_open = (call.open, *call.also_open) if call.close is not None else ()
    syntax = tag_syntax(args, call.close or "", next_open) if isinstance(args, TaggedArgs) else None
    json_block = args.json_block if isinstance(args, TaggedArgs) else None
    block_open = (json_block.open,) if json_block is not None else ()
    id_pattern = re.compile(r"[ \t]*(?P<id>[^\s<>]{0,200}?)[ \t]*" + re.escape(after_id)) if after_id else None
    # An empty name end: the name runs to the arguments' own opener, or to the closer of a call without any.
    args_open = args.noise + "<" if isinstance(args, ElementArgs) else args.open
    ends = (args_open or "{", call.close or "") if not name.end else ()
    undecided = header_undecided(name.end, ends, name.attribute is not None)  # (FastPaths.wait_for)

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        buf = eng.buf
        m = read_header(buf, e, name.end, header, final) if not ends else _read_to_any(buf, e, ends, header, final)
        if not m:
            # The stream ended inside the header: truncated, unless the call's closer came (another shape
            # of call behind the same opener, HY v4's behind Hy3's, is then for the next handler).
            cut = call.close is not None and call.close in buf[e : e + LOOKAHEAD + len(call.close)]
            if m is False and final and not cut and _header_prefix(buf, e, name.attribute is not None, ends):
                return cut_off(eng, s, fmt, final)
            if m is None and not _header_prefix(buf, e, name.attribute is not None, ends):
                return False  # prose after a shared opener: released now, not held for LOOKAHEAD
            if m is None and undecided is not None and not final:
                eng.wait_for(undecided, e)
            return m
        end = m.end()
        call_id = (m.group("id") or None) if id_end is not None else None
        if id_pattern is not None:
            assert after_id is not None
            k = read_header(buf, end, after_id, id_pattern, final)
            if not k:
                return cut_off(eng, s, fmt, final) if k is None and final else k
            call_id, end = k.group("id") or None, k.end()
        tool = _unescape(m.group("name").strip(), name.escapes)
        if not tool:
            return False
        if name.namespaced:
            tool = _namespaced(tool, eng.cfg.tools)
        body: JsonArgs
        if isinstance(args, ElementArgs):  # an element tree up to the call's closer
            eng.begin_call(fmt, s)
            eng.set_name(tool, call_id)
            eng.pos = end
            eng.push(XmlTreeState(call.close or "", args.noise))
            return True
        if syntax is not None:
            j = after_ws(buf, end, final)
            if j is None or isinstance(j, bool):
                if j is False and final:
                    return cut_off(eng, s, fmt, final)
                return j
            words = (syntax.param_open, syntax.call_close, *block_open)
            results = [starts_or_prefix(buf, j, w) for w in words]
            if not any(results):
                if None in results:  # the stream may still (or, at its end, did) cut the first tag
                    if not final:  # only more of the shortest such tag decides (a mismatch stays one)
                        eng.wait_for(min((w for w, r in zip(words, results, strict=True) if r is None), key=len), j)
                    return cut_off(eng, s, fmt, final)
                return False
            if not results[-1] or not block_open:
                eng.begin_call(fmt, s)
                eng.set_name(tool, call_id)
                eng.pos = end
                eng.push(TagCallState(syntax))
                return True
            assert json_block is not None
            body = json_block  # the arguments as one JSON object instead of elements
        else:
            assert isinstance(args, JsonArgs)
            body = args
        return _json_args(eng, s, end, final, body, tool, call_id)

    def _json_args(
        eng: Engine, s: int, end: int, final: bool, args: JsonArgs, tool: str, call_id: str | None
    ) -> Decision:
        buf = eng.buf
        if args.open:
            j = after_ws(buf, end, final)
            if j is None or isinstance(j, bool):
                return cut_off(eng, s, fmt, final) if j is False and final else j
            ok = starts_or_prefix(buf, j, args.open)
            if not ok:
                if ok is None and not final:  # only more of the arguments' opener decides
                    eng.wait_for(args.open, j)
                return cut_off(eng, s, fmt, final) if ok is None and final else ok
            end = j + len(args.open)
        first = _first(eng, end, final, fences=args.fenced)
        if not isinstance(first, tuple):
            return cut_off(eng, s, fmt, final) if first is False and final and end >= len(buf) else first
        j, fenced = first
        if buf[j] != "{":
            return False
        eng.begin_call(fmt, s)
        eng.set_name(tool, call_id)
        eng.pos = j
        if args.close and call.close is not None:
            eng.push(_Tail(call.close))  # the call's own closer after the arguments' one: markup
        if args.string_quote:  # an object in its own string quotes: read whole, then the closer
            eng.push(GemmaCallState(fmt, args.string_quote, args.close or call.close or ""))
            return True
        stops = next_open if not args.close else ()
        eng.push(JsonArgsState(eng, (args.close,) if args.close else closers, fenced=fenced, stops=stops))
        return True

    return handler


def _namespaced(tool: str, tools: Any) -> str:
    """``NAME.NAME`` is the declared tool ``NAME`` addressed through its own namespace (``HeaderName.namespaced``)."""
    head, dot, tail = tool.partition(".")
    if dot and head == tail and tools is not None and tool not in tools and head in tools:
        return head
    return tool


def _read_to_any(buf: str, i: int, ends: tuple[str, ...], pattern: re.Pattern[str], final: bool) -> Match:
    """:func:`read_header` for a header that ends before the earliest of ``ends`` (not part of it)."""
    found = [k for t in ends if t and (k := buf.find(t, i, i + LOOKAHEAD + len(t))) >= 0]
    if not found:
        return None if len(buf) < i + LOOKAHEAD and not final else False
    m = pattern.fullmatch(buf, i, min(found))
    return m if m is not None else False


_NAME_BLANK_REST: Final = re.compile(r"\S+\s+(\S*)")


def _header_prefix(buf: str, e: int, attributes: bool, ends: tuple[str, ...] = ()) -> bool:
    """At the end of the stream, the text after an opener may be the start of its header (a name, an id
    and their markers, or attributes), so the opener began a call the stream cut: short, one line, and
    (plain names) no blank inside, (attributes) a blank first. A name ended by the earliest of ``ends``
    may be followed by blanks and the start of one of them (IQuest's ``run`` newline ``<arg_key>``)."""
    rest = buf[e:]
    if len(rest) >= LOOKAHEAD:
        return False
    m = _NAME_BLANK_REST.fullmatch(rest) if ends else None
    if m is not None and any(t.startswith(m.group(1)) for t in ends if t):
        return True
    if "\n" in rest.rstrip():
        return False
    if attributes:
        return not rest or rest[0].isspace()
    return " " not in rest.strip()


class _Tail(State):
    """After a call whose arguments had their own closer: the call's closer (after whitespace) is markup."""

    __slots__ = ("close",)

    def __init__(self, close: str) -> None:
        self.close = close

    def step(self, eng: Engine, final: bool) -> bool:
        j = after_ws(eng.buf, eng.pos, final)
        if j is None:
            return False
        if j is not False:
            ok = starts_or_prefix(eng.buf, j, self.close)
            if ok is None and not final:
                return False
            if ok:
                eng.pos = j + len(self.close)
        eng.pop()
        return True


def json_handler(fmt: str, name: JsonName, closers: tuple[str, ...], *, several: bool) -> Handler:
    """A JSON call object (or a list of them) after an opener, read with the declared field names."""
    fields = None if _default_fields(name) else (name.field, (name.arguments_field, *name.alt_arguments_fields))

    def state(eng: Engine, list_form: bool, fenced: bool) -> State:
        if name.name_is_key:
            return KeyedCallState(eng, fmt, closers, list_form=list_form, fenced=fenced)
        return JsonCallState(
            eng,
            fmt,
            closers,
            list_form=list_form,
            fenced=fenced,
            several=several and not list_form,
            fields=fields,
            nested=name.nested,
        )

    return json_call(fmt, closers, objects=not name.list, lists=True, several=several, state=state)


def _default_fields(name: JsonName) -> bool:
    return name.field == "name" and name.arguments_field == "arguments" and not name.nested


def either(first: Handler, second: Handler) -> Handler:
    """``first``, and where it declines the marker (False), ``second``: two shapes of call behind one opener."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        found = first(eng, s, e, final)
        return second(eng, s, e, final) if found is False else found

    return handler


def section_handler(fmt: str, decl: Declaration, calls: Handler | None = None, failed: bool = False) -> Handler:
    """The section opener: the calls inside run to the section's closer (optional when None). ``calls``:
    the handler of the calls inside (default: the declaration's own call handler); ``failed``: a closed call
    no shape reads is a failed call of the section (else the section ends there and its text is rescanned)."""
    section = decl.section
    assert section is not None
    call = decl.call
    close = (section.close,) if section.close is not None else ()
    if not call.open:
        # JSON calls straight inside the section: the section's markers are the call's.
        assert isinstance(call.name, JsonName)
        return json_handler(fmt, call.name, close, several=True)
    handler_ = calls if calls is not None else call_handler(fmt, call)
    if failed and call.close:
        handler_ = either(handler_, unparsed_block(fmt, call.close))
    markers: dict[str, Handler] = {m: handler_ for m in (call.open, *call.also_open)}
    markers.update((m, drop) for m in section.separators)
    table = block_table(markers, close)

    words = (*markers, *close)
    waits = blanks_then_prefix(words)  # (what the checks below leave undecided)

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        j = after_ws(eng.buf, e, final)
        if j is not False:
            results = () if j is None else [starts_or_prefix(eng.buf, j, m) for m in words]
            if not any(results):
                if j is None or (None in results and not final):
                    eng.wait_for(waits, e)  # the first call's opener arriving in pieces: kept meanwhile
                    return None
                return False
        elif final:
            return cut_off(eng, s, fmt, final)
        eng.pos = e
        junk = (fmt, close) if close and not section.noise else None  # noise: stray text is not a broken call
        eng.push(BlockState(table(), junk, eng.next_index, section.noise))
        return True

    return handler


def compile_declaration(decl: Declaration, also: tuple[Declaration, ...] = ()) -> FormatSpec:
    """The catalog entry of a declaration (validated when it was built). ``also``: declarations of other
    shapes of call behind the same call opener, read where this one's call declines (Hy3 and HY v4)."""
    fmt = decl.name
    handlers: list[tuple[str, Handler]] = []
    calls: Handler | None = None
    if decl.call.open and not isinstance(decl.call.name, RecipientName):
        calls = call_handler(fmt, decl.call)
        for other in also:
            calls = either(calls, call_handler(other.name, other.call))
        handlers.extend((m, calls) for m in (decl.call.open, *decl.call.also_open))
    if decl.section is not None:
        section = section_handler(fmt, decl, calls, failed=bool(also))
        handlers.extend((m, section) for m in (decl.section.open, *decl.section.also_open))

    def wire(w: Wiring) -> None:
        for marker, handler in handlers:
            w.on(marker, handler)
        if decl.call.standalone:
            assert isinstance(decl.call.name, JsonName)
            wire_standalone(w, fmt, decl.call.name)
        for r in decl.reasoning:
            w.add_reasoning(r.open, r.close, primed=r.primed, start_only=r.start_only)
        if decl.content is not None:
            for m in (decl.content.open, decl.content.close):
                if m is not None and m not in w.wrappers:
                    w.wrappers.append(m)
        w.dropped.extend(t for t in decl.control_tokens if t not in w.dropped)
        w.separators.extend(t for t in decl.text_separators if t not in w.separators)
        if decl.messages is not None:
            wire_messages(w, decl)

    delimiters, example = describe_markup(decl)
    return FormatSpec(
        name=fmt,
        models=decl.models or "declared",
        delimiters=delimiters,
        example=example,
        wire=wire,
        opt_in=not decl.auto,
        primed=any(r.primed for r in decl.reasoning),
        notes=decl.notes or "declared format",
        declaration=decl,
    )
