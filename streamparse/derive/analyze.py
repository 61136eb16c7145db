"""From probe renders to a declaration: the end of a turn, reasoning, content wrappers, then the calls.

Every part is read by comparing renders that differ in one thing (llama.cpp's autoparser does the same
for its C++ server): the end of a turn is what every probe's output ends with; reasoning is what surrounds
the reasoning sentinel; the call region is what a call turn has where a text turn has its text.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from ..formats import Call, Declaration, HeaderName, Reasoning, RecipientName, Wrapper
from ..formats.declaration_base import MAX_MARKER
from .calls import STANDALONE_INLINE, DeriveError, analyse_calls
from .escapes import derive_escapes
from .notation import string_quote
from .probes import CONTENT, PROBES, REASONING, Probes
from .pycalls import python_calls
from .recipient import Found, find_messages, strip_headers
from .text import Markers, common_prefix, common_suffix, strip_ws
from .verify import cut_turn

__all__ = ["Analysis", "analyse"]

_TOKEN = re.compile(r"\w+|\S")


@dataclass(slots=True)
class Analysis:
    """The derived declaration and what the derivation saw (for ``streamparse template`` and errors)."""

    declaration: Declaration
    primed_on: bool
    """The generation prompt opens reasoning when thinking is on (the output starts inside it)."""
    primed_off: bool
    end_of_turn: str
    notes: list[str] = field(default_factory=list)
    calls_after_end: bool = False
    """Calls come as messages of their own after the end-of-turn marker (the turn ends after them)."""


def _pieces(text: str, markers: Markers) -> list[tuple[int, int]]:
    """Spans of the pieces of ``text``: markers, words, single other characters (blanks skipped)."""
    out: list[tuple[int, int]] = []
    pos = 0
    for a, b in [*markers.spans(text), (len(text), len(text))]:
        out += [(pos + m.start(), pos + m.end()) for m in _TOKEN.finditer(text[pos:a])]
        if a < b:
            out.append((a, b))
        pos = b
    return out


def _tail_like(prompt: str, close: str, markers: Markers) -> str:
    """The prompt's last pieces, as many as ``close`` has: the opener a primed prompt wrote."""
    n = len(_pieces(close, markers))
    text = prompt.rstrip()
    spans = _pieces(text, markers)
    return text[spans[-n][0] :] if len(spans) >= n else ""


def _end_of_turn(bodies: list[str], markers: Markers) -> str:
    end = bodies[0]
    for body in bodies[1:]:
        end = end[len(end) - common_suffix(end, body, markers) :]
    # Only markup ends a turn: a common suffix that starts inside a word belongs to the probes.
    first = markers.pattern.search(end)
    if first:
        end = end[first.start() :]
        # ``<|close|>response<|sep|>`` ends the content: its ``<|sep|>`` is not the turn's.
        lead = markers.first(end)
        framed = r"(?:" + markers.pattern.pattern + r")[a-z][a-z_]*\Z"  # ``<|close|>response`` + ``<|sep|>``
        if all(re.search(framed, b[: len(b) - len(end)]) for b in bodies):
            end = end[len(lead) :]
        if len(end) > MAX_MARKER:  # prose the template appends after every turn (Command R+): its markers end it
            run = re.match(r"(?:\s*(?:" + markers.pattern.pattern + r"))+", end)
            end = run.group().strip() if run else ""
        return end
    trimmed = end.lstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
    return trimmed if len(strip_ws(trimmed)) >= 2 and not trimmed[0].isalnum() else ""


