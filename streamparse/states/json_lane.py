"""The fused per-chunk path of a JSON call object's body (``JsonCallState`` reading its JSON).

Inside a call's JSON most chunks are a few characters of structure (``": "``, ``", "``, a key, a name)
that the reader consumes whole without finishing the value. The general path takes each through
``Engine.feed`` -> ``_run`` -> the state's step -> the reader -> ``_stream_args`` -> ``args`` ->
``_flush_deltas`` -> ``arm`` -> ``_trim``: the same work, a dozen calls and their checks per chunk. Here it
is one function with locals: the reader's feed, the argument text and its delta, the raw markup and the
buffer's upkeep, exactly as those steps do it (``tests/test_json_lane.py`` compares the events, raw text
included, with the lane switched off under 1-character, 1-byte and random chunkings).

The lane is armed (``Engine.lane``) after a feed when the body reads its JSON with nothing held, no
``max_call_chars`` and an open call; anything but the common outcome (the value completed or failed, a
long argument piece whose markup may be shared) hands over to the general path at the point reached,
which is what the general path would have done from there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.engine import Engine
from ..core.fastpaths import CTX
from ..core.json_reader import DONE, DQ_SPECIAL, KEY_MAX, STRING
from ..core.parts import FAN
from ..events import Event, ToolCallDelta, slot_setter

if TYPE_CHECKING:
    from .json_body import JsonCallState

__all__ = ["Lane", "call_lane"]

Lane = Callable[[Engine, str], list[Event]]

_new = object.__new__
_set_index = slot_setter(ToolCallDelta, "index")
_set_arguments = slot_setter(ToolCallDelta, "arguments")
_special = DQ_SPECIAL.search
_SHARE_MIN = 32  # (json_body._SHARE_MIN and FastPaths._trim's: longer pieces may be kept once, shared)


def call_lane(state: JsonCallState) -> Lane:
    """The lane of one call object body (its reader and extractor bound once)."""
    sink = state.sink
    reader = sink.reader
    feed = reader.feed

    def lane(eng: Engine, text: str) -> list[Event]:
        call = eng.call
        assert call is not None  # (armed only with an open call: Engine._arm_lane)
        eng.chars_in += len(text)
        if reader.state == STRING and reader.quote == '"' and _special(text) is None:
            # Inside a double-quoted string (a key, the tool's name, a value lenient typing holds) with no
            # quote, backslash or control character: the reader would only append the text (JsonReader.feed).
            n = len(text)
            if reader.is_key and reader.keylen < KEY_MAX:
                reader.keyparts.append(text)
                reader.keylen += n
            raw = call.raw_parts
            if reader.hold < 0 and not reader.out and sink.args_depth >= 0 and sink.args_kind == "{":
                # Argument text, and the markup is this very text: kept once (the armed path's way).
                if raw.run < 0 or raw.run_escaped:
                    raw.share()
                call.has_args = True
                call.args.append(text)
                call.raw_len += n
                events = eng.events = []
                if call.started and not call.pending:
                    event = _new(ToolCallDelta)
                    _set_index(event, call.index)
                    _set_arguments(event, text)
                    events.append(event)
                else:
                    call.pending.append(text)
                    if call.started:
                        eng._flush_deltas(call)
            else:
                reader.out.append(text)
                raw.append(text)
                call.raw_len += n
                events = eng.events = []
            buf = eng.buf = (eng.buf + text)[-CTX:] if n < CTX else text[-CTX:]
            call.raw_mark = eng.pos = len(buf)
            return events
        eng.lane = None
        eng.events = events = []
        start = eng.pos
        buf = eng.buf = eng.buf + text
        end = eng.pos = feed(buf, start, False)
        out: str | None = None  # the argument text read, while the arguments object streams
        if sink.args_depth >= 0 and sink.args_kind == "{":
            out = reader.drain()
            if len(out) >= _SHARE_MIN:
                return eng.resume(state.after_feed(eng, start, end, out))
        if reader.state >= DONE or eng.call is not call:
            return eng.resume(state.after_feed(eng, start, end, out))
        # The argument text (CallLifecycle.args, then _flush_deltas: the delta goes out at once), and the
        # markup consumed (FastPaths._trim).
        raw = call.raw_parts
        n = end - start
        piece = buf[start:end]
        if out:
            call.has_args = True
            if out == piece:
                # Verbatim: the markup is this argument text, kept once (as the armed path keeps it).
                if raw.run < 0 or raw.run_escaped:
                    raw.share()
                loose = False
            else:
                if raw.run >= 0:
                    raw.unshare()
                # (a repair: shared only where FastPaths._trim could share it, else literal markup below)
                loose = n >= _SHARE_MIN or bool(raw.spans)
            args = call.args
            if args.tap is None:  # (Parts.append, inlined)
                args.size += len(out)
                tail = args.tail
                tail.append(out)
                if len(tail) >= FAN:
                    args._carry()
            else:
                args.append(out)
            if call.started and not call.pending:
                event = _new(ToolCallDelta)
                _set_index(event, call.index)
                _set_arguments(event, out)
                events.append(event)
            else:
                call.pending.append(out)
            if loose:
                call.loose.append(out)
                call.loose_end = args.size
                if not call.share_loose(piece):
                    raw.append(piece)
                call.loose.clear()
            elif raw.run < 0:
                raw.append(piece)
        elif n:
            raw.append(piece)
        call.raw_len += n
        if call.pending and call.started:
            eng._flush_deltas(call)
        if end > CTX:
            buf = eng.buf = buf[end - CTX :]
            end = eng.pos = CTX
        call.raw_mark = end
        held = len(buf) - end
        if held > eng.largest_hold:
            eng.note_hold(held)
        # What the body arms next (JsonCallState.arm): an argument string streaming takes the armed path.
        if reader.state == STRING and call.started:
            armed = state.arm(eng)
            if armed is not None:
                eng.hot, eng.hot_escape = armed
                if held == 1 and buf[-1] == "\\":
                    eng.hot_bs = True
                elif held == 0:
                    eng._arm_inline()
                return events
        if held == 0:
            eng.lane = lane
        return events

    return lane
