"""Tagged arguments from the two-argument render: the markers around a key and a value, the key or type
attributes, and how each JSON type is written (from the typed render). Split from :mod:`.calls`, which
places the arguments in the call."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..formats import TaggedArgs, Values
from .errors import DeriveError
from .probes import TYPED
from .text import Markers, common_prefix, common_suffix, strip_ws

__all__ = ["ATTR_TAIL", "ATTRS", "Tagged", "rebalance", "split", "tagged_args"]

ATTR_TAIL = re.compile(r"^(?P<head>.*?\S)\s+(?P<attr>[A-Za-z_][\w\-]*)=\"\Z", re.S)
ATTRS = re.compile(r"\A\"?((?:\s+[A-Za-z_][\w\-]*=\"[^\"]*\")*)(?P<rest>.*)\Z", re.S)
_ONE_ATTR = re.compile(r"([A-Za-z_][\w\-]*)=\"([^\"]*)\"")


def split(text: str, markers: Markers) -> tuple[str, str]:
    """``(first marker-ish part, rest)`` of a stripped text: used to split ``</k>\\n<v>`` into two markers."""
    text = strip_ws(text)
    m = re.search(r"\s+", text)
    if m and markers.is_marker(text[: m.start()]):
        return text[: m.start()], strip_ws(text[m.end() :])
    first = markers.first(text)
    if first and text.startswith(first) and len(first) < len(text):
        return first, strip_ws(text[len(first) :])
    return text, ""


def rebalance(opener: str, rest: str, after: str, markers: Markers) -> tuple[str, str]:
    """Move markers from the front of ``opener`` to the end of ``rest`` while ``after`` agrees.

    ``X<|sep|>`` closing one element and ``<|open|>Y`` opening the next share ``<|sep|>`` with the
    header before the first element, so the common suffix takes it into the opener; the closer after the
    last element shows it belongs to the closer."""
    while True:
        lead = opener.lstrip()
        first = markers.first(lead)
        if not first or not lead.startswith(first) or len(first) == len(lead.strip()):
            return opener, rest
        gap = opener[: len(opener) - len(lead)]
        if not after.startswith(rest + gap + first):
            return opener, rest
        rest, opener = rest + gap + first, lead[len(first) :]


@dataclass(slots=True)
class Tagged:
    args: TaggedArgs
    open_raw: str
    close_raw: str


def tagged_args(text: str, markers: Markers, typed: str | None) -> Tagged:
    """Tagged arguments from the two-argument call (``text`` starts after the name)."""
    pos = {s: text.find(s) for s in ("zqk_alpha", "ZQV_ONE", "zqk_beta", "ZQV_TWO")}
    if any(v < 0 for v in pos.values()):
        raise DeriveError("arguments: the keys and values of a two-argument call are not all in the render")
    before = text[: pos["zqk_alpha"]]
    kv1 = text[pos["zqk_alpha"] + len("zqk_alpha") : pos["ZQV_ONE"]]
    mid = text[pos["ZQV_ONE"] + len("ZQV_ONE") : pos["zqk_beta"]]
    after = text[pos["ZQV_TWO"] + len("ZQV_TWO") :]
    n = common_suffix(before, mid, markers)
    open_raw = mid[len(mid) - n :]
    rest = mid[: len(mid) - n]
    open_raw, rest = rebalance(open_raw, rest, after, markers)
    m = common_prefix(rest, after, markers)
    close_raw = rest[:m]
    key_attribute = None
    arg_open = strip_ws(open_raw)
    am = ATTR_TAIL.match(arg_open)
    if am:
        arg_open, key_attribute = strip_ws(am.group("head")), am.group("attr")
    type_attribute = string_attribute = None
    key_end_text = kv1
    if key_attribute:
        attrs = ATTRS.match(kv1)
        assert attrs is not None
        key_end_text = attrs.group("rest")
        for attr, value in _ONE_ATTR.findall(attrs.group(1)):
            if value == "string":
                type_attribute = attr
            elif value == "true":
                string_attribute = attr
    key_end, value_open = split(key_end_text, markers)
    if not arg_open or not key_end:
        raise DeriveError(f"arguments: no marker before a key ({open_raw!r}) or after it ({kv1!r})")
    whitespace = "one_newline" if key_end_text.endswith("\n") and close_raw.startswith("\n") else "verbatim"
    close = strip_ws(close_raw) or None
    if close is None:
        raise DeriveError("arguments: a value has no closing marker (values ending at </KEY> are not derived)")
    values = Values(whitespace=whitespace)  # type: ignore[arg-type]
    if typed is not None:
        values = _values(typed, key_end, close, whitespace)
    args = TaggedArgs(
        open=arg_open,
        key_end=key_end,
        close=close,
        value_open=value_open,
        key_attribute=key_attribute,
        type_attribute=type_attribute,
        string_attribute=string_attribute,
        values=values,
    )
    return Tagged(args, open_raw, close_raw)


def _value_text(typed: str, key: str, key_end: str, close: str) -> str | None:
    at = typed.find(key)
    if at < 0:
        return None
    start = typed.find(key_end, at + len(key))
    end = typed.find(close, start + len(key_end))
    if start < 0 or end < 0:
        return None
    value = typed[start + len(key_end) : end]
    return value[value.find(">") + 1 :] if value.lstrip().startswith("<") else value


def _values(typed: str, key_end: str, close: str, whitespace: str) -> Values:
    """How each JSON type is written: raw strings or quoted, JSON for the rest or something else."""
    written = {k: _value_text(typed, k, key_end, close) for k in TYPED}
    s = written["zqt_s"]
    strings = "json" if s is not None and strip_ws(s) == '"ZQV_S"' else "raw"
    kinds = set()
    for key, value in TYPED.items():
        text = written[key]
        if key == "zqt_s" or text is None:
            continue
        try:
            ok = json.loads(strip_ws(text)) == value
        except ValueError:
            ok = False
        # Python's str() of the value (``{{ value }}`` of True, None, a list): read back as a Python literal.
        kinds.add("json" if ok else "python" if strip_ws(text) == str(value) else "raw")
    others = "raw" if "raw" in kinds else "python" if "python" in kinds else "json"
    return Values(strings=strings, others=others, whitespace=whitespace)  # type: ignore[arg-type]
