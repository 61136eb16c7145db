"""Handlers and states of visible text shared by every format: code (code rule), reasoning (reasoning rule), control
tokens (control-token rule)."""

from __future__ import annotations

import re
from typing import Final

from ..core.engine import Engine, Handler, MarkerTable, ScanState, State
from .separators import Separators

CONTROL_TOKENS: tuple[str, ...] = (
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|eot|>",
    "<|endoftext|>",
    "<|END_OF_TURN_TOKEN|>",
    "<｜end▁of▁sentence｜>",
    "<seed:eos>",
    "[e~[",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
    "<|tool_response>",  # Gemma 4 ends a call turn with it: a control token, never visible text
    "<|/tool_call|>",  # Phi-4-mini's call closer, when the call before it ended with its JSON
    "<|message_model|>",  # Inkling: a model message begins
    "<|content_text|>",  # Inkling: the visible-text block of a message
    "<|end_message|>",
    "<|content_model_end_sampling|>",
    "<|plamo:tag|>",  # PLaMo 3's end of turn
)

# Reasoning wrappers (reasoning rule): opener -> closer. ``<think>`` opens only at the start of the output.
REASONING: dict[str, str] = {
    "<think>": "</think>",
    "<seed:think>": "</seed:think>",
    "[THINK]": "[/THINK]",
    "<|START_THINKING|>": "<|END_THINKING|>",
    "<|channel>thought": "<channel|>",
    "<mm:think>": "</mm:think>",  # MiniMax-M3
    "◁think▷": "◁/think▷",  # Kimi-VL-Thinking, Kimi-K2.5 (U+25C1 / U+25B7)
    "<think:opensource>": "</think:opensource>",  # Tencent Hy3
    "<reasoning>": "</reasoning>",  # Reka Flash 3
    "<|content_thinking|>": "<|end_message|>",  # Inkling's typed content blocks (SGLang's InklingDetector)
    "[unused16]": "[unused17]",  # openPangu tokenizers without <think> (vLLM's pangu reasoning parser)
    "<|plamo:begin_think:plamo|>": "<|plamo:end_think:plamo|>",  # PLaMo 3
    "<ifm|think>": "</ifm|think>",  # K2 Horizon, by reasoning effort: high, medium, low
    "<ifm|think_fast>": "</ifm|think_fast>",
    "<ifm|think_faster>": "</ifm|think_faster>",
}
# Openers that count only at the start of the output (later they are prose about tags).
START_ONLY_REASONING: Final = frozenset({"<think>", "<reasoning>"})
# Closers that, with no opener before them, say the prompt had opened the reasoning (orphan closers): the
# text before them is reasoning. Special tokens only; a format adds plain-text ones where it is named.
ORPHAN_CLOSERS: Final = (
    "</think>",
    "</mm:think>",
    "◁/think▷",
    "</think:opensource>",
    "<|END_THINKING|>",
    "[unused17]",
    "<|plamo:end_think:plamo|>",
    "</ifm|think>",
    "</ifm|think_fast>",
    "</ifm|think_faster>",
)
REASONING_DROPPED: Final = ("<seed:cot_budget_reflect>", "</seed:cot_budget_reflect>")


def drop(eng: Engine, s: int, e: int, final: bool) -> bool:
    """Markup that is removed and nothing more (control tokens, an orphan ``</think>``). A control token
    declared with the whitespace its template writes after it (GigaChat's ``<|message_sep|>\n\n``) drops
    that whitespace as a separator: visible text that resumes after it is joined as after dropped whitespace."""
    eng.pos = e
    marker = eng.buf[s:e]
    layout = marker[len(marker.rstrip()) :]
    state = eng.state
    if layout and isinstance(eng.sep, Separators) and type(state) is ScanState and not state.reasoning:
        eng.sep.widen(layout)
    return True


def orphan_closer(eng: Engine, s: int, e: int, final: bool) -> bool:
    """``</think>`` in visible text: markup, never text; before any reasoning or call it says the text
    released so far was reasoning (reasoning rule, ``TextWasReasoning``)."""
    eng.pos = e
    was_reasoning = eng.orphan_window and eng.seen_output
    eng.orphan_closer()
    if was_reasoning and isinstance(eng.sep, Separators):
        eng.sep.forget_text()
    return True