def _reasoning(probes: Probes, bodies: dict[str, str], markers: Markers) -> tuple[Reasoning | None, list[str]]:
    notes: list[str] = []
    body = next((bodies[k] for k in ("reasoning", "reasoning_call") if REASONING in bodies.get(k, "")), None)
    prompt = probes.prompt_on
    if body is not None:
        at = body.index(REASONING)
        before, after = strip_ws(body[:at]), body[at + len(REASONING) :]
        stop = [i for i in (after.find(CONTENT), after.find("zqfirst")) if i >= 0]
        close_text = strip_ws(after[: min(stop)] if stop else after)
        close = (
            markers.first(close_text)
            if markers.first(close_text) and close_text.startswith(markers.first(close_text))
            else close_text
        )
        if close_text != close and not before:
            # A framed closer (``<|close|>think<|sep|>``): as many pieces as the prompt's opener.
            close = _framed_close(close_text, prompt, markers)
        if not close:
            raise DeriveError("reasoning: nothing closes the reasoning text")
        opener = before or _tail_like(prompt, close, markers)
        if opener == close:  # the prompt writes the pair empty (thinking off by default): its opener precedes
            trimmed = prompt.rstrip()[: len(prompt.rstrip()) - len(close)]
            opener = _tail_like(trimmed, close, markers)
        if not opener:
            return Reasoning(None, close), ["reasoning: the output starts with reasoning that only its end marks"]
        primed = strip_ws(prompt).endswith(opener)
        return Reasoning(opener, close, primed=primed), notes
    # The turn drops reasoning: a prompt ending in an opener and turns starting with a closer still show it.
    firsts = {markers.first(strip_ws(b)) for b in bodies.values() if strip_ws(b)}
    last = markers.last(prompt.rstrip())
    off = strip_ws(probes.prompt_off)
    if last and prompt.rstrip().endswith(last) and off.endswith(last) is False and last in off:
        closer = strip_ws(off[off.rindex(last) + len(last) :])
        if closer and markers.is_marker(closer):  # thinking off writes the pair empty: <think></think>
            notes.append("reasoning: the turn drops it; the thinking-off prompt writes the pair empty")
            return Reasoning(last, closer, primed=True), notes
    m = re.fullmatch(r"<([\w:.\-]*think[\w:.\-]*)>", last or "")
    if m and prompt.rstrip().endswith(last) and not any(f"</{m.group(1)}>" in b for b in bodies.values()):
        # The prompt opens <think> and no render shows the rest: the closer is the opener's XML pair.
        notes.append(
            f"reasoning: the prompt opens {last} and no render closes it; the closer </{m.group(1)}> is inferred"
        )
        return Reasoning(last, f"</{m.group(1)}>", primed=True), notes
    if len(firsts) == 1 and last and prompt.rstrip().endswith(last):
        close = firsts.pop()
        if close and close != last and all(strip_ws(b).startswith(close) for b in bodies.values() if strip_ws(b)):
            notes.append("reasoning: the template drops past reasoning; its markers come from the prompt")
            return Reasoning(last, close, primed=True), notes
    return None, notes


def _framed_close(close_text: str, prompt: str, markers: Markers) -> str:
    """The shortest run of pieces at the start of ``close_text`` whose words the prompt's last pieces
    repeat (``<|close|>think<|sep|>`` against a prompt ending ``<|open|>think<|sep|>``)."""
    pieces = _pieces(close_text, markers)
    text = prompt.rstrip()
    tail = _pieces(text, markers)

    def shape(spans: list[tuple[int, int]], src: str) -> list[str | None]:
        return [None if markers.is_marker(src[a:b]) else src[a:b] for a, b in spans]

    for n in range(2, len(pieces) + 1):
        mine = shape(pieces[:n], close_text)
        if any(mine) and len(tail) >= n and mine == shape(tail[-n:], text):
            return close_text[: pieces[n - 1][1]]
    return markers.first(close_text)


def _content(body: str, reasoning: Reasoning | None) -> Wrapper | None:
    at = body.find(CONTENT)
    if at < 0:
        return None
    before, after = body[:at], body[at + len(CONTENT) :]
    if reasoning is not None and reasoning.close in before:
        before = before[before.rindex(reasoning.close) + len(reasoning.close) :]
    opener, closer = strip_ws(before) or None, strip_ws(after) or None
    if opener is None and closer is None:
        return None
    return Wrapper(opener, closer)


def _control_tokens(end: str, markers: Markers) -> tuple[str, ...]:
    """The end of a turn as the pieces a server may leave in the output: each marker on its own, a framed
    marker (``<|close|>message<|sep|>``) as one piece; markup that is no marker shape stays whole."""
    pieces = _pieces(end, markers)
    if not pieces or not any(markers.is_marker(end[a:b]) for a, b in pieces):
        return (end,) if end else ()
    groups: list[str] = []
    start = pieces[0][0]
    worded = False
    for i, (a, b) in enumerate(pieces):
        is_marker = markers.is_marker(end[a:b])
        worded = worded or not is_marker
        nxt = pieces[i + 1] if i + 1 < len(pieces) else None
        if is_marker and (worded or nxt is None or markers.is_marker(end[nxt[0] : nxt[1]])):
            groups.append(end[start:b])
            start, worded = (nxt[0] if nxt else b), False
    if start < len(end) and end[start:].strip():
        groups.append(end[start:].strip())
    return tuple(dict.fromkeys(g for g in groups if g))


