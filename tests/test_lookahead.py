"""The look-ahead helpers every handler decides with (streamparse/core/lookahead.py)."""

from __future__ import annotations

from streamparse.core.lookahead import LOOKAHEAD, after_ws, starts_or_prefix


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
