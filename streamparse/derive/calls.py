"""The call structure of a template's renders: JSON objects, JSON lists, headers, tagged arguments.

Input: the call region of the one-call, two-call, two-argument and typed probes (the model's output with
reasoning, content wrappers and the end of the turn removed). Output: the parts of a
:class:`~streamparse.formats.Call` and of its :class:`~streamparse.formats.Section`, or a
:class:`DeriveError` naming what could not be read.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..formats import Call, HeaderName, IdSpec, JsonArgs, JsonName, Section, TaggedArgs, Values
from .notation import object_after, string_quote
from .probes import ONE, TWO, TYPED
from .text import Markers, common_prefix, common_suffix, strip_ws

__all__ = ["DeriveError", "CallShape", "analyse_calls"]

_DECODER = json.JSONDecoder()
_ATTR_TAIL = re.compile(r"^(?P<head>.*?\S)\s+(?P<attr>[A-Za-z_][\w\-]*)=\"\Z", re.S)
_ATTRS = re.compile(r"\A\"?((?:\s+[A-Za-z_][\w\-]*=\"[^\"]*\")*)(?P<rest>.*)\Z", re.S)
_ONE_ATTR = re.compile(r"([A-Za-z_][\w\-]*)=\"([^\"]*)\"")


STANDALONE_INLINE = (
    "calls: bare JSON calls (no marker) written on the same line as {what}: only a call at the start of the "
    "output or of a line is told from JSON in prose, so this is not derived"
)


class DeriveError(ValueError):
    """The template's output could not be expressed as a declaration; the message names the part."""


@dataclass(slots=True)
class CallShape:
    """What the analysis found: the call, its section, and notes for the user."""

    call: Call
    section: Section | None
    notes: list[str] = field(default_factory=list)
    trailing: str = ""
    """Markup after the section's own closer (an end-of-turn token only call turns write)."""


@dataclass(slots=True)
class _Found:
    """One call's span in a region: ``a``/``b`` bound the part each call repeats (name to last argument)."""

    a: int
    b: int


def _json_at(text: str, start: int) -> tuple[Any, int] | None:
    try:
        value, end = _DECODER.raw_decode(text, start)
    except ValueError:
        return None
    return value, end