def _outside_the_vocabulary(probes: Probes, regions: dict[str, str]) -> None:
    """Structures the vocabulary does not express, named (rather than a misleading error about a part)."""
    call, call2 = probes.gen.get("call", ""), probes.gen.get("call2", "")
    if re.search(r"\sto=(?:functions\.)?zqfirst\b", call):
        raise DeriveError(
            "calls: the call name is the recipient of a message header (' to=NAME'), but no message of a turn "
            "begins with what the generation prompt ends with, so the header's opener is unknown"
        )
    region = regions.get("call", "")
    lead = call2[call2.find("ZQV_ONE") : call2.find("zqsecond")]
    opener = strip_ws(lead.split("}")[-1]) if "}" in lead else ""
    if region.startswith("zqfirst") and opener and strip_ws(probes.prompt_on).endswith(opener):
        raise DeriveError(
            f"calls: the generation prompt writes {opener!r} and the model starts by naming the recipient of its "
            "message (a call's name, or another word for text), but the text turn shows no header to tell "
            "the word that means text"
        )
    args2 = regions.get("args2", "")
    if re.search(r"\bzqfirst\(zqk_alpha=", args2):  # [NAME(key='value', ...)] with no marker around the list
        raise DeriveError(
            "calls: written as Python call expressions (NAME(key=value, ...)) with no opener and closer around "
            "the list: not in the vocabulary (the built-in pythonic family reads a bare list)"
        )
    if re.search(r"[{,]\s*zqk_alpha\s*:", args2) and string_quote(args2) is None:  # {key:... : keys unquoted
        raise DeriveError(
            "arguments: an object with bare keys and values of its own quoting (not JSON, not key/value markers "
            "or elements): not in the vocabulary (the built-in gemma4 family reads Gemma 4)"
        )


def _framed_tags(region: str) -> str:
    """The token written right before every tag of a call region (MiniMax-M3's ``]<]minimax[>[``), if any."""
    starts = [m.start() for m in re.finditer(r"<[/A-Za-z]", region)]
    if len(starts) < 3 or starts[0] == 0:
        return ""
    before = [region[max(0, a - 32) : a] for a in starts]
    token = before[0]
    for b in before[1:]:
        n = 0
        while n < min(len(token), len(b)) and token[-1 - n] == b[-1 - n]:
            n += 1
        token = token[len(token) - n :]
    return token if len(token.strip()) >= 3 else ""


def _between_reasoning_and_text(
    body: str, reasoning: Reasoning | None, content: Wrapper | None, markers: Markers
) -> tuple[str, ...]:
    """Markup a turn writes after its reasoning and before its text (Solar Open opens a new message there:
    ``<|end|><|begin|>assistant<|content|>``): control tokens, when it starts with a marker."""
    if reasoning is None or REASONING not in body or CONTENT not in body:
        return ()
    start = body.find(reasoning.close, body.index(REASONING))
    between = body[start + len(reasoning.close) : body.index(CONTENT)] if start >= 0 else ""
    if content is not None and content.open and strip_ws(between).endswith(content.open):
        between = strip_ws(between)[: -len(content.open)]
    between = strip_ws(between)
    return _control_tokens(between, markers) if between and between.startswith(markers.first(between) or "\0") else ()


