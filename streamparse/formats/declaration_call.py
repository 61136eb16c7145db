"""The parts of one call below its markers: how the name is written (:class:`JsonName`, :class:`HeaderName`),
the arguments (:class:`JsonArgs`, :class:`TaggedArgs` and their :class:`Values`) and the id
(:class:`IdSpec`). :mod:`.declaration` assembles them into a :class:`~.declaration.Call` and re-exports them;
they live apart so the vocabulary can grow without one module outgrowing the size limit."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, TypeAlias, Union, get_args

from .declaration_base import (
    Escapes,
    IdPosition,
    Others,
    Part,
    PythonStrings,
    Strings,
    Whitespace,
    check_bool,
    check_choice,
    check_end,
    check_field,
    check_marker,
    check_text,
    fail,
)
from .declaration_recipient import RecipientName

__all__ = [
    "Values",
    "JsonName",
    "HeaderName",
    "PythonName",
    "JsonArgs",
    "TaggedArgs",
    "ElementArgs",
    "IdSpec",
    "NameSpec",
    "ArgsSpec",
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
    ``namespaced``: the template presents each tool as a namespace of its own (Muse Glimmer's prompt lists
    ``"NAME.*"`` among the valid recipients), so ``NAME.NAME`` is the declared tool ``NAME`` (the bare tool
    addressed through its namespace) when only ``NAME`` is declared.
    """

    end: str
    prefix: str = ""
    suffix_pattern: str = ""
    attribute: str | None = None
    escapes: Escapes = "none"
    namespaced: bool = False

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
        check_bool(path + "namespaced", self.namespaced)


@dataclass(frozen=True)
class JsonArgs(Part):
    """The arguments are one JSON object after the header, between optional ``open`` and ``close``
    markers (K3's ``<|open|>json type="object"<|sep|>``...``<|close|>json<|sep|>``); ``fenced``: inside a
    ```` ```json ```` fence. ``string_quote``: the object is written in JSON's notation except that strings
    sit between this token, as they are (no escapes), and keys are bare words or quoted the same way
    (Gemma 4's ``{city:<|"|>Paris<|"|>,days:3}``); Python's ``None`` / ``True`` / ``False`` read as JSON's."""

    open: str = ""
    close: str = ""
    fenced: bool = False
    string_quote: str = ""

    kind: ClassVar[str] = "json"

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open, empty=True)
        check_marker(path + "close", self.close, empty=True)
        if bool(self.open) != bool(self.close):
            raise fail(path + "close", "open and close are declared together")
        check_bool(path + "fenced", self.fenced)
        check_marker(path + "string_quote", self.string_quote, empty=True)
        if self.string_quote and (self.fenced or self.string_quote == '"' or set("{}[]:,") & set(self.string_quote)):
            raise fail(path + "string_quote", "a token other than '\"', without brackets, colons or commas, unfenced")


@dataclass(frozen=True)
class TaggedArgs(Part):
    """One element per argument: ``open`` KEY ``key_end`` [``value_open``] VALUE ``close``.

    ``<parameter=`` K ``>`` V ``</parameter>``; ``<arg_key>`` K ``</arg_key>`` + ``value_open="<arg_value>"``
    V ``</arg_value>``; ``close=None``: the value ends at ``</KEY>``. ``key_attribute``: the key is the
    value of that attribute in the element's header (``<param name="K">``, K3's ``<|open|>argument key="K"
    type="T"<|sep|>``); ``type_attribute``: an attribute giving the value's JSON type (``string`` means raw
    text, anything else JSON); ``string_attribute``: DSML's ``string="true|false"``; ``attribute_escapes``:
    attribute values are XML-escaped. ``type_open``/``type_close``: an optional element between the key and
    ``value_open`` naming the value's JSON type the same way (K2 V3's ``<ifm|arg_type>integer</ifm|arg_type>``).
    ``values``: how each value is written. ``json_block``: the call may
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
    type_open: str = ""
    type_close: str = ""
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
        check_marker(path + "type_open", self.type_open, empty=True)
        check_marker(path + "type_close", self.type_close, empty=True)
        if bool(self.type_open) != bool(self.type_close):
            raise fail(path + "type_close", "type_open and type_close are declared together")
        if self.type_open and (self.key_attribute is not None or not self.value_open):
            raise fail(path + "type_open", "a type element sits between a key element and value_open")
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
class ElementArgs(Part):
    """One element named by each key, ``<KEY>VALUE</KEY>``, its value an element tree: child elements are
    an object, repeated ``<item>`` elements a list, text leaves are typed by the tool's schema (strings
    raw; ``7``, ``2.5``, ``true`` as written). ``noise``: a token written before every tag, markers
    included (MiniMax-M3's ``]<]minimax[>[``), removed from the body; the call's and the section's
    markers are then declared with it."""

    noise: str = ""

    kind: ClassVar[str] = "elements"

    def check(self, path: str) -> None:
        check_marker(path + "noise", self.noise, empty=True)


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


@dataclass(frozen=True)
class PythonName(Part):
    """The calls are Python call expressions: the tool's name called with its arguments as keyword
    arguments, ``NAME(key=value, ...)``, in a bracketed list ``[NAME(...), NAME(...)]`` between the call's
    opener and closer (LFM2's ``<|tool_call_start|>[...]<|tool_call_end|>``), read as the built-in
    ``pythonic`` family reads them (Python literals; a JSON object's ``true``/``null`` too). ``strings``:
    ``"python"``, a string argument is a Python string literal (its escapes decoded); ``"raw"``, the template
    writes it between single quotes as it is, with no escapes (LFM2.5's ``'`` + value + ``'``), so it is read
    back verbatim, up to the quote that the next ``name=`` or the call's ``)`` follows."""

    strings: PythonStrings = "python"

    kind: ClassVar[str] = "python"

    def check(self, path: str) -> None:
        check_choice(path + "strings", self.strings, get_args(PythonStrings))


NameSpec: TypeAlias = Union[JsonName, HeaderName, RecipientName, PythonName]  # noqa: UP007 (get_args reads it)
ArgsSpec: TypeAlias = Union[JsonArgs, TaggedArgs, ElementArgs]  # noqa: UP007
