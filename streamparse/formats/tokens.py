"""Formats built from special tokens: deepseek_v3, deepseek_v31, kimi_k2, harmony, muse."""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, Handler, MarkerTable, ScanState
from ..core.lookahead import LOOKAHEAD, after_ws, fence_at, read_header, skip_ws, starts_or_prefix, undecided
from ..core.scanner import START
from ..rejections import Reason
from ..states.json_body import JsonArgsState
from ..states.tag_body import TagCallState
from ..states.text import CONTROL_TOKENS, drop, pop_scope
from . import tagged
from .base import FormatSpec, Wiring
from .channel_tags import harmony_tag
from .declaration import Call, Declaration, HeaderName, JsonArgs, Section
from .openers import Decision, block, block_table

# DeepSeek V3 / V3.1 ------------------------------------------------------------------------------------

DS_CALLS_BEGIN: Final = "<｜tool▁calls▁begin｜>"
DS_CALLS_END: Final = "<｜tool▁calls▁end｜>"
DS_CALL_BEGIN: Final = "<｜tool▁call▁begin｜>"
DS_CALL_END: Final = "<｜tool▁call▁end｜>"
DS_SEP: Final = "<｜tool▁sep｜>"
DS_CALLS_SHORT: Final = "<｜tool▁calls｜>"  # DeepSeek-R1 sometimes opens the section with this shorter token