def analyse(probes: Probes, markers: Markers, name: str) -> Analysis:
    """The declaration of the model whose template produced ``probes``; DeriveError names what failed."""
    if "call" not in probes.gen:
        raise DeriveError("calls: the template renders no tool calls")
    found = find_messages(probes, markers)
    if found is not None:
        if found.named:
            return _recipient_named(probes, found, markers, name)
        probes = dataclasses.replace(probes, gen={k: strip_headers(g, found) for k, g in probes.gen.items()})
    end = _end_of_turn([g for k, g in probes.gen.items() if k in ("text", "call", "call2")], markers)
    # The model stops at the first end of its turn; whatever a template renders after it is not output.
    # A template that writes a call as a message of its own after the end marker (GigaChat 3): the turn
    # goes on to the end marker after the calls. Otherwise the model stops at the first one.
    call = probes.gen["call"]
    after_end = bool(end) and end in call and call.find("zqfirst") > call.find(end)
    names = {p.id: [n for n, _ in p.calls] if after_end else [] for p in PROBES}
    bodies = {k: cut_turn(g, end, names[k]) for k, g in probes.gen.items()}
    reasoning, notes = _reasoning(probes, bodies, markers) if found is None else (None, [])
    content = _content(bodies.get("text", ""), reasoning)
    if content is not None and reasoning is not None and content.close == reasoning.close:
        # One end marker for both (Solar Open's <|end|>): it closes reasoning; the content runs to the turn's end.
        content = Wrapper(content.open, None) if content.open else None
    text_body = bodies.get("text", "")
    regions: dict[str, str] = {}
    for key in ("call", "call2", "args2", "typed", "noargs"):
        if key not in bodies:
            continue
        b = bodies[key]
        n = common_prefix(text_body, b, markers) if CONTENT in text_body else 0
        region = strip_ws(b[n:])
        if end and region.startswith(strip_ws(end)):  # the text's message ends, the call's begins
            region = strip_ws(region[len(strip_ws(end)) :])
        if reasoning is not None and reasoning.open and region.startswith(reasoning.open):
            rest = region[len(reasoning.open) :].lstrip()  # an empty reasoning block the template writes
            if rest.startswith(reasoning.close):
                region = rest
        if reasoning is not None and reasoning.close in region[: len(reasoning.close) + 4]:
            region = region[region.index(reasoning.close) + len(reasoning.close) :]
        if content is not None and content.close and strip_ws(region).startswith(content.close):
            region = strip_ws(region)[len(content.close) :]
        regions[key] = strip_ws(region)
    noise = _framed_tags(regions.get("call2") or regions.get("call", "")) if found is None else ""
    if noise:  # MiniMax-M3's ]<]minimax[>[ before every tag: read without it, the markers spelt with it
        regions = {k: v.replace(noise, "") for k, v in regions.items()}
    shape = python_calls(regions, probes.quoted) if found is None else None
    if shape is None:
        if found is None:
            _outside_the_vocabulary(probes, regions)
        shape = analyse_calls(regions, markers, noise)
    if shape.call.standalone and CONTENT in bodies.get("text_call", ""):
        gap = re.match(r"[^{\[]*", bodies["text_call"].split(CONTENT, 1)[1])
        if gap is not None and "\n" not in gap.group():  # text running into the call on one line
            raise DeriveError(STANDALONE_INLINE.format(what="the text before them"))
    shape.call = derive_escapes(shape.call, probes.escaped, shape.notes)
    if isinstance(shape.call.name, HeaderName) and '"zqfirst.*"' in probes.prompt_on:
        # The prompt lists each tool as a namespace ("NAME.*"): NAME.NAME addresses the bare tool NAME.
        shape.call = dataclasses.replace(shape.call, name=dataclasses.replace(shape.call.name, namespaced=True))
        shape.notes.append("the prompt lists each tool as a namespace ('NAME.*'): NAME.NAME is the tool NAME")
    control = _control_tokens(strip_ws(end), markers)
    control += _between_reasoning_and_text(bodies.get("reasoning", ""), reasoning, content, markers)
    if shape.trailing:  # an end-of-turn token only call turns write
        control = tuple(dict.fromkeys((*control, *_control_tokens(shape.trailing, markers))))
    decl = Declaration(
        name,
        shape.call,
        section=shape.section,
        reasoning=(reasoning,) if reasoning else (),
        content=content,
        control_tokens=control,
        messages=found.messages if found is not None else None,
        notes="derived from a chat template" + ("; " + "; ".join(notes + shape.notes) if notes + shape.notes else ""),
    )
    primed = bool(reasoning and reasoning.primed)
    off_primed = bool(primed and reasoning and strip_ws(probes.prompt_off).endswith(reasoning.open or "\0"))
    return Analysis(decl, primed, off_primed, strip_ws(end), notes + shape.notes, after_end)


def _recipient_named(probes: Probes, found: Found, markers: Markers, name: str) -> Analysis:
    """Messages whose recipient names the call: the body is the call's JSON arguments; what ends the
    turn is a control token."""
    end = _end_of_turn([g for k, g in probes.gen.items() if k in ("text", "call", "call2")], markers)
    m = found.messages
    control = tuple(t for t in _control_tokens(strip_ws(end), markers) if t not in m.openers())
    note = f"calls: the call name is the recipient of the message header ({m.open!r} ... {m.body!r})"
    decl = Declaration(
        name,
        Call("", found.close, RecipientName(found.prefix)),
        control_tokens=control,
        messages=m,
        notes=f"derived from a chat template; {note}",
    )
    return Analysis(decl, False, False, strip_ws(end), [note])