def end_primed_reasoning(eng: Engine, s: int, e: int, final: bool) -> bool:
    """A native call opener of an active format inside primed reasoning ends the reasoning the way
    ``</think>`` does (a server that split the reasoning off, or thinking switched off, never sends the
    closer): the opener is left for the visible-text scope, so a complete call is never lost."""
    eng.pos = s
    eng.pop()
    return True


class _Vanish:
    """A token that only disappears (``StreamParser(control_tokens=...)``: MiniCPM-V's reserved markers, which
    its engines remove wherever they fall): unlike a template's markup it has no separators around it, so the
    text on both sides is kept as written (``a <reserved_12> b`` gives ``a  b``, as vLLM's parser does)."""

    transparent = True  # the engine does not count it as markup for the separators (core/engine.py)

    def __call__(self, eng: Engine, s: int, e: int, final: bool) -> bool:
        eng.pos = e
        return True


vanish: Final = _Vanish()


def at_reasoning_start(eng: Engine, s: int) -> bool:
    """Nothing but separator whitespace since the reasoning began (or since its last markup). Where every
    character is kept (``separators="keep"``), nothing but whitespace since the output began: the kept
    whitespace before the opener is reasoning (vLLM's DeepSeek-R1 tests keep ``\n<think>``'s ``\n``)."""
    sep = eng.sep
    if isinstance(sep, Separators):
        return sep.at_lead(True)
    if not eng.reasoning_seen:
        return True
    # The buffer still holds the whole output after its virtual line start while it was never trimmed.
    return len(eng.buf) == eng.chars_in + 1 and (s == 1 or eng.buf[1:s].isspace())