def deepseek_call(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<｜tool▁call▁begin｜>X<｜tool▁sep｜>``: ``{`` next means v3.1 (X is the name), otherwise v3
    (X is the type ``function``; the name runs to the newline, then a json fence)."""
    buf = eng.buf
    active = eng.cfg.format_set
    idx = buf.find(DS_SEP, e, e + LOOKAHEAD)
    if idx < 0:
        return None if (len(buf) < e + LOOKAHEAD and not final) else False
    head = buf[e:idx].strip()
    after = idx + len(DS_SEP)
    j = after_ws(buf, after, final)
    if j is None or isinstance(j, bool):
        return j
    if buf[j] == "{" and "deepseek_v31" in active:
        eng.begin_call("deepseek_v31", s)
        eng.set_name(head)
        eng.pos = j
        eng.push(JsonArgsState(eng, (DS_CALL_END,)))
        return True
    if "deepseek_v3" not in active:
        return False
    nl = buf.find("\n", after, after + LOOKAHEAD)
    if nl < 0:
        return None if (len(buf) < after + LOOKAHEAD and not final) else False
    name = buf[after:nl].strip()
    k = after_ws(buf, nl, final)
    if k is None or isinstance(k, bool):
        return k
    fenced = False
    if buf[k] == "`":
        f = fence_at(buf, k, final)
        if f is None or f is False:
            return f
        k = after_ws(buf, f, final)
        if k is None or isinstance(k, bool):
            return k
        fenced = True
    if buf[k] != "{":
        return False
    eng.begin_call("deepseek_v3", s)
    eng.set_name(name)
    eng.pos = k
    state = JsonArgsState(eng, (DS_CALL_END,), fenced=fenced)
    eng.push(state)
    if head and head != "function" and eng.call is not None:
        eng.call.reject, eng.call.detail = Reason.MALFORMED, f"unknown call type {head[:40]!r}"
    return True


_DS_BLOCK: Final = block_table({DS_CALL_BEGIN: deepseek_call}, (DS_CALLS_END,))


def wire_deepseek(w: Wiring) -> None:
    if DS_CALLS_BEGIN in w.markers:  # v3 and v3.1 share every token: wire once
        return
    fmt = "deepseek_v31" if "deepseek_v31" in w.active and "deepseek_v3" not in w.active else "deepseek_v3"
    junk = (fmt, (DS_CALLS_END,))
    w.on(DS_CALLS_BEGIN, block(_DS_BLOCK, junk=junk))
    w.on(DS_CALLS_SHORT, block(_DS_BLOCK, junk=junk))
    w.on(DS_CALL_BEGIN, deepseek_call)


# Kimi K2 -----------------------------------------------------------------------------------------------

KIMI_SECTION_BEGIN: Final = "<|tool_calls_section_begin|>"
KIMI_SECTION_END: Final = "<|tool_calls_section_end|>"
KIMI_CALL_BEGIN: Final = "<|tool_call_begin|>"
KIMI_ARGS_BEGIN: Final = "<|tool_call_argument_begin|>"
KIMI_CALL_END: Final = "<|tool_call_end|>"
# ``functions.NAME:IDX``; the ``functions.`` prefix is optional (vLLM accepts ``NAME:IDX``), ``:IDX`` is not.
_KIMI_ID: Final = re.compile(r"\s*(?:functions\.)?(?P<name>[^\s:<>{}]{1,200}):\d+\s*")
_KIMI_LOOSE_ID: Final = re.compile(r"\s*(?P<name>[^\s<>{}]{1,200})\s*")


def kimi_call(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>ARGS<|tool_call_end|>``."""
    buf = eng.buf
    idx = buf.find(KIMI_ARGS_BEGIN, e, e + LOOKAHEAD)
    if idx < 0:
        if len(buf) < e + LOOKAHEAD and not final:
            return None if not buf[e:].lstrip().startswith("{") else False
        return False
    m = _KIMI_ID.fullmatch(buf, e, idx)
    loose = _KIMI_LOOSE_ID.fullmatch(buf, e, idx) if m is None else None
    if m is None and loose is None:
        return False
    j = after_ws(buf, idx + len(KIMI_ARGS_BEGIN), final)
    if j is None or isinstance(j, bool):
        return j
    eng.begin_call("kimi_k2", s)
    if m is None:  # an id without `:IDX` (`functions.NAME.0`): a malformed call, never one named `NAME.0`
        cand = eng.call
        assert cand is not None and loose is not None
        cand.name = loose.group("name")
        cand.reject, cand.detail = Reason.MALFORMED, f"call id {cand.name!r} is not functions.NAME:IDX"
    else:
        eng.set_name(m.group("name"), call_id=buf[e:idx].strip())
    eng.pos = j
    eng.push(JsonArgsState(eng, (KIMI_CALL_END,)))
    return True


# The section is shared with token_json (formats/sections.py: a `{` body right after `<|tool_call_begin|>`),
# which adds its call handler here; inside the section each active format checks its continuation.
SECTION_CALLS: dict[str, Handler] = {"kimi_k2": kimi_call}


def section_call(eng: Engine, s: int, e: int, final: bool) -> Decision:
    undecided = False
    for fmt, handler in SECTION_CALLS.items():
        if fmt in eng.cfg.format_set:
            res = handler(eng, s, e, final)
            if res:
                return True
            undecided = undecided or res is None
    return None if undecided else False


def kimi_block_calls() -> dict[str, Handler]:
    return {KIMI_CALL_BEGIN: section_call}


_KIMI_BLOCK: Final = block_table(kimi_block_calls(), (KIMI_SECTION_END,))


def wire_section(w: Wiring) -> None:
    if KIMI_SECTION_BEGIN not in w.markers:  # kimi_k2 and token_json share it: wire once
        w.on(KIMI_SECTION_BEGIN, block(_KIMI_BLOCK, noise=True))  # Kimi K2 writes noise between markers


def wire_kimi_k2(w: Wiring) -> None:
    wire_section(w)
    w.on(KIMI_CALL_BEGIN, kimi_call)
    # A section end with no section open (the model closed a section that was abandoned, or wrote a second
    # end) is markup: it never reaches the text.
    w.on(KIMI_SECTION_END, drop)
    # So are the other call tokens written outside a call (SGLang's detector tests pin it): none is text.
    w.on(KIMI_ARGS_BEGIN, drop)
    w.on(KIMI_CALL_END, drop)


# Harmony (gpt-oss) ---------------------------------------------------------------------------------------

H_START: Final = "<|start|>"
H_CHANNEL: Final = "<|channel|>"
H_MESSAGE: Final = "<|message|>"
_RECIPIENT: Final = re.compile(r"to=([^\s<]+)")
# What stands between ``<|start|>`` / ``<|channel|>`` and ``<|message|>`` in a header: words, a recipient,
# the channel and ``<|constrain|>``, never other markup or a line break.
_HEADER_SHAPE: Final = re.compile(r"[^<>\n]*(?:<\|channel\|>[^<>\n]*)?(?:<\|constrain\|>[^<>\n]*)?")


def _end_message(eng: Engine, s: int, e: int, final: bool) -> bool | None:
    """``<|end|>`` / ``<|call|>`` / ``<|return|>`` end the analysis message only where a message can end:
    before the next message's header or the end of the output; reasoning that mentions them keeps them
    as text (markers inside values)."""
    buf = eng.buf
    j = after_ws(buf, e, final)
    if j is None:
        return None
    if j is not False:
        found = [starts_or_prefix(buf, j, m) for m in (H_START, H_CHANNEL)]
        if not any(found) and None not in found:
            return False
        if not any(found) and not final:
            return None  # the next marker may still be arriving (at the end, a cut one counts)
    return pop_scope(eng, s, e, final)


_HARMONY_ANALYSIS: Final = MarkerTable(
    {
        "<|end|>": [_end_message],
        "<|call|>": [_end_message],
        "<|return|>": [_end_message],
        **{t: [drop] for t in CONTROL_TOKENS if t not in ("<|end|>", "<|call|>", "<|return|>")},
    }
)


def _header_follows(eng: Engine, e: int, final: bool) -> bool | None:
    """A whole header (``...<|message|>``, header-shaped) follows ``e``; None: not decidable yet."""
    buf = eng.buf
    idx = buf.find(H_MESSAGE, e, e + 2 * LOOKAHEAD)
    if idx < 0:
        return None if (len(buf) < e + 2 * LOOKAHEAD and not final) else False
    return _HEADER_SHAPE.fullmatch(buf, e, idx) is not None


# The text after a header's opener that leaves it undecided (no ``<|message|>`` yet, under the look-ahead):
# while a header arrives in pieces, the engine keeps the chunks (FastPaths.wait_for).
_HEADER_UNDECIDED: Final = undecided("", (H_MESSAGE,), 2 * LOOKAHEAD - 1)


def _leave_analysis(eng: Engine, s: int, e: int, final: bool) -> bool | None:
    """A new message began without ``<|end|>``: leave reasoning, let the text scope read the header. Only
    when a header follows: reasoning may mention ``<|channel|>final``."""
    follows = _header_follows(eng, e, final)
    if follows is None:
        eng.wait_for(_HEADER_UNDECIDED, e)
    if not follows:
        return follows
    eng.pos = s
    eng.pop()
    return True


def harmony_header(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<|start|>ROLE [to=R]<|channel|>CHANNEL [to=R] [<|constrain|>json]<|message|>``."""
    decision = _header(eng, s, e, final, role_part=eng.buf.startswith(H_START, s))
    if decision is None:  # (not final) the header arrives in pieces: kept while it stays undecided
        eng.wait_for(_HEADER_UNDECIDED, e)
    return decision


H_BARE_RECIPIENT: Final = "to=functions."


def harmony_first_message(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """The first message of the output when it is a call: the prompt ended with ``<|start|>assistant``,
    so the output begins with the rest of the role part, `` to=functions.NAME<|channel|>commentary json
    <|message|>ARGS<|call|>``. Only at the very start (nothing but whitespace before it)."""
    if eng.seen_output or eng.reasoning_seen or eng.next_index:
        return False
    buf = eng.buf
    idx = buf.find(H_MESSAGE, e, e + 2 * LOOKAHEAD)
    if idx < 0:
        return None if (len(buf) < e + 2 * LOOKAHEAD and not final) else False
    if H_CHANNEL not in buf[e:idx]:
        return False
    return _header(eng, s, s, final, role_part=True)


def _header(eng: Engine, s: int, e: int, final: bool, role_part: bool) -> Decision:
    buf = eng.buf
    idx = buf.find(H_MESSAGE, e, e + 2 * LOOKAHEAD)
    if idx < 0:
        if final and len(buf) < e + 2 * LOOKAHEAD:
            return _cut_header(eng, s, e)
        return None if (len(buf) < e + 2 * LOOKAHEAD and not final) else False
    header = buf[e:idx]
    if role_part and H_CHANNEL not in header:
        return False  # no channel: not harmony (muse's `<|start|>assistant to=R<|message|>`)
    # The recipient may sit in the role part (`<|start|>assistant to=...`) or the channel part.
    channel_part = header.partition(H_CHANNEL)[2] if role_part else header
    words = channel_part.replace("<|constrain|>", " ").split()
    channel = words[0] if words else ""
    m = _RECIPIENT.search(header)
    body = idx + len(H_MESSAGE)
    if m is not None:
        recipient = m.group(1)
        name = recipient[len("functions.") :] if recipient.startswith("functions.") else recipient
        eng.begin_call("harmony", s)
        tools = eng.cfg.tools
        builtin = not recipient.startswith("functions.")
        if builtin and (tools is None or recipient not in tools):
            cand = eng.call
            assert cand is not None
            cand.name = recipient
            cand.reject, cand.detail = Reason.UNKNOWN_TOOL, f"built-in recipient {recipient!r} is not declared"
        else:
            eng.set_name(name)
        eng.pos = skip_ws(buf, body) if skip_ws(buf, body) < len(buf) else body
        eng.push(JsonArgsState(eng, ("<|call|>", "<|end|>"), optional_close=True))
        return True
    eng.pos = body
    if channel == "analysis":
        eng.begin_reasoning_segment()
        eng.push(ScanState(_analysis_table(), reasoning=True))
    return True


def _cut_header(eng: Engine, s: int, e: int) -> bool:
    """The output ended inside a call's header (header-shaped, naming a recipient): a truncated call, never
    text (no name is announced: the call never started)."""
    buf = eng.buf
    m = _RECIPIENT.search(buf, e)
    if _HEADER_SHAPE.fullmatch(buf, e) is None or m is None:
        return False
    cand = eng.begin_call("harmony", s)
    recipient = m.group(1)
    cand.name = recipient[len("functions.") :] if recipient.startswith("functions.") else recipient
    eng.fail_call(Reason.TRUNCATED, "the stream ended inside the call's header", len(buf))
    eng.pos = len(buf)
    return True


_ANALYSIS: list[MarkerTable] = []


def _analysis_table() -> MarkerTable:
    if not _ANALYSIS:
        handlers = {k: list(v) for k, v in _HARMONY_ANALYSIS.handlers.items()}
        handlers[H_START] = [_leave_analysis]
        handlers[H_CHANNEL] = [_leave_analysis]
        _ANALYSIS.append(MarkerTable(handlers))
    return _ANALYSIS[0]


def wire_harmony(w: Wiring) -> None:
    w.on(H_START, harmony_header)
    w.on(H_CHANNEL, harmony_header)
    w.on(H_BARE_RECIPIENT, harmony_first_message, START)


# muse (MuseGlimmer) ------------------------------------------------------------------------------------------
# Messages `<|start|>assistant to=RECIPIENT<|message|>BODY<|eom|>` (the first one without `<|start|>assistant`:
# the prompt ends with it). `self`: reasoning; `user` or none: the answer; anything else: a tool message whose
# body is an `<atem:function_calls>` section. The header is markup, never text.

M_END: Final = ("<|eom|>", "<|eot|>")
_MUSE_HEADER: Final = re.compile(r"[ \t]*(?:assistant)?[ \t]*(?:to=(?P<to>[A-Za-z0-9_.\-]{1,200}))?[ \t]*")
_MUSE_REASONING: Final = MarkerTable(
    {
        **{t: [pop_scope] for t in M_END},
        H_START: [_leave_analysis],
        **{t: [drop] for t in CONTROL_TOKENS if t not in M_END},
    }
)


def _muse_message(eng: Engine, s: int, e: int, final: bool, role: str) -> Decision:
    """A header from ``e`` (after ``<|start|>``, or at the start of the output) up to ``<|message|>``."""
    buf = eng.buf
    idx = buf.find(H_MESSAGE, e, e + LOOKAHEAD)
    if idx < 0:
        return None if (len(buf) < e + LOOKAHEAD and not final) else False
    m = _MUSE_HEADER.fullmatch(buf, e, idx)
    if m is None or (role and not buf[e:idx].lstrip().startswith(role)):
        return False
    eng.pos = idx + len(H_MESSAGE)
    if m.group("to") == "self":
        eng.begin_reasoning_segment()
        eng.push(ScanState(_MUSE_REASONING, reasoning=True))
    return True


def muse_start(eng: Engine, s: int, e: int, final: bool) -> Decision:
    return _muse_message(eng, s, e, final, "assistant")


def muse_first(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """The first message: `` to=self<|message|>`` at the very start of the output (start rule)."""
    ok = starts_or_prefix(eng.buf, s, "to=")
    if not ok:
        return None if ok is None and not final else False
    return _muse_message(eng, s, s, final, "")


def _muse_invoke(eng: Engine, s: int, e: int, final: bool) -> Decision:
    """``<atem:invoke name="NAME">``; a bare tool's doubled name (``get_weather.get_weather``, what the
    template's ``NAME.*`` recipient leads to) is the tool when declared."""
    m = read_header(eng.buf, e, ">", tagged.INVOKE_NAME, final)
    if not m:
        return m
    name = m.group("name").strip()
    head, dot, tail = name.partition(".")
    tools = eng.cfg.tools
    if dot and head == tail and tools is not None and name not in tools and head in tools:
        name = head
    eng.begin_call("muse", s)
    eng.set_name(name)
    eng.pos = m.end()
    eng.push(TagCallState(tagged.invoke_syntax("atem:")))
    return True


_MUSE_BLOCK: Final = block_table({"<atem:invoke": _muse_invoke}, ("</atem:function_calls>",))


def wire_muse(w: Wiring) -> None:
    w.on(H_START, muse_start)
    w.on("<atem:function_calls>", block(_MUSE_BLOCK, "<atem:invoke"))
    w.on(H_MESSAGE, drop)  # a bare header: the answer follows
    w.on("<|eom|>", drop)
    w.start.append(muse_first)


SPECS: Final = [
    FormatSpec(
        "deepseek_v3",
        "DeepSeek-V3, V3-0324, R1, R1-0528",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json ARGS```<｜tool▁call▁end｜>"
        "<｜tool▁calls▁end｜>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>lookup_order\n```json\n"
        '{"order_id": "A-1001"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        wire_deepseek,
        layout=Declaration(
            "deepseek_v3",
            Call(DS_CALL_BEGIN, DS_CALL_END, HeaderName("\n", prefix="function" + DS_SEP), JsonArgs(fenced=True)),
            Section(DS_CALLS_BEGIN, DS_CALLS_END),
        ),
    ),
    FormatSpec(
        "deepseek_v31",
        "DeepSeek-V3.1, V3.1-Terminus, V3.2-Exp",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>lookup_order<｜tool▁sep｜>{"order_id": "A-1001"}'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        wire_deepseek,
        layout=Declaration(
            "deepseek_v31",
            Call(DS_CALL_BEGIN, DS_CALL_END, HeaderName(DS_SEP), JsonArgs()),
            Section(DS_CALLS_BEGIN, DS_CALLS_END),
        ),
    ),
    FormatSpec(
        "kimi_k2",
        "Kimi-K2-Instruct (-0905), Kimi-K2-Thinking",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>ARGS"
        "<|tool_call_end|><|tool_calls_section_end|>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.lookup_order:0<|tool_call_argument_begin|>"
        '{"order_id": "A-1001"}<|tool_call_end|><|tool_calls_section_end|>',
        wire_kimi_k2,
        layout=Declaration(
            "kimi_k2",
            Call(
                "<|tool_call_begin|>",
                "<|tool_call_end|>",
                HeaderName("<|tool_call_argument_begin|>", prefix="functions.", suffix_pattern=r":[0-9]+"),
                JsonArgs(),
            ),
            Section("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),
        ),
    ),
    FormatSpec(
        "harmony",
        "gpt-oss-20b, gpt-oss-120b",
        "<|channel|>analysis<|message|>...<|end|> · <|channel|>commentary to=functions.NAME <|constrain|>json"
        "<|message|>ARGS<|call|>",
        "<|channel|>analysis<|message|>Need the order.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.lookup_order <|constrain|>json<|message|>{"order_id":"A-1001"}<|call|>',
        wire_harmony,
        tag_writer=harmony_tag,
    ),
    FormatSpec(
        "muse",
        "MuseGlimmer",
        " to=self<|message|>REASONING<|eom|><|start|>assistant to=TOOL<|message|><atem:function_calls> "
        '<atem:invoke name="NAME"> <atem:parameter name="K">V</atem:parameter> </atem:invoke> '
        "</atem:function_calls><|eom|> · <|start|>assistant to=user<|message|>ANSWER<|eot|>",
        " to=self<|message|>Set it.<|eom|><|start|>assistant to=set_alarm<|message|><atem:function_calls>\n"
        '<atem:invoke name="set_alarm">\n<atem:parameter name="minutes">15</atem:parameter>\n</atem:invoke>\n'
        "</atem:function_calls><|eom|>",
        wire_muse,
        notes="The headers are markup; `self` messages are reasoning, `user` (or no recipient) the answer.",
        # The tool message's section (its ` to=RECIPIENT<|message|>` header is optional to the parser).
        layout=Declaration(
            "muse",
            Call(
                "<atem:invoke",
                "</atem:invoke>\n",
                HeaderName(">\n", attribute="name"),
                tagged.invoke_args("atem:"),
            ),
            Section("<atem:function_calls>\n", "</atem:function_calls>"),
        ),
    ),
]
