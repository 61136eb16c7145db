"""Handler factories the format entries are written with (continuation rule continuations live here)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from ..core.engine import Engine, Handler, MarkerTable, State
from ..core.lookahead import LOOKAHEAD, after_ws, fence_at, read_header, skip_ws, starts_or_prefix, undecided
from ..rejections import Reason
from ..states.blocks import BlockState, close_block
from ..states.json_body import JsonArgsState, JsonCallState
from ..states.tag_body import TagCallState, TagSyntax

Decision = bool | None

TOOL_NAME: Final = re.compile(r"\w[\w.\-]{0,199}")  # a bare tool name (mistral, tool_request)
NAME_MAX: Final = 200


def _first(eng: Engine, e: int, final: bool, fences: bool = True) -> tuple[int, bool] | Decision:
    """Skip whitespace (and an optional ```json fence line) after an opener: (index, fenced)."""
    buf = eng.buf
    j = after_ws(buf, e, final)
    if j is None or isinstance(j, bool):
        return j
    if fences and buf[j] == "`":
        f = fence_at(buf, j, final)
        if f is None or f is False:
            return f
        j = after_ws(buf, f, final)
        if j is None or isinstance(j, bool):
            return j
        return j, True
    return j, False


def json_call(
    fmt: str,
    closers: tuple[str, ...],
    *,
    objects: bool = True,
    lists: bool = False,
    optional_close: bool = False,
    unless_active: str | None = None,
    several: bool = False,
    state: Callable[[Engine, bool, bool], State] | None = None,
) -> Handler:
    """An opener followed by a JSON call object (``{``) and/or a list of them (``[``); ``several``: also
    comma-separated objects before the closer. ``state(eng, list_form, fenced)``: the body's state, when
    not the default :class:`JsonCallState` (declared field names, ``{"NAME": ARGS}`` objects)."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        first = _first(eng, e, final)
        if not isinstance(first, tuple):
            return first
        j, fenced = first
        c = eng.buf[j]
        if c == "{" and objects:
            eng.begin_call(fmt, s)
            eng.pos = j
            if state is not None:
                eng.push(state(eng, False, fenced))
                return True
            eng.push(JsonCallState(eng, fmt, closers, optional_close=optional_close, fenced=fenced, several=several))
            return True
        if c == "[" and lists and not (unless_active and unless_active in eng.cfg.format_set):
            eng.pos = j
            if state is not None:
                eng.push(state(eng, True, fenced))
                return True
            eng.push(JsonCallState(eng, fmt, closers, list_form=True, optional_close=optional_close, fenced=fenced))
            return True
        return False

    return handler


def block(
    opener_table: Callable[[], MarkerTable],
    continuation: str | None = None,
    junk: tuple[str, tuple[str, ...]] | None = None,
    noise: bool = False,
) -> Handler:
    """A section opener: what follows (after whitespace) must begin with ``continuation`` if given.
    ``junk`` (format, closers): a special-token section whose stray text is broken markup; ``noise``: stray
    text between the section's markers is dropped (BlockState)."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        if continuation is not None:
            j = after_ws(eng.buf, e, final)
            if j is None or isinstance(j, bool):
                return j
            ok = starts_or_prefix(eng.buf, j, continuation)
            if not ok:
                return ok if not final else False
        eng.pos = e
        eng.push(BlockState(opener_table(), junk, eng.next_index, noise))
        return True

    return handler


def block_table(calls: dict[str, Handler], closers: tuple[str, ...]) -> Callable[[], MarkerTable]:
    """The markers inside a section, compiled once on first use."""
    cache: list[MarkerTable] = []

    def table() -> MarkerTable:
        if not cache:
            markers: dict[str, list[Handler]] = {k: [v] for k, v in calls.items()}
            for c in closers:
                markers.setdefault(c, []).append(close_block)
            cache.append(MarkerTable(markers))
        return cache[0]

    return table


def tag_call(
    fmt: str,
    name_header: re.Pattern[str],
    header_end: str,
    syntax: TagSyntax,
    *,
    require_next: tuple[str, ...] = (),
) -> Handler:
    """An XML-style call: the name is read from the opener's header, then text-valued parameters.

    ``require_next``: after the header (and whitespace) one of these must follow (e.g. ``<parameter=``),
    which is how ``<function=NAME>`` tells qwen3_coder from function_tag's ``{``.
    """

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        m = read_header(eng.buf, e, header_end, name_header, final)
        if not m:
            if m is None:  # only more of the header decides: the engine keeps its chunks meanwhile
                eng.wait_for(undecided(eng.buf[s:e], (header_end,), LOOKAHEAD - 1), s)
            return m
        if require_next:
            j = after_ws(eng.buf, m.end(), final)
            if j is None or isinstance(j, bool):
                return j
            results = [starts_or_prefix(eng.buf, j, w) for w in require_next]
            if not any(results):
                return None if (None in results and not final) else False
        eng.begin_call(fmt, s)
        eng.set_name(m.group("name").strip())
        eng.pos = m.end()
        eng.push(TagCallState(syntax))
        return True

    return handler


def named_json(
    fmt: str,
    name_header: re.Pattern[str],
    header_end: str,
    closers: tuple[str, ...],
    *,
    optional_close: bool = False,
) -> Handler:
    """A header naming the call, then its JSON arguments object, then a closer."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        m = read_header(eng.buf, e, header_end, name_header, final)
        if not m:
            if m is None:  # only more of the header decides: the engine keeps its chunks meanwhile
                eng.wait_for(undecided(eng.buf[s:e], (header_end,), LOOKAHEAD - 1), s)
            return m
        first = _first(eng, m.end(), final)
        if not isinstance(first, tuple):
            return first
        j, fenced = first
        if eng.buf[j] != "{":
            return False
        eng.begin_call(fmt, s)
        eng.set_name(m.group("name").strip())
        eng.pos = j
        eng.push(JsonArgsState(eng, closers, optional_close=optional_close, fenced=fenced))
        return True

    return handler


# -- openers followed by JSON call objects -------------------------------------------------------------


def cut_off(eng: Engine, s: int, fmt: str, final: bool) -> Decision:
    """The stream may still complete the opener's continuation: wait, or at the end a truncated call."""
    if not final:
        return None
    eng.begin_call(fmt, s)
    eng.fail_call(Reason.TRUNCATED, "the stream ended right after the opener", len(eng.buf))
    eng.pos = len(eng.buf)
    return True


def after_opener(eng: Engine, s: int, e: int, fmt: str, final: bool, token: bool) -> Any:  # int | bool | None
    """Index of the first non-space character after an opener; for a special ``token`` opener the end of
    the stream there is a truncated call, for a plain-text opener it leaves the opener as text. (Typed Any
    for mypyc, as ``lookahead.after_ws``: a compiled int | bool union would turn False into 0.)"""
    buf = eng.buf
    j = skip_ws(buf, e)
    if j < len(buf):
        return j
    if j - e >= LOOKAHEAD:
        return False
    if token:
        return cut_off(eng, s, fmt, final)
    return False if final else None


def start_object(eng: Engine, s: int, j: int, fmt: str, state: State) -> bool:
    eng.begin_call(fmt, s)
    eng.pos = j
    eng.push(state)
    return True


def objects_section(fmt: str, table: Callable[[], MarkerTable], token: bool) -> Handler:
    """An opener followed by one or more JSON call objects, read as a section (``{`` must come next)."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        j = after_opener(eng, s, e, fmt, final, token=token)
        if j is None or isinstance(j, bool):
            return j
        if eng.buf[j] != "{":
            return False
        eng.pos = e
        eng.push(BlockState(table()))
        return True

    return handler


UNPARSED_SCAN: Final = 2 * LOOKAHEAD  # how far a block closer is looked for after an opener nobody took


def unparsed_block(fmt: str, closer: str) -> Handler:
    """Last handler of a shared block opener (``<tool_call>``): every format's continuation check failed,
    but the block is closed soon after. It is a call that could not be read, so it is rejected
    ``malformed`` with the whole block as its raw text, never shown. An opener with no closer within
    ``UNPARSED_SCAN`` characters (prose that mentions the tag) stays text."""

    def handler(eng: Engine, s: int, e: int, final: bool) -> Decision:
        buf = eng.buf
        i = buf.find(closer, e, e + UNPARSED_SCAN + len(closer))
        if i < 0:
            return None if not final and len(buf) < e + UNPARSED_SCAN + len(closer) else False
        end = i + len(closer)
        eng.begin_call(fmt, s)
        eng.fail_call(Reason.MALFORMED, f"the {buf[s:e]} block is none of the formats that use it", end)
        eng.pos = end
        return True

    return handler