def written_opener(table: MarkerTable) -> Handler:
    """``<think>`` at the start of primed reasoning: the model wrote the opener itself, so this is an
    ordinary reasoning block (call openers inside it no longer end it). Written later, after reasoning
    text, it is that text (``I mention <think> here``): the template writes an opener only where reasoning
    begins, and the engines' parsers take only the first opener as markup (vLLM's partition)."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> bool:
        if not at_reasoning_start(eng, s):
            return False
        eng.pos = e
        eng.state = ScanState(table, reasoning=True)
        return True

    return handler


def repeated_opener(eng: Engine, s: int, e: int, final: bool) -> bool:
    """``<think>`` again at the start of a ``<think>`` block (a primed output that repeats the opener) is
    markup; after reasoning text it is that text, as in :func:`written_opener`."""
    if not at_reasoning_start(eng, s):
        return False
    return drop(eng, s, e, final)


def end_of_output_only(eng: Engine, s: int, e: int, final: bool) -> bool | None:
    """``</s>`` is removed only at the very end of the output (control-token rule)."""
    if e < len(eng.buf):
        return False
    if not final:
        return None
    eng.pos = e
    return True


def pop_scope(eng: Engine, s: int, e: int, final: bool) -> bool:
    eng.pos = e
    eng.pop()
    return True


def open_reasoning(table_for: dict[str, MarkerTable], at_start_only: bool) -> Handler:
    def handler(eng: Engine, s: int, e: int, final: bool) -> bool:
        if at_start_only and (eng.seen_output or eng.reasoning_seen):
            return False
        closer = REASONING[eng.buf[s:e]]
        eng.pos = e
        eng.orphan_window = False  # a written opener: its closer is not an orphan
        eng.begin_reasoning_segment()
        eng.push(ScanState(table_for[closer], reasoning=True))
        return True

    return handler


# -- code (code rule) ---------------------------------------------------------------------------------------

_BACKTICKS: Final = re.compile(r"`+")
_TILDES: Final = re.compile(r"~+")
# A backtick or tilde run longer than this is plain text, never a fence or code span: so a run held at the
# end of a chunk stays bounded. The rest of such a run, arriving later, is recognised by the run character
# just before it (only a too-long run is ever split from its continuation), so the result is the same
# for every chunking.
MAX_RUN: Final = 32
# What the handler below answers None to, from the run's start, for FastPaths.wait_for (the engine keeps the
# chunks instead of running the handler again for each): a run at the end of the buffer (it may grow), a
# fence's info line before its newline (bounded as the handler bounds it).
_RUN_UNDECIDED: Final = re.compile(f"`{{1,{MAX_RUN}}}")
_INFO_UNDECIDED: Final = re.compile(f"`{{3,{MAX_RUN}}}(?!`)[^\\n]{{0,255}}")


def backticks(fence_markers: dict[str, Handler]) -> Handler:
    """A backtick run: a fenced block at a line start (three or more), else an inline code span.

    ``fence_markers`` maps info strings to formats whose marker is the fence itself (``tool_code``...).
    """

    def handler(eng: Engine, s: int, e: int, final: bool) -> bool | None:
        buf = eng.buf
        run_end = _BACKTICKS.match(buf, s).end()  # type: ignore[union-attr]
        if run_end - s > MAX_RUN or (s > 0 and buf[s - 1] == "`"):
            eng.text(buf[s:run_end])
            eng.pos = run_end
            return True
        if run_end >= len(buf) and not final:
            eng.wait_for(_RUN_UNDECIDED, s)
            return None
        run = run_end - s
        if run >= 3 and eng.line_start(s):
            nl = buf.find("\n", run_end)
            if nl < 0:
                if not final and len(buf) - run_end < 256:
                    eng.wait_for(_INFO_UNDECIDED, s)
                    return None
                nl = len(buf)
            # An info line of 256+ characters is decided without its end in every chunking: never special.
            info = buf[run_end:nl].strip() if nl - run_end < 256 else ""
            special = fence_markers.get(info.lower()) if info else None
            if special is not None:
                res = special(eng, s, nl, final)
                if res is None or res:
                    return res
            eng.text(buf[s:nl])
            eng.pos = nl
            eng.push(FenceState("`", run))
            return True
        eng.text(buf[s:run_end])
        eng.pos = run_end
        eng.push(InlineCodeState(run))
        return True

    return handler


def tildes(eng: Engine, s: int, e: int, final: bool) -> bool | None:
    buf = eng.buf
    run_end = _TILDES.match(buf, s).end()  # type: ignore[union-attr]
    if not eng.line_start(s) or run_end - s > MAX_RUN:
        eng.text(buf[s:run_end])  # the whole run at once: a tilde run is never retried char by char
        eng.pos = run_end
        return True
    if run_end >= len(buf) and not final:
        return None
    nl = buf.find("\n", run_end)
    if nl < 0:
        if not final and len(buf) - run_end < 256:
            return None
        nl = len(buf)
    eng.text(buf[s:nl])
    eng.pos = nl
    eng.push(FenceState("~", run_end - s))
    return True


class FenceState(State):
    """Inside a fenced code block: everything is visible text up to the closing fence line."""

    __slots__ = ("close", "tail")

    def __init__(self, char: str, run: int) -> None:
        c = re.escape(char)
        # Bounded closing lines (MAX_RUN fence characters, 64 blanks), so the held tail stays bounded.
        self.close = re.compile(r"\n {0,3}(" + c + "{" + str(run) + "," + str(MAX_RUN) + r"})[ \t]{0,64}(?=\n|\Z)")
        self.tail = re.compile(r"\n {0,3}" + c + "{0," + str(MAX_RUN) + r"}[ \t]{0,64}\Z")

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        m = self.close.search(buf, pos)
        if m is not None and (m.end() < len(buf) or final):
            eng.text(buf[pos : m.end()])
            eng.pos = m.end()
            eng.pop()
            return True
        hold = len(buf)
        if not final:
            t = self.tail.search(buf, pos)
            if t is not None:
                hold = t.start()
        if hold > pos:
            eng.text(buf[pos:hold])
            eng.pos = hold
        return False


class InlineCodeState(State):
    """Inside an inline code span: visible text up to a backtick run of the same length or a newline."""

    __slots__ = ("run",)
    _stop = re.compile(r"`+|\n")

    def __init__(self, run: int) -> None:
        self.run = run

    def step(self, eng: Engine, final: bool) -> bool:
        buf = eng.buf
        pos = eng.pos
        while True:
            m = self._stop.search(buf, pos)
            if m is None:
                eng.text(buf[eng.pos :])
                eng.pos = len(buf)
                return False
            if m.group() == "\n":
                eng.text(buf[eng.pos : m.start()])
                eng.pos = m.start()
                eng.pop()
                return True
            if m.end() - m.start() > MAX_RUN or buf[m.start() - 1] == "`":
                pos = m.end()  # a too-long run (or the rest of one) cannot close the span
                continue
            if m.end() >= len(buf) and not final:
                eng.text(buf[eng.pos : m.start()])
                eng.pos = m.start()
                return False
            if m.end() - m.start() == self.run:
                eng.text(buf[eng.pos : m.end()])
                eng.pos = m.end()
                eng.pop()
                return True
            pos = m.end()