def _args_of(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _json_name(obj: Any, name: str, args: dict[str, Any]) -> JsonName | None:
    """The JsonName that reads ``obj`` as the call ``name(args)``, if any."""
    if not isinstance(obj, dict):
        return None
    if len(obj) == 1 and name in obj and _args_of(obj[name]) == args:
        return JsonName(name_is_key=True, alt_arguments_fields=())
    for nested in ("", "function"):
        inner = obj if not nested else obj.get(nested)
        if not isinstance(inner, dict):
            continue
        fields = [k for k, v in inner.items() if v == name]
        arg_fields = [k for k, v in inner.items() if _args_of(v) == args and v != name]
        if fields and arg_fields:
            alt = ("parameters",) if arg_fields[0] == "arguments" else ()
            return JsonName(field=fields[0], arguments_field=arg_fields[0], alt_arguments_fields=alt, nested=nested)
    return None


def _find_json_calls(region: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[JsonName, list[_Found]] | None:
    """Calls written as JSON objects (one per call) or as one JSON list holding them."""
    for i, ch in enumerate(region):
        if ch not in "[{":
            continue
        got = _json_at(region, i)
        if got is None:
            continue
        value, end = got
        if ch == "[" and isinstance(value, list) and len(value) == len(calls):
            specs = [_json_name(v, n, a) for v, (n, a) in zip(value, calls, strict=True)]
            if all(specs) and specs[0] is not None:
                return dataclasses.replace(specs[0], list=True), [_Found(i, end)]
        if ch == "{":
            spec = _json_name(value, *calls[0])
            if spec is None:
                continue
            found = [_Found(i, end)]
            pos = end
            for n, a in calls[1:]:
                nxt = region.find("{", pos)
                while nxt != -1:
                    got2 = _json_at(region, nxt)
                    if got2 and _json_name(got2[0], n, a) == spec:
                        found.append(_Found(nxt, got2[1]))
                        pos = got2[1]
                        break
                    nxt = region.find("{", nxt + 1)
                else:
                    return None
            return spec, found
    return None


def _split(text: str, markers: Markers) -> tuple[str, str]:
    """``(first marker-ish part, rest)`` of a stripped text: used to split ``</k>\\n<v>`` into two markers."""
    text = strip_ws(text)
    m = re.search(r"\s+", text)
    if m and markers.is_marker(text[: m.start()]):
        return text[: m.start()], strip_ws(text[m.end() :])
    first = markers.first(text)
    if first and text.startswith(first) and len(first) < len(text):
        return first, strip_ws(text[len(first) :])
    return text, ""


def _rebalance(opener: str, rest: str, after: str, markers: Markers) -> tuple[str, str]:
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


def _boundaries(r2: str, found: list[_Found], markers: Markers) -> tuple[str, str, str, str, str]:
    """``(section open, call open, separator, call close, section close)`` from the two-call region."""
    prefix, between, suffix = r2[: found[0].a], r2[found[0].b : found[1].a], r2[found[1].b :]
    n = common_suffix(prefix, between, markers)
    call_open = between[len(between) - n :]
    rest = between[: len(between) - n]
    moved = call_open
    call_open, rest = _rebalance(call_open, rest, suffix, markers)
    n -= len(moved) - len(call_open)
    m = common_prefix(rest, suffix, markers)
    call_close = rest[:m]
    return prefix[: len(prefix) - n], call_open, rest[m:], call_close, suffix[m:]


def _header_open(call_open: str, markers: Markers) -> tuple[str, str, str | None]:
    """``(Call.open, name prefix, name attribute)`` from the text before a name."""
    m = _ATTR_TAIL.match(call_open)
    if m:
        return strip_ws(m.group("head")), "", m.group("attr")
    last = markers.last(call_open)
    if last:
        cut = call_open.rfind(last) + len(last)
        rest = call_open[cut:]
        if rest and rest[0] not in "<[" and rest == strip_ws(rest):
            return strip_ws(call_open[:cut]), rest, None
    return strip_ws(call_open), "", None


def _suffix_pattern(a: str, b: str) -> tuple[str, str]:
    """``(suffix regex, rest)``: ``:0<|x|>`` and ``:1<|x|>`` give ``(":\\d+", "<|x|>")``."""
    ma, mb = re.match(r"([^\w<\[]*)(\d+)", a), re.match(r"([^\w<\[]*)(\d+)", b)
    if ma and mb and ma.group(1) == mb.group(1) and a[ma.end() :] == b[mb.end() :]:
        return re.escape(ma.group(1)) + r"\d+", a[ma.end() :]
    return "", a


def _locate_header_calls(region: str, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[int, int]]:
    """``(name start, name end)`` of each call, in order."""
    out, pos = [], 0
    for name, _ in calls:
        at = region.find(name, pos)
        if at == -1:
            raise DeriveError(f"the call name {name!r} is not in the rendered call")
        out.append((at, at + len(name)))
        pos = at + len(name)
    return out


@dataclass(slots=True)
class _Tagged:
    args: TaggedArgs
    open_raw: str
    close_raw: str


def _tagged(text: str, markers: Markers, typed: str | None) -> _Tagged:
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
    open_raw, rest = _rebalance(open_raw, rest, after, markers)
    m = common_prefix(rest, after, markers)
    close_raw = rest[:m]
    key_attribute = None
    arg_open = strip_ws(open_raw)
    am = _ATTR_TAIL.match(arg_open)
    if am:
        arg_open, key_attribute = strip_ws(am.group("head")), am.group("attr")
    type_attribute = string_attribute = None
    key_end_text = kv1
    if key_attribute:
        attrs = _ATTRS.match(kv1)
        assert attrs is not None
        key_end_text = attrs.group("rest")
        for attr, value in _ONE_ATTR.findall(attrs.group(1)):
            if value == "string":
                type_attribute = attr
            elif value == "true":
                string_attribute = attr
    key_end, value_open = _split(key_end_text, markers)
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
    return _Tagged(args, open_raw, close_raw)


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


def analyse_calls(regions: dict[str, str], markers: Markers) -> CallShape:
    """The call and section of a template from its call regions (``call``, ``call2``, ``args2``, ``typed``)."""
    notes: list[str] = []
    one = [("zqfirst", ONE)]
    two = [("zqfirst", ONE), ("zqsecond", TWO)]
    r1 = regions["call"]
    r2 = regions.get("call2")
    if r2 is not None and "zqsecond" not in r2:
        r2 = None  # the template writes only the first call of a turn
    if r2 is None:
        notes.append("the template renders one call per turn only; two-call turns are read the same way")
    found_json = _find_json_calls(r1, one)
    if found_json is not None:
        spec, found1 = found_json
        if spec.list:
            before, after = strip_ws(r1[: found1[0].a]), strip_ws(r1[found1[0].b :])
            if not before:
                return _standalone(spec, after, notes)
            return CallShape(Call(before, after or None, spec), None, notes)
        if r2 is not None:
            found2 = _find_json_calls(r2, two)
            if found2 is None:
                raise DeriveError("calls: the second call of a two-call turn is not a JSON object like the first")
            sec_open, call_open, sep, call_close, sec_close = _boundaries(r2, found2[1], markers)
            between = r2[found2[1][0].b : found2[1][1].a]
        else:
            sec_open, call_open = "", r1[: found1[0].a]
            sep, call_close, sec_close, between = "", r1[found1[0].b :], "", "\n"
        shape = _assemble(sec_open, call_open, sep, call_close, sec_close, spec, JsonArgs(), None, notes, markers)
        if shape.call.standalone and "\n" not in between:
            raise DeriveError(STANDALONE_INLINE.format(what="another call"))
        return shape
    return _header_calls(regions, r1, r2, notes, markers)


def _header_calls(regions: dict[str, str], r1: str, r2: str | None, notes: list[str], markers: Markers) -> CallShape:
    two = [("zqfirst", ONE), ("zqsecond", TWO)]
    names1 = _locate_header_calls(r1, [("zqfirst", ONE)])
    json1 = object_after(r1, names1[0][1], ONE)
    quote = string_quote(r1) if json1 is None else None  # Gemma 4's {k:<|"|>v<|"|>}
    typed_at = regions.get("typed", "").find("zqtyped")
    if quote is not None and typed_at >= 0 and object_after(regions["typed"], typed_at, TYPED, quote) is None:
        raise DeriveError(f"arguments: typed values in an object with {quote!r} string quotes do not read back")
    args2 = regions.get("args2")
    tagged: _Tagged | None = None
    if json1 is None and quote is None:
        if args2 is None:
            raise DeriveError("arguments: neither JSON nor a two-argument render to read tagged arguments from")
        at = args2.find("zqfirst")
        tagged = _tagged(args2[at + len("zqfirst") :], markers, regions.get("typed"))
    # Call ids differ per call (zqid00001, zqid00002): one spelling, so they fall inside the call's markup.
    region = re.sub(r"zqid\d{5}", "zqid00000", r2 if r2 is not None else r1)
    calls = two if r2 is not None else [("zqfirst", ONE)]
    names = _locate_header_calls(region, calls)
    found: list[_Found] = []
    headers: list[str] = []
    for (a, b), (_, args) in zip(names, calls, strict=True):
        if tagged is None:
            span = object_after(region, b, args, quote or "")
            if span is None:
                raise DeriveError("arguments: the JSON arguments of the second call are not in the render")
            headers.append(region[b : span[0]])
            found.append(_Found(a, span[1]))
        else:
            last_value = list(args.values())[-1]
            v = region.find(last_value, b)
            close_at = region.find(tagged.close_raw, v + len(last_value)) if tagged.close_raw else -1
            if v < 0 or close_at < 0:
                raise DeriveError("arguments: a tagged value of the second call has no closing marker")
            headers.append(region[b : region.find(strip_ws(tagged.open_raw), b)])
            found.append(_Found(a, close_at + len(tagged.close_raw)))
    if len(found) > 1:
        sec_open, call_open, sep, call_close, sec_close = _boundaries(region, found, markers)
    else:
        sec_open, call_open, sep = "", region[: found[0].a], ""
        call_close, sec_close = region[found[0].b :], ""
    suffix_pattern, header = _suffix_pattern(headers[0], headers[-1]) if len(headers) > 1 else ("", headers[0])
    ident: IdSpec | None = None
    if "zqid00000" in header:  # NAME end ID end ARGS (Mistral's [CALL_ID])
        head, _, tail = header.partition("zqid00000")
        header = head
        ident = IdSpec(position="after_name", end=strip_ws(tail))
    args_spec: JsonArgs | TaggedArgs
    if tagged is None and "```" in header:  # NAME\n```json\n{...}\n``` (DeepSeek R1)
        head = header[: header.index("```")]
        end = strip_ws(head) or ("\n" if "\n" in head else "")
        args_spec = JsonArgs(fenced=True)
        call_close = call_close.lstrip()
        call_close = call_close[3:] if call_close.startswith("```") else call_close
    elif tagged is None:
        end, args_open = _split(header, markers)
        args_spec = JsonArgs(string_quote=quote or "")
        if args_open:
            notes.append(f"arguments open with {args_open!r}")
            args_spec = JsonArgs(open=args_open, close=strip_ws(call_close) and _split(call_close, markers)[0])
    else:
        args_spec = tagged.args
        end = header
    return _assemble(
        sec_open,
        call_open,
        sep,
        call_close,
        sec_close,
        None,
        args_spec,
        ident,
        notes,
        markers,
        suffix_pattern=suffix_pattern,
        header_end=end,
    )


def _assemble(
    sec_open: str,
    call_open: str,
    sep: str,
    call_close: str,
    sec_close: str,
    json_name: JsonName | None,
    args: JsonArgs | TaggedArgs,
    ident: IdSpec | None,
    notes: list[str],
    markers: Markers,
    *,
    suffix_pattern: str = "",
    header_end: str = "",
) -> CallShape:
    s_open, c_open, c_close, s_close = strip_ws(sec_open), call_open, strip_ws(call_close), strip_ws(sec_close)
    trailing = ""
    pair = re.fullmatch(r"<([\w:.\-]+)>", s_open)
    if pair and s_close.startswith(f"</{pair.group(1)}>") and len(s_close) > len(pair.group(1)) + 3:
        # ``</tool_calls><｜hy_eos｜>``: the XML pair closes the section; the rest ends the turn.
        cut = len(pair.group(1)) + 3
        s_close, trailing = s_close[:cut], strip_ws(s_close[cut:])
    separator = strip_ws(sep)
    section: Section | None = None
    if s_open:
        section = Section(s_open, s_close or None, (separator,) if separator else ())
    elif separator:
        notes.append(f"calls are separated by {separator!r} without a section around them")
    if json_name is not None:
        open_ = strip_ws(c_open)
        if not open_ and section is None:
            return _standalone(json_name, c_close + separator, notes, trailing)
        if section is None:
            section, open_, c_close = _nest(open_, c_close, markers) or (None, open_, c_close)
        return CallShape(Call(open_, c_close or None, json_name), section, notes, trailing)
    if "zqid00000" in c_open and ident is None:  # open ID end NAME (Solar Open's <|tool_call:name|>)
        c_open, _, id_end = c_open.partition("zqid00000")
        ident = IdSpec(position="before_name", end=strip_ws(id_end))
    open_, prefix, attribute = _header_open(c_open, markers)
    end_text = header_end
    if attribute:
        attrs = _ATTRS.match(end_text)
        end_text = attrs.group("rest") if attrs else end_text
    end = strip_ws(end_text) or ("\n" if "\n" in end_text else "")
    opened = isinstance(args, TaggedArgs) or bool(args.open) or not args.fenced  # a name may run to the `{`
    if not end and not (opened and c_close and attribute is None and (ident is None or ident.position != "after_name")):
        raise DeriveError(f"call name: nothing ends the name (the text after it is {header_end!r})")
    if not end:
        notes.append("the call name ends where its arguments open (or at the closer of a call without any)")
    if not open_:
        raise DeriveError("calls: no marker before the call name")
    if section is None:
        nested = _nest(open_, c_close, markers)
        if nested:
            section, open_, c_close = nested
    name = HeaderName(end=end, prefix=prefix, suffix_pattern=suffix_pattern, attribute=attribute)
    if isinstance(args, TaggedArgs) and not c_close:
        raise DeriveError("calls: tagged arguments need a marker that closes the call")
    return CallShape(Call(open_, c_close or None, name, args, ident), section, notes, trailing)


def _nest(open_: str, close: str, markers: Markers) -> tuple[Section, str, str] | None:
    """``<tool_call>\\n<function=`` ... ``</function>\\n</tool_call>``: the outer pair is a section per call."""
    o = open_.split(None, 1)
    c = close.rsplit(None, 1)
    if len(o) == 2 and len(c) == 2 and markers.is_marker(o[0]) and markers.is_marker(c[1]):
        return Section(o[0], c[1]), strip_ws(o[1]), strip_ws(c[0])
    return None


def _standalone(spec: JsonName, after: str, notes: list[str], trailing: str = "") -> CallShape:
    """Calls written as bare JSON (Llama 3.x, xLAM): nothing before or after them but the end of the turn."""
    if after or spec.name_is_key:
        what = f"followed by {after!r}" if after else "{NAME: ARGS} objects cannot be told from data"
        raise DeriveError(f"calls: JSON calls without a marker before them, {what}: not derived")
    notes.append("calls are bare JSON (no marker): read at the start of the output or of a line")
    return CallShape(Call("", None, spec, standalone=True), None, notes, trailing)
