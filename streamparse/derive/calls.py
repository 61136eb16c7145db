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

from ..formats import Call, ElementArgs, HeaderName, IdSpec, JsonArgs, JsonName, Section, TaggedArgs
from .errors import DeriveError
from .notation import object_after, string_quote
from .probes import ONE, TWO, TYPED
from .tagged import ATTR_TAIL, ATTRS, Tagged, rebalance, split, tagged_args
from .text import Markers, common_prefix, common_suffix, strip_ws

__all__ = ["DeriveError", "CallShape", "analyse_calls"]

_DECODER = json.JSONDecoder()


STANDALONE_INLINE = (
    "calls: bare JSON calls (no marker) written on the same line as {what}: only a call at the start of the "
    "output or of a line is told from JSON in prose, so this is not derived"
)


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


def _boundaries(r2: str, found: list[_Found], markers: Markers) -> tuple[str, str, str, str, str]:
    """``(section open, call open, separator, call close, section close)`` from the two-call region."""
    prefix, between, suffix = r2[: found[0].a], r2[found[0].b : found[1].a], r2[found[1].b :]
    n = common_suffix(prefix, between, markers)
    call_open = between[len(between) - n :]
    rest = between[: len(between) - n]
    moved = call_open
    call_open, rest = rebalance(call_open, rest, suffix, markers)
    n -= len(moved) - len(call_open)
    m = common_prefix(rest, suffix, markers)
    call_close = rest[:m]
    return prefix[: len(prefix) - n], call_open, rest[m:], call_close, suffix[m:]


def _header_open(call_open: str, markers: Markers) -> tuple[str, str, str | None]:
    """``(Call.open, name prefix, name attribute)`` from the text before a name."""
    m = ATTR_TAIL.match(call_open)
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


def analyse_calls(regions: dict[str, str], markers: Markers, noise: str = "") -> CallShape:
    """The call and section of a template from its call regions (``call``, ``call2``, ``args2``, ``typed``);
    ``noise``: a token the template writes before every tag, already removed from the regions."""
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
    shape = _header_calls(regions, r1, r2, notes, markers, noise)
    return _with_noise(shape, noise) if noise else shape


def _with_noise(shape: CallShape, noise: str) -> CallShape:
    """The markers of a template that writes ``noise`` before every tag, spelt with it."""
    if not isinstance(shape.call.arguments, ElementArgs):
        raise DeriveError(f"calls: every tag is preceded by {noise!r}, but the arguments are not elements")

    def spelt(marker: str | None) -> str | None:
        return noise + marker if marker is not None and marker.startswith("<") else marker

    call = shape.call
    shape.call = dataclasses.replace(call, open=spelt(call.open) or "", close=spelt(call.close))
    if shape.section is not None:
        sec = shape.section
        shape.section = dataclasses.replace(sec, open=spelt(sec.open) or "", close=spelt(sec.close))
    shape.notes.append(f"every tag is preceded by {noise!r}, removed from the arguments")
    return shape


_ELEMENTS = re.compile(r"<zqk_alpha>\s*ZQV_ONE\s*</zqk_alpha>\s*<zqk_beta>\s*ZQV_TWO\s*</zqk_beta>")


def _header_calls(
    regions: dict[str, str], r1: str, r2: str | None, notes: list[str], markers: Markers, noise: str = ""
) -> CallShape:
    two = [("zqfirst", ONE), ("zqsecond", TWO)]
    names1 = _locate_header_calls(r1, [("zqfirst", ONE)])
    json1 = object_after(r1, names1[0][1], ONE)
    quote = string_quote(r1) if json1 is None else None  # Gemma 4's {k:<|"|>v<|"|>}
    typed_at = regions.get("typed", "").find("zqtyped")
    if quote is not None and typed_at >= 0 and object_after(regions["typed"], typed_at, TYPED, quote) is None:
        raise DeriveError(f"arguments: typed values in an object with {quote!r} string quotes do not read back")
    args2 = regions.get("args2")
    tagged: Tagged | None = None
    elements = json1 is None and quote is None and _ELEMENTS.search(args2 or "") is not None
    if json1 is None and quote is None and not elements:
        if args2 is None:
            raise DeriveError("arguments: neither JSON nor a two-argument render to read tagged arguments from")
        at = args2.find("zqfirst")
        tagged = tagged_args(args2[at + len("zqfirst") :], markers, regions.get("typed"))
    # Call ids differ per call (zqid00001, zqid00002): one spelling, so they fall inside the call's markup.
    region = re.sub(r"zqid\d{5}", "zqid00000", r2 if r2 is not None else r1)
    calls = two if r2 is not None else [("zqfirst", ONE)]
    names = _locate_header_calls(region, calls)
    found: list[_Found] = []
    headers: list[str] = []
    for (a, b), (_, args) in zip(names, calls, strict=True):
        if elements:  # <KEY>VALUE</KEY> per argument: the call ends after its last element
            first, last = list(args)[0], list(args)[-1]
            v = region.find(f"</{last}>", b)
            if v < 0:
                raise DeriveError("arguments: an element of the second call is not closed")
            headers.append(region[b : region.find(f"<{first}>", b)])
            found.append(_Found(a, v + len(last) + 3))
        elif tagged is None:
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
    args_spec: JsonArgs | TaggedArgs | ElementArgs
    if elements:
        args_spec, end = ElementArgs(noise), header
    elif tagged is None and "```" in header:  # NAME\n```json\n{...}\n``` (DeepSeek R1)
        head = header[: header.index("```")]
        end = strip_ws(head) or ("\n" if "\n" in head else "")
        args_spec = JsonArgs(fenced=True)
        call_close = call_close.lstrip()
        call_close = call_close[3:] if call_close.startswith("```") else call_close
    elif tagged is None:
        end, args_open = split(header, markers)
        args_spec = JsonArgs(string_quote=quote or "")
        if args_open:
            notes.append(f"arguments open with {args_open!r}")
            args_spec = JsonArgs(open=args_open, close=strip_ws(call_close) and split(call_close, markers)[0])
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
    args: JsonArgs | TaggedArgs | ElementArgs,
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
        attrs = ATTRS.match(end_text)
        end_text = attrs.group("rest") if attrs else end_text
    end = strip_ws(end_text) or ("\n" if "\n" in end_text else "")
    opened = not isinstance(args, JsonArgs) or bool(args.open) or not args.fenced  # a name may run to the `{`
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
    if not isinstance(args, JsonArgs) and not c_close:
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
