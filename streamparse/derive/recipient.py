"""Message headers in the renders: output written as messages whose header names a recipient.

A template writes each message of the turn as ``OPEN [role] HEADER BODY_MARKER BODY``, and its generation
prompt ends with ``OPEN [role]`` (the model writes the rest of the first header). Found by comparing
renders: the body marker is what precedes the text in the text turn and follows the call's name in the
call turn; the opener is what the prompt ends with and the later messages of a turn begin with; the
recipient marker and the name's prefix are what stand before the call's name in its header; the words
that mean reasoning or text are the recipients (or channels) of the reasoning and text turns' headers.
With the call's JSON arguments right after the body marker the recipient is the call's name
(:class:`~streamparse.formats.RecipientName`); with the calls written again in the body (Muse) the header
is markup, removed from the renders (:func:`strip_headers`) before the calls are analysed as usual.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..formats import Messages
from ..formats.messages import Header, header_reader
from .probes import CONTENT, REASONING, Probes
from .text import Markers, strip_ws

__all__ = ["Found", "find_messages", "strip_headers"]

_ROLE = re.compile(r"[ \t]*[A-Za-z_][\w\-]{0,31}[ \t]*\Z")
_PUNCT = re.compile(r"[^\w\s]{2,16}\Z")
_TOKEN = re.compile(r"[^\s<>]{1,200}")
_ARGS = re.compile(r'\s*\{\s*"zqk_alpha"')


@dataclass(frozen=True, slots=True)
class Found:
    """The message structure: the declaration part, whether the recipient names the call, the name's
    prefix, and what ends a call message (None: the next header or the end of the turn)."""

    messages: Messages
    named: bool
    prefix: str
    close: str | None
    role: str


def _openers(prompt: str, markers: Markers) -> list[tuple[str, str]]:
    """(opener, role) candidates the generation prompt ends with, longest first: a marker with an
    optional role word after it (``<|start|>assistant``), or a run of punctuation (``>>>``)."""
    text = prompt.rstrip(" \t")
    last = markers.last(text)
    if last:
        at = text.rindex(last)
        rest = text[at + len(last) :]
        if not rest or _ROLE.fullmatch(rest):
            return [(last, rest)]
    m = _PUNCT.search(text)
    run = m.group() if m else ""
    return [(run[i:], "") for i in range(len(run) - 1)]


def _body_marker(head: str, markers: Markers) -> str:
    """What ends the text message's header: a marker right before the text, or a newline."""
    last = markers.last(head)
    if last and head.endswith(last):
        return last
    return "\n" if head.endswith("\n") and strip_ws(head) else ""


def _end_after(render: str, at: int, markers: Markers) -> str:
    """The marker right after position ``at`` (blanks skipped), or ""."""
    rest = render[at:].lstrip(" \t\r\n")
    first = markers.first(rest)
    return first if first and rest.startswith(first) else ""


