"""The declaration vocabulary: a format written as data (frozen, hashable, JSON round-trippable).

One vocabulary serves the built-in formats written as data, :func:`streamparse.formats.declare` for users,
and the derivation of a format from a chat template, which emits it. A :class:`Declaration` says how a
model writes one call (:class:`Call`: its opener, closer, name, arguments, id), the section around several
calls, its reasoning delimiters, the wrapper around its visible text and its control tokens. The compiler
(:mod:`streamparse.formats.compile`) turns it into a format of the catalog; this module imports nothing of
the engine, so a declaration can be built, checked, stored and loaded anywhere.

Every value is validated when it is built: an invalid declaration raises ``ValueError`` with the field's
path (``call.arguments.open``), never at parse time. ``to_dict()`` / ``from_dict()`` map it to plain JSON
data (union members carry a ``"kind"``; fields left at their default are omitted); ``from_dict`` refuses
unknown keys, so a typo in a checked-in declaration is an error, not a silent default.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias, Union, get_args

from .declaration_base import (
    NAME_RE,
    SEP_BLANKS,
    Escapes,
    IdPosition,
    Others,
    Part,
    Strings,
    Whitespace,
    build,
    check_bool,
    check_choice,
    check_end,
    check_field,
    check_marker,
    check_spellings,
    check_text,
    fail,
)
from .declaration_recipient import Messages, RecipientName, check_messages

__all__ = [
    "Declaration",
    "Call",
    "Section",
    "Reasoning",
    "Wrapper",
    "JsonName",
    "HeaderName",
    "JsonArgs",
    "TaggedArgs",
    "Values",
    "IdSpec",
    "NameSpec",
    "ArgsSpec",
    "Messages",
    "RecipientName",
]


@dataclass(frozen=True)
class Values(Part):
    """How the template writes an argument value, and so how it is read back (the inverse).

    ``strings``: ``"raw"`` (the text itself) or ``"json"`` (quoted, ``tojson``); ``others`` (numbers,
    booleans, null, arrays, objects): ``"json"``, ``"raw"``, or ``"python"`` (the template's ``{{ value }}``
    of a Python value: ``True``, ``None``, ``['a']``); raw values are typed by the schema (text-value rule;
    ``"python"``: ``None`` is null too) and by the type/string attribute when declared.
    ``whitespace`` around a value: ``"verbatim"``, ``"one_newline"``, ``"strip"``; ``cdata``: CDATA is text (MiniCPM5).
    """

    strings: Strings = "raw"
    others: Others = "json"
    whitespace: Whitespace = "one_newline"
    cdata: bool = False

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        check_choice(path + "strings", self.strings, get_args(Strings))
        check_choice(path + "others", self.others, get_args(Others))
        check_choice(path + "whitespace", self.whitespace, get_args(Whitespace))
        check_bool(path + "cdata", self.cdata)


@dataclass(frozen=True)
class JsonName(Part):
    """The whole call is JSON: an object naming the tool in ``field`` with its arguments in
    ``arguments_field`` (or one of ``alt_arguments_fields``), optionally nested under ``nested``
    (``{"type": "function", "function": {...}}``); ``list``: a JSON list of such objects; ``name_is_key``:
    ``{"NAME": {ARGS}}`` (Apertus). Arguments written as a JSON string holding the object (a template
    that applies ``tojson`` twice) are decoded either way."""

    field: str = "name"
    arguments_field: str = "arguments"
    alt_arguments_fields: tuple[str, ...] = ("parameters",)
    nested: str = ""
    list: bool = False
    name_is_key: bool = False

    kind: ClassVar[str] = "json"

    def check(self, path: str) -> None:
        check_field(path + "field", self.field)
        check_field(path + "arguments_field", self.arguments_field)
        if not isinstance(self.alt_arguments_fields, tuple):
            raise fail(path + "alt_arguments_fields", "must be a list of field names")
        for i, f in enumerate(self.alt_arguments_fields):
            check_field(f"{path}alt_arguments_fields[{i}]", f)
        if self.nested:
            check_field(path + "nested", self.nested)
        check_bool(path + "list", self.list)
        check_bool(path + "name_is_key", self.name_is_key)
        names = {self.field, self.arguments_field, *self.alt_arguments_fields}
        if len(names) != 2 + len(self.alt_arguments_fields) and not self.name_is_key:
            raise fail(path + "field", "the name and arguments fields must all differ")


@dataclass(frozen=True)
class HeaderName(Part):
    """The name is written in the call's header, right after ``Call.open``, up to ``end``.

    Plain: ``prefix`` NAME ``suffix_pattern`` ``end`` (``<function=`` NAME ``>``; ``functions.`` NAME ``:0``
    with ``suffix_pattern=":\\d+"``). ``attribute``: the header is XML-style attributes and the name is the
    value of this one (``<invoke name="NAME">``, ``<|open|>call tool="NAME" index="1"<|sep|>``); other
    attributes are allowed and ignored. ``escapes="xml"``: the attribute value is XML-escaped (``&quot;``).
    ``end`` may be a newline (``<tool_call>NAME\\n``), or empty: the name ends where the arguments' opener
    begins, or at the call's closer when there are none (GLM-4.5's ``<tool_call>NAME<arg_key>``).
    """

    end: str
    prefix: str = ""
    suffix_pattern: str = ""
    attribute: str | None = None
    escapes: Escapes = "none"

    kind: ClassVar[str] = "header"

    def check(self, path: str) -> None:
        if self.end or self.attribute is not None:  # empty: checked with the call (Call.check)
            check_end(path + "end", self.end)
        check_text(path + "prefix", self.prefix)
        check_text(path + "suffix_pattern", self.suffix_pattern)
        if self.suffix_pattern:
            try:
                re.compile(self.suffix_pattern)
            except re.error as exc:
                raise fail(path + "suffix_pattern", f"is not a regular expression: {exc}") from None
        check_field(path + "attribute", self.attribute, optional=True)
        if self.attribute is not None and (self.prefix or self.suffix_pattern):
            raise fail(path + "attribute", "an attribute name takes no prefix or suffix_pattern")
        check_choice(path + "escapes", self.escapes, get_args(Escapes))
        if self.escapes != "none" and self.attribute is None:
            raise fail(path + "escapes", "applies to an attribute value only")


@dataclass(frozen=True)
class JsonArgs(Part):
    """The arguments are one JSON object after the header, between optional ``open`` and ``close``
    markers (K3's ``<|open|>json type="object"<|sep|>``...``<|close|>json<|sep|>``); ``fenced``: inside a
    ```` ```json ```` fence."""

    open: str = ""
    close: str = ""
    fenced: bool = False

    kind: ClassVar[str] = "json"

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open, empty=True)
        check_marker(path + "close", self.close, empty=True)
        if bool(self.open) != bool(self.close):
            raise fail(path + "close", "open and close are declared together")
        check_bool(path + "fenced", self.fenced)


@dataclass(frozen=True)
class TaggedArgs(Part):
    """One element per argument: ``open`` KEY ``key_end`` [``value_open``] VALUE ``close``.

    ``<parameter=`` K ``>`` V ``</parameter>``; ``<arg_key>`` K ``</arg_key>`` + ``value_open="<arg_value>"``
    V ``</arg_value>``; ``close=None``: the value ends at ``</KEY>``. ``key_attribute``: the key is the
    value of that attribute in the element's header (``<param name="K">``, K3's ``<|open|>argument key="K"
    type="T"<|sep|>``); ``type_attribute``: an attribute giving the value's JSON type (``string`` means raw
    text, anything else JSON); ``string_attribute``: DSML's ``string="true|false"``; ``attribute_escapes``:
    attribute values are XML-escaped. ``values``: how each value is written. ``json_block``: the call may
    hold one JSON arguments object between these markers instead (K3's ``<|open|>json type="object"<|sep|>``).
    """

    open: str
    key_end: str
    close: str | None
    value_open: str = ""
    key_attribute: str | None = None
    type_attribute: str | None = None
    string_attribute: str | None = None
    attribute_escapes: Escapes = "none"
    values: Values = Values()
    json_block: JsonArgs | None = None

    kind: ClassVar[str] = "tagged"

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open)
        check_end(path + "key_end", self.key_end)
        check_marker(path + "close", self.close, optional=True)
        check_marker(path + "value_open", self.value_open, empty=True)
        attrs = (self.key_attribute, self.type_attribute, self.string_attribute)
        for label, attr in zip(("key_attribute", "type_attribute", "string_attribute"), attrs, strict=True):
            check_field(path + label, attr, optional=True)
        if (self.type_attribute or self.string_attribute) and self.key_attribute is None:
            raise fail(path + "type_attribute", "type and string attributes need key_attribute")
        if self.type_attribute and self.string_attribute:
            raise fail(path + "string_attribute", "declare type_attribute or string_attribute, not both")
        named = [a for a in attrs if a is not None]
        if len(set(named)) != len(named):
            raise fail(path + "key_attribute", "attribute names must differ")
        check_choice(path + "attribute_escapes", self.attribute_escapes, get_args(Escapes))
        if self.attribute_escapes != "none" and self.key_attribute is None:
            raise fail(path + "attribute_escapes", "applies to attributes only")
        if self.close is None and self.key_attribute is not None:
            raise fail(path + "close", "</KEY> closers need the key between markers, not in an attribute")
        if not isinstance(self.values, Values):
            raise fail(path + "values", "must be a Values")
        self.values.check(path + "values.")
        if self.json_block is not None:
            if not isinstance(self.json_block, JsonArgs) or not self.json_block.open:
                raise fail(path + "json_block", "must be a JsonArgs with open and close markers")
            self.json_block.check(path + "json_block.")


@dataclass(frozen=True)
class IdSpec(Part):
    """A call id written in the header: ``before_name`` (``Call.open`` ID ``end`` NAME...) or
    ``after_name`` (NAME ``HeaderName.end`` ID ``end`` then the arguments)."""

    position: IdPosition
    end: str

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        check_choice(path + "position", self.position, get_args(IdPosition))
        check_end(path + "end", self.end)


NameSpec: TypeAlias = Union[JsonName, HeaderName, RecipientName]  # noqa: UP007 (a runtime alias: get_args reads it)
ArgsSpec: TypeAlias = Union[JsonArgs, TaggedArgs]  # noqa: UP007


@dataclass(frozen=True)
class Call(Part):
    """How one call is written. ``open`` begins it (``""`` only for JSON calls inside a section: the
    section's JSON list or objects are the calls); ``close`` ends it, or None when the call ends with its
    JSON (early completion) or, in a section, at the next call or the section's end. ``also_open``:
    other spellings of the opener the model writes (GigaChat's ``function call<|role_sep|>`` and
    ``<|function_call|>``), read the same way."""

    open: str
    close: str | None
    name: NameSpec = JsonName()
    arguments: ArgsSpec = JsonArgs()
    id: IdSpec | None = None
    also_open: tuple[str, ...] = ()

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open, empty=True)
        check_spellings(path + "also_open", self.also_open, self.open)
        check_marker(path + "close", self.close, optional=True)
        if self.close is not None and self.close == self.open:
            raise fail(path + "close", "open and close must differ")
        if not isinstance(self.name, (JsonName, HeaderName, RecipientName)):
            raise fail(path + "name", "must be a JsonName, a HeaderName or a RecipientName")
        if not isinstance(self.arguments, (JsonArgs, TaggedArgs)):
            raise fail(path + "arguments", "must be a JsonArgs or a TaggedArgs")
        self.name.check(path + "name.")
        self.arguments.check(path + "arguments.")
        if isinstance(self.name, JsonName):
            if self.arguments != JsonArgs():
                raise fail(path + "arguments", "a JSON call object holds its own arguments")
            if self.id is not None:
                raise fail(path + "id", "a JSON call object has no header to hold an id")
        elif isinstance(self.arguments, TaggedArgs) and self.close is None:
            raise fail(path + "close", "a call with tagged arguments needs a closer")
        if self.id is not None:
            if not isinstance(self.id, IdSpec):
                raise fail(path + "id", "must be an IdSpec")
            self.id.check(path + "id.")
            if isinstance(self.name, HeaderName) and self.id.end == self.name.end:
                raise fail(path + "id.end", "must differ from name.end (it ends the id, not the name)")
        if isinstance(self.name, RecipientName):
            if self.open or self.also_open or self.id is not None or not isinstance(self.arguments, JsonArgs):
                raise fail(path + "name", "a recipient names the call: no opener, no id, JSON arguments")
        elif not self.open and not isinstance(self.name, JsonName):
            raise fail(path + "open", "only JSON calls inside a section may have no opener")
        if isinstance(self.name, HeaderName) and not self.name.end:
            opened = isinstance(self.arguments, TaggedArgs) or self.arguments.open
            if not opened or self.close is None or (self.id is not None and self.id.position == "after_name"):
                raise fail(path + "name.end", "empty only when the arguments have an opener and the call a closer")


@dataclass(frozen=True)
class Section(Part):
    """A wrapper around one or more calls. ``close`` None: the section ends at the end of the output or
    at the first text that is not a call. ``separators``: markup written between or around the calls
    beyond whitespace (``,``; Step-3's per-call ``<｜tool_call_begin｜>`` framing), removed. ``also_open``:
    other spellings of the opener. ``noise``: other text between the section's markers (Step-3's
    ``function<｜tool_sep｜>NAME``) is dropped when the section's next marker follows within the look-ahead."""

    open: str
    close: str | None = None
    separators: tuple[str, ...] = ()
    also_open: tuple[str, ...] = ()
    noise: bool = False

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open)
        check_marker(path + "close", self.close, optional=True)
        check_spellings(path + "separators", self.separators, self.open)
        check_spellings(path + "also_open", self.also_open, self.open)
        check_bool(path + "noise", self.noise)
        if self.close is not None and self.close == self.open:
            raise fail(path + "close", "open and close must differ")


@dataclass(frozen=True)
class Reasoning(Part):
    """Reasoning delimiters. ``open`` None: end-only (what comes before ``close`` is reasoning, delimiter
    style). ``primed``: the generation prompt writes ``open`` when thinking is on, so the output starts
    inside reasoning (a preset with ``start_in_reasoning`` or the option says when). ``start_only``: the
    opener counts only at the start of the output (before any visible text)."""

    open: str | None
    close: str
    primed: bool = False
    start_only: bool = True

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open, optional=True)
        check_marker(path + "close", self.close)
        check_bool(path + "primed", self.primed)
        check_bool(path + "start_only", self.start_only)
        if self.open == self.close:
            raise fail(path + "close", "open and close must differ")


@dataclass(frozen=True)
class Wrapper(Part):
    """Markup around the visible text (``<answer>``...``</answer>``, K3's response channel), removed."""

    open: str | None
    close: str | None

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open, optional=True)
        check_marker(path + "close", self.close, optional=True)
        if self.open is None and self.close is None:
            raise fail(path + "open", "a wrapper declares open, close or both")


@dataclass(frozen=True)
class Declaration(Part):
    """A whole format. ``name``: ``[a-z][a-z0-9_]*``, the name ``formats=[...]`` uses. ``auto``: active
    under ``formats="auto"`` once registered (off by default: an opener the catalog does not know might
    occur in other models' prose). ``example``: one output with a call (``streamparse formats``, tests).
    ``text_separators``: text the template writes around its own markers beyond whitespace (a phrase, a
    blank that is not ASCII whitespace); removed where separator whitespace is (at the start of the output,
    right after markup, right before markup or the end of the output, exact output), content elsewhere."""

    name: str
    call: Call
    section: Section | None = None
    reasoning: tuple[Reasoning, ...] = ()
    content: Wrapper | None = None
    control_tokens: tuple[str, ...] = ()
    text_separators: tuple[str, ...] = ()
    messages: Messages | None = None
    models: str = ""
    example: str = ""
    notes: str = ""
    auto: bool = False

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        if not isinstance(self.name, str) or not NAME_RE.match(self.name):
            raise fail("name", f"must match [a-z][a-z0-9_]* (at most 64 characters), got {self.name!r}")
        if not isinstance(self.call, Call):
            raise fail("call", "must be a Call")
        self.call.check("call.")
        if self.section is not None:
            if not isinstance(self.section, Section):
                raise fail("section", "must be a Section")
            self.section.check("section.")
        check_messages(self.messages, isinstance(self.call.name, RecipientName), self.section is not None)
        if not self.call.open and self.section is None and self.messages is None:
            raise fail("call.open", "a call without an opener needs a section around it")
        if isinstance(self.call.name, JsonName) and self.call.name.list and not (self.section or self.call.open):
            raise fail("call.name.list", "a JSON list of calls needs an opener")
        if not isinstance(self.reasoning, tuple):
            raise fail("reasoning", "must be a list")
        for i, r in enumerate(self.reasoning):
            if not isinstance(r, Reasoning):
                raise fail(f"reasoning[{i}]", "must be a Reasoning")
            r.check(f"reasoning[{i}].")
        if sum(r.primed for r in self.reasoning) > 1:
            raise fail("reasoning", "at most one reasoning delimiter pair is primed")
        if self.content is not None:
            if not isinstance(self.content, Wrapper):
                raise fail("content", "must be a Wrapper")
            self.content.check("content.")
        if not isinstance(self.control_tokens, tuple):
            raise fail("control_tokens", "must be a list")
        for i, t in enumerate(self.control_tokens):
            check_marker(f"control_tokens[{i}]", t)
        if not isinstance(self.text_separators, tuple):
            raise fail("text_separators", "must be a list")
        for i, t in enumerate(self.text_separators):
            check_text(f"text_separators[{i}]", t)
            if not t or len(t) > 128 or not t.strip(SEP_BLANKS):
                raise fail(f"text_separators[{i}]", f"must be 1 to 128 characters, not only whitespace, got {t!r}")
        for label in ("models", "example", "notes"):
            check_text(label, getattr(self, label))
        check_bool("auto", self.auto)
        self._check_overlaps()

    def _check_overlaps(self) -> None:
        """A marker that means two things would make the parse depend on which is tried first."""
        seen: dict[str, str] = {}
        for where, marker in self.markers():
            other = seen.get(marker)
            if other is not None and not _may_share(other, where):
                raise fail(where, f"{marker!r} is also {other}")
            seen.setdefault(marker, where)

    def markers(self) -> list[tuple[str, str]]:
        """(field path, marker) of every literal marker the visible-text scope sees."""
        out: list[tuple[str, str]] = []
        if self.section is not None:
            out.append(("section.open", self.section.open))
            out.extend((f"section.also_open[{i}]", m) for i, m in enumerate(self.section.also_open))
        if self.call.open:
            out.append(("call.open", self.call.open))
        out.extend((f"call.also_open[{i}]", m) for i, m in enumerate(self.call.also_open))
        for i, r in enumerate(self.reasoning):
            if r.open is not None:
                out.append((f"reasoning[{i}].open", r.open))
            out.append((f"reasoning[{i}].close", r.close))
        if self.content is not None:
            out.extend((f"content.{k}", m) for k in ("open", "close") if (m := getattr(self.content, k)) is not None)
        out.extend((f"control_tokens[{i}]", t) for i, t in enumerate(self.control_tokens))
        out.extend((f"text_separators[{i}]", t) for i, t in enumerate(self.text_separators))
        if self.messages is not None:
            out.extend((f"messages.{k}", m) for k, m in self.messages.markers())
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Declaration:
        """A declaration from plain data (``to_dict``'s output); ``ValueError`` for anything else."""
        decl: Declaration = build(cls, data, "", _PARTS)
        return decl

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)


def _may_share(a: str, b: str) -> bool:
    # Reasoning pairs may share a closer (`</think>` for two openers).
    return a.startswith("reasoning[") and b.startswith("reasoning[") and a.endswith(".close") and b.endswith(".close")


# -- from plain data ----------------------------------------------------------------------------------

# The part each field holds (a dict: a union, chosen by "kind"; a list: a list of parts).
_PARTS: dict[str, Any] = {
    "name": {"json": JsonName, "header": HeaderName, "recipient": RecipientName},
    "arguments": {"json": JsonArgs, "tagged": TaggedArgs},
    "call": Call,
    "section": Section,
    "content": Wrapper,
    "values": Values,
    "json_block": JsonArgs,
    "id": IdSpec,
    "reasoning": [Reasoning],
    "messages": Messages,
}
