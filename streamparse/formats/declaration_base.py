"""What every part of a declaration shares: validation helpers (a ``ValueError`` naming the field's path)
and the plain-data form (``to_dict``). The parts themselves are in :mod:`.declaration`."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar, Literal

NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
FIELD_RE = re.compile(r"[A-Za-z_][\w\-]{0,63}\Z")  # a JSON field or an XML attribute name
MAX_MARKER = 128  # a marker is looked ahead for: it must stay short

Strings = Literal["raw", "json"]
PythonStrings = Literal["python", "raw"]
Others = Literal["json", "raw", "python"]
Whitespace = Literal["verbatim", "one_newline", "strip"]
Escapes = Literal["none", "xml"]
SEP_BLANKS = " \t\r\n"  # separator whitespace (core.output.SEP_WS): a text separator is more than these
IdPosition = Literal["before_name", "after_name"]


def fail(path: str, message: str) -> ValueError:
    return ValueError(f"{path}: {message}")


def check_marker(path: str, value: object, *, optional: bool = False, empty: bool = False) -> None:
    """A literal marker: a non-blank string that does not start with whitespace (it is searched for as
    written, and whitespace before markers is a separator)."""
    if value is None and optional:
        return
    if value == "" and empty:
        return
    if not isinstance(value, str):
        raise fail(path, f"must be a string, got {value!r}")
    if not value.strip():
        raise fail(path, f"must be a non-blank string, got {value!r}")
    if value[0].isspace():
        raise fail(path, f"must not start with whitespace, got {value!r}")
    if len(value) > MAX_MARKER:
        raise fail(path, f"must be at most {MAX_MARKER} characters")


def check_end(path: str, value: object) -> None:
    """The end of a header: a marker, or a single newline (``NAME\\n``)."""
    if value == "\n":
        return
    check_marker(path, value)


def check_spellings(path: str, values: object, other: str) -> None:
    """A list of markers, none repeating ``other`` (another spelling of an opener, a separator)."""
    if not isinstance(values, tuple):
        raise fail(path, "must be a list of markers")
    for i, m in enumerate(values):
        check_marker(f"{path}[{i}]", m)
        if m == other:
            raise fail(f"{path}[{i}]", f"repeats {m!r}")


def check_choice(path: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise fail(path, f"must be one of {allowed}, got {value!r}")


def check_field(path: str, value: object, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not FIELD_RE.match(value):
        raise fail(path, f"must be a field name ([A-Za-z_][A-Za-z0-9_-]*), got {value!r}")


def check_bool(path: str, value: object) -> None:
    if not isinstance(value, bool):
        raise fail(path, f"must be true or false, got {value!r}")


def check_text(path: str, value: object) -> None:
    if not isinstance(value, str):
        raise fail(path, f"must be a string, got {value!r}")


class Part:
    """What every part shares: validation on construction, ``to_dict`` / ``from_dict``."""

    kind: ClassVar[str] = ""

    def __post_init__(self) -> None:
        self.check("")

    def check(self, path: str) -> None:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind} if self.kind else {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.default is not dataclasses.MISSING and value == f.default:
                continue
            if f.default_factory is not dataclasses.MISSING and value == f.default_factory():
                continue
            out[f.name] = plain(value)
        return out


def plain(value: Any) -> Any:
    if isinstance(value, Part):
        return value.to_dict()
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


def build(cls: type, data: Any, path: str, parts: dict[str, Any]) -> Any:
    """A part from plain data, strictly: ``parts`` maps a field to the part class it holds (a dict of
    classes by ``"kind"`` for a union, a one-element list for a list of parts)."""
    if not isinstance(data, dict):
        raise fail(path or cls.__name__, f"must be an object, got {type(data).__name__}")
    data = dict(data)
    kind = data.pop("kind", None)
    want = getattr(cls, "kind", "")
    if want and kind not in (None, want):
        raise fail(path + "kind", f"must be {want!r}, got {kind!r}")
    if not want and kind is not None:
        raise fail(path + "kind", "is not a field here")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise fail(path + unknown[0], f"unknown field (known: {', '.join(fields)})")
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        sub = path + key
        part = parts.get(key)
        if isinstance(part, dict) and isinstance(value, dict):
            k = value.get("kind")
            if k not in part:
                raise fail(sub + ".kind", f"must be one of {tuple(part)}, got {k!r}")
            value = build(part[k], value, sub + ".", parts)
        elif isinstance(part, list):
            if not isinstance(value, list):
                raise fail(sub, "must be a list")
            value = tuple(build(part[0], r, f"{sub}[{i}].", parts) for i, r in enumerate(value))
        elif isinstance(part, type) and value is not None:
            value = build(part, value, sub + ".", parts)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[key] = value
    missing = [n for n, f in fields.items() if n not in kwargs and f.default is dataclasses.MISSING]
    if missing:
        raise fail(path + missing[0], "is required")
    try:
        return cls(**kwargs)
    except ValueError as exc:
        if path and not str(exc).startswith(path):
            raise ValueError(f"{path}{exc}") from None
        raise