def find_messages(probes: Probes, markers: Markers) -> Found | None:
    """The message structure of the renders, or None when the template writes no such headers."""
    text, call = probes.gen.get("text", ""), probes.gen.get("call", "")
    if CONTENT not in text or "zqfirst" not in call:
        return None
    text_head = text[: text.index(CONTENT)]
    body = _body_marker(text_head, markers)
    at = call.find("zqfirst")
    end = call.find(body, at) if body else -1
    if end < 0 or (body == "\n" and "\n" in call[:at]):
        return None
    header = call[:end]
    token = _TOKEN.search(header, max(0, header.rfind(" ", 0, at) + 1))
    if token is None or token.start() > at:
        return None
    lead = header[token.start() : at].lstrip()
    if markers.first(lead):
        return None  # a marker before the name in the same word: a call opener, not a header
    eq = max(lead.find("="), lead.find(":"))
    recipient, prefix = (lead[: eq + 1], lead[eq + 1 :]) if eq >= 0 else (lead, "")
    later = [g for k, g in probes.gen.items() if k in ("call2", "reasoning", "text_call", "reasoning_call")]
    candidates = _openers(probes.prompt_on, markers)
    found = [(o, r) for o, r in candidates if any(o + r in g for g in later)]
    call2 = probes.gen.get("call2", "")
    second = call2[: call2.find("zqsecond")] if "zqsecond" in call2 else ""
    bare = bool(recipient) and second.endswith(lead) and re.search(r"[\s>]\Z", second[: -len(lead)]) is not None
    if not candidates or (not found and not bare):
        return None  # no later message begins with what the prompt ends with, nor with the recipient
    opener, role = found[0] if found else candidates[0]
    rest = call[end + len(body) :]
    named = bool(_ARGS.match(rest))
    if not named and "zqfirst" not in rest:
        return None
    words = _words(text_head[: len(text_head) - len(body)], recipient, markers)
    channel = words[2]
    reasoning_words: tuple[str, ...] = ()
    reasoning = probes.gen.get("reasoning", "")
    ends: list[str] = []
    if REASONING in reasoning:
        rhead = reasoning[: reasoning.index(REASONING)]
        if not rhead.endswith(body):
            return None
        r_to, r_channel, _ = _words(rhead[: len(rhead) - len(body)], recipient, markers)
        word = r_to or r_channel
        if word:
            reasoning_words = (word,)
            ends.append(_end_after(reasoning, reasoning.index(REASONING) + len(REASONING), markers))
    text_end = _end_after(text, text.index(CONTENT) + len(CONTENT), markers)
    close: str | None = None
    if named:
        try:  # what follows the call's arguments: its closer, unless the turn's end or the next header
            _, args_end = json.JSONDecoder().raw_decode(rest, rest.index("{"))
        except ValueError:
            return None
        after = _end_after(rest, args_end, markers)
        close = after if after and after not in (opener, text_end) else None
    text_words = (words[0],) if words[0] else ()
    ends += [close or "", text_end]
    also: tuple[str, ...] = (channel,) if channel and strip_ws(text_head).startswith(channel) else ()
    if bare and not found:  # calls after the first are headers without the opener (`` to=NAME<|msg|>``)
        also += (recipient,)
    messages = Messages(
        opener,
        body,
        also_open=also,
        recipient=recipient,
        channel=channel if recipient else "",
        ends=tuple(dict.fromkeys(e for e in ends if e and e != opener and e != body)),
        reasoning_words=reasoning_words,
        text_words=text_words,
        primed=True,
    )
    return Found(messages, named, prefix, close, role)


def _words(head: str, recipient: str, markers: Markers) -> tuple[str, str, str]:
    """(recipient, channel word, channel marker) written in a header (each "" when absent)."""
    head = strip_ws(head)
    to = ""
    if recipient:
        m = re.search(r"(?:^|(?<=[\s>]))" + re.escape(recipient) + "(" + _TOKEN.pattern + ")", head)
        to = m.group(1) if m else ""
    elif _TOKEN.fullmatch(head):
        to = head
    channel, word = "", ""
    for a, b in markers.spans(head):
        m = re.match(r"[ \t]*([A-Za-z_][\w\-]{0,63})", head[b:])
        if m and head[a:b] != recipient:
            channel, word = head[a:b], m.group(1)
            break
    return to, word, channel


def strip_headers(render: str, found: Found) -> str:
    """``render`` without its message headers, and without the reasoning messages (the declaration's
    messages read both): what is left is the text and the calls, as other templates write them."""
    m = found.messages
    lead = re.escape(m.open + found.role)
    pattern = re.compile(r"(?:\A[ \t]*|" + lead + r")[^\n]{0,400}?" + re.escape(m.body))
    read = header_reader(m)  # what the parser will make of the header: the same reading
    out: list[str] = []
    pos = 0
    for hit in pattern.finditer(render):
        out.append(render[pos : hit.start()])
        pos = hit.end()
        header = read(render, hit.start() + (len(m.open) if render.startswith(m.open, hit.start()) else 0), True)
        if isinstance(header, Header) and header.kind == "reasoning":
            stop = min((i for e in m.ends if (i := render.find(e, pos)) >= 0), default=len(render))
            pos = stop + next((len(e) for e in m.ends if render.startswith(e, stop)), 0)
    out.append(render[pos:])
    return "".join(out)
