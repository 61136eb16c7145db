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
from dataclasses import dataclass
from typing import Any, ClassVar

from .declaration_base import (
    NAME_RE,
    SEP_BLANKS,
    Part,
    build,
    check_bool,
    check_marker,
    check_spellings,
    check_text,
    fail,
)
from .declaration_call import (
    ArgsSpec,
    ElementArgs,
    HeaderName,
    IdSpec,
    JsonArgs,
    JsonName,
    NameSpec,
    PythonName,
    TaggedArgs,
    Values,
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
    "PythonName",
    "JsonArgs",
    "TaggedArgs",
    "ElementArgs",
    "Values",
    "IdSpec",
    "NameSpec",
    "ArgsSpec",
    "Messages",
    "RecipientName",
]


@dataclass(frozen=True)
class Call(Part):
    """How one call is written. ``open`` begins it (``""`` only for JSON calls inside a section: the
    section's JSON list or objects are the calls); ``close`` ends it, or None when the call ends with its
    JSON (early completion) or, in a section, at the next call or the section's end. ``also_open``:
    other spellings of the opener the model writes (GigaChat's ``function call<|role_sep|>`` and
    ``<|function_call|>``), read the same way. ``standalone``: no marker at all, the call is bare JSON
    standing on its own (Llama 3.x, xLAM): read only at the start of the output or of a line, held until
    its keys show a call (other JSON, and JSON inside a sentence, stay text), as the built-in ``json``
    family reads; ``open`` is then ``""`` and ``close`` None."""

    open: str
    close: str | None
    name: NameSpec = JsonName()
    arguments: ArgsSpec = JsonArgs()
    id: IdSpec | None = None
    also_open: tuple[str, ...] = ()
    standalone: bool = False

    kind: ClassVar[str] = ""

    def check(self, path: str) -> None:
        check_marker(path + "open", self.open, empty=True)
        check_spellings(path + "also_open", self.also_open, self.open)
        check_marker(path + "close", self.close, optional=True)
        if self.close is not None and self.close == self.open:
            raise fail(path + "close", "open and close must differ")
        if not isinstance(self.name, (JsonName, HeaderName, RecipientName, PythonName)):
            raise fail(path + "name", "must be a JsonName, a HeaderName, a RecipientName or a PythonName")
        if not isinstance(self.arguments, (JsonArgs, TaggedArgs, ElementArgs)):
            raise fail(path + "arguments", "must be a JsonArgs, a TaggedArgs or an ElementArgs")
        self.name.check(path + "name.")
        self.arguments.check(path + "arguments.")
        if isinstance(self.name, PythonName):
            # The list's own markup delimits it: an opener and a closer around ``[...]``, nothing in between.
            if not self.open or self.close is None or self.also_open or self.standalone:
                raise fail(path + "name", "a Python call list is written between an opener and a closer")
            if self.arguments != JsonArgs() or self.id is not None:
                raise fail(path + "arguments", "a Python call holds its own keyword arguments and no id")
        if isinstance(self.name, JsonName):
            if self.arguments != JsonArgs():
                raise fail(path + "arguments", "a JSON call object holds its own arguments")
            if self.id is not None:
                raise fail(path + "id", "a JSON call object has no header to hold an id")
        elif isinstance(self.arguments, (TaggedArgs, ElementArgs)) and self.close is None:
            what = "tagged arguments" if isinstance(self.arguments, TaggedArgs) else "element-tree arguments"
            raise fail(path + "close", f"a call with {what} needs a closer")
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
        check_bool(path + "standalone", self.standalone)
        if self.standalone:
            if self.open or self.also_open or self.close is not None:
                raise fail(path + "standalone", "a standalone call has no opener, other spellings or closer")
            if isinstance(self.name, JsonName) and self.name.name_is_key:
                raise fail(path + "standalone", "a bare {NAME: ARGS} object is not told from data: it needs a marker")
        if isinstance(self.arguments, JsonArgs) and self.arguments.string_quote and self.close is None:
            raise fail(path + "close", "arguments in their own string quotes need a closer")
        if isinstance(self.name, HeaderName) and not self.name.end:
            # The name runs to the arguments' opener: a marker, or the ``{`` of JSON written without one.
            args = self.arguments
            opened = not isinstance(args, JsonArgs) or args.open or not args.fenced
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
        if self.call.standalone and self.section is not None:
            raise fail("call.standalone", "a standalone call has no section around it")
        if isinstance(self.call.name, PythonName) and (self.section is not None or self.messages is not None):
            raise fail("call.name", "a Python call list is its own section: no section or messages around it")
        check_messages(self.messages, isinstance(self.call.name, RecipientName), self.section is not None)
        if not self.call.open and self.section is None and not self.call.standalone and self.messages is None:
            raise fail("call.open", "a call without an opener needs a section around it (or is standalone)")
        bare = not (self.section or self.call.open or self.call.standalone)
        if isinstance(self.call.name, JsonName) and self.call.name.list and bare:
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
    "name": {"json": JsonName, "header": HeaderName, "recipient": RecipientName, "python": PythonName},
    "arguments": {"json": JsonArgs, "tagged": TaggedArgs, "elements": ElementArgs},
    "call": Call,
    "section": Section,
    "content": Wrapper,
    "values": Values,
    "json_block": JsonArgs,
    "id": IdSpec,
    "reasoning": [Reasoning],
    "messages": Messages,
}
