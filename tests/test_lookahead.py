"""The look-ahead helpers every handler decides with (streamparse/core/lookahead.py)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from streamparse.core.lookahead import LOOKAHEAD, after_ws, starts_or_prefix, undecided


def test_after_ws_gives_the_next_non_space_character() -> None:
    assert after_ws("<x>  \n {", 3, final=False) == 7


def test_after_ws_waits_while_only_whitespace_was_seen() -> None:
    assert after_ws("<x>  \n", 3, final=False) is None


def test_after_ws_declines_at_the_end_of_the_stream() -> None:
    assert after_ws("<x>  \n", 3, final=True) is False


def test_after_ws_declines_after_lookahead_whitespace_whatever_the_chunking() -> None:
    spaces = " " * LOOKAHEAD
    assert after_ws("<x>" + spaces, 3, final=False) is False
    assert after_ws("<x>" + spaces + "  {", 3, final=False) is False


def test_starts_or_prefix_tells_a_word_a_prefix_and_a_mismatch_apart() -> None:
    assert starts_or_prefix("a<tool_call>", 1, "<tool_call>") is True
    assert starts_or_prefix("a<tool_", 1, "<tool_call>") is None
    assert starts_or_prefix("a<toad", 1, "<tool_call>") is False


# ``undecided``'s stretch is written to skip characters that cannot begin a stop (lookahead._none_of): it must
# accept exactly what the plain form accepts, ``(?:(?!STOPS)[\s\S]){0,room}``, for any stops and text.
_STOP_CHARS = st.sampled_from(list("<|>ab\n-]^\\"))


@given(
    held=st.text(alphabet=_STOP_CHARS, max_size=3),
    stops=st.lists(st.text(alphabet=_STOP_CHARS, min_size=1, max_size=4), min_size=1, max_size=3),
    room=st.integers(0, 12),
    text=st.text(alphabet=_STOP_CHARS, max_size=16),
)
def test_undecided_accepts_what_the_plain_pattern_accepts(held: str, stops: list[str], room: int, text: str) -> None:
    plain = re.compile(re.escape(held) + "(?:(?!" + "|".join(re.escape(w) for w in stops) + f")[\\s\\S]){{0,{room}}}")
    fast = undecided(held, tuple(stops), room)
    for start in (0, 1):
        buf = "x" * start + held + text
        assert (fast.fullmatch(buf, start) is None) == (plain.fullmatch(buf, start) is None), (buf, start)
