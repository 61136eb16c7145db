"""The engine's armed path: chunks of an argument string that is streaming, taken without the states.

After a slow step with an open call the state may arm a pattern (``State.arm``). A chunk that fully
matches it is plain content of the string: it becomes argument text at once, verbatim or JSON-escaped,
and the call's markup refers to that text instead of keeping a copy (``RawText.share``). A chunk that
matches but for a final lone backslash (a JSON escape split across chunks: a few percent of tokens in code)
stays here too: the text before it streams, the backslash alone is held at ``buf[pos]`` while it is
undecided and goes with the next chunk. Mixed into :class:`~streamparse.core.engine.Engine`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json.encoder import encode_basestring  # the C string escaper json.dumps uses

from ..events import Event, tool_call_delta
from .calls import Candidate
from .json_reader import DQ_RUN, DQ_SPECIAL
from .json_reader import NEEDS_ESCAPE as _NEEDS_ESCAPE


class ArmedPath:
    """Mixin: the armed path's state and its slow half (the commonest chunk is inlined in ``feed``)."""

    buf: str
    pos: int
    call: Candidate | None
    limit: int | None
    largest_hold: int
    hot: re.Pattern[str] | None
    hot_escape: bool
    hot_bs: bool
    hot_special: Callable[[str], object] | None

    def note_hold(self, n: int) -> None:
        raise NotImplementedError

    def _hot(self, hot: re.Pattern[str], text: str, limit: int | None) -> list[Event] | None:
        """The armed path: an open call streams an argument string and ``text`` is plain content of it
        (a full match of ``hot``), or is, but for a final lone backslash: that escape is undecided, so the
        backslash alone is held (at ``buf[pos]``) and goes with the next chunk."""
        call = self.call
        held = self.hot_bs
        if call is None or (not held and self.pos != len(self.buf)):
            return None
        if held:
            text = "\\" + text
        keep = False
        if hot.fullmatch(text) is None:
            if hot is not DQ_RUN or text[-1] != "\\" or hot.fullmatch(text, 0, len(text) - 1) is None:
                return None
            keep = True
        n = len(text) - keep
        if limit is not None and call.raw_len + n > limit:
            return None
        args = text[:-1] if keep else text
        raw = call.raw_parts  # the markup is this argument text (verbatim or escaped): kept once
        if not self.hot_escape:
            if raw.run < 0 or raw.run_escaped:
                raw.share()
        elif _NEEDS_ESCAPE.search(args) is not None:
            args = encode_basestring(args)[1:-1]
            raw.share(True)
        elif raw.run < 0:
            raw.share()  # text that needs no escaping is its own escape: either kind of stretch takes it
        call.args.append(args)
        call.raw_len += n
        # The chunk is consumed; the buffer (context for line-start and word-boundary checks) is left as
        # is: nothing looks behind into a string value.
        if keep:
            if not held:
                self.buf += "\\"
                if self.largest_hold < 1:
                    self.note_hold(1)
            self.hot_bs = True
            self.hot_special = None
        elif held:
            self.buf = self.buf[: self.pos]
            self.hot_bs = False
            self._arm_inline()
        if not args:
            return []
        return [tool_call_delta(call.index, args)]  # type: ignore[arg-type]

    def _arm_inline(self) -> None:
        """Open the inlined armed path in ``feed`` when the armed chunk needs nothing but appending."""
        hot = self.hot
        call = self.call
        if hot is not DQ_RUN or call is None or self.hot_bs or self.hot_escape or self.limit is not None:
            return
        if self.pos == len(self.buf) and call.raw_mark == self.pos:
            call.raw_parts.share()
            self.hot_special = DQ_SPECIAL.search
