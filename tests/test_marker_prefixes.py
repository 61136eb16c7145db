"""``MarkerSet.prefixes``: the set lookup a marker arriving in pieces is waited for with
(``FastPaths._still_waiting``) says what the anchored match says of the held text: still a proper prefix of a
marker (keep waiting), or a whole marker or no marker (the state decides)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from streamparse.core.scanner import marker_set

_ALPHABET = st.sampled_from("<|>/_ab:[]\n")
_MARKER_SETS = st.frozensets(st.text(_ALPHABET, min_size=1, max_size=6), min_size=1, max_size=5)


def _match_waits(ms: object, held: str) -> bool:
    """The wait's condition as the anchored match decides it."""
    found = ms.match(held, 0)  # type: ignore[attr-defined]
    return found is not None and found[2] is None and found[1] == len(held)


@settings(max_examples=400, deadline=None)
@given(_MARKER_SETS, st.lists(st.text(_ALPHABET, min_size=1, max_size=7), max_size=12))
def test_the_prefix_set_waits_exactly_when_the_anchored_match_would(markers: frozenset[str], held: list[str]) -> None:
    ms = marker_set(markers)
    assert ms.prefixes is not None  # (plain sets, extendable ones included, have one)
    for text in [*held, *(m[:k] for m in markers for k in range(1, len(m) + 1))]:
        assert (text in ms.prefixes) == _match_waits(ms, text), text


def test_sets_whose_text_a_lookup_cannot_judge_have_no_prefix_set_and_a_whole_marker_is_never_waited_for() -> None:
    assert marker_set(frozenset({"to=", "<|x|>"}), words=frozenset({"to="})).prefixes is None  # a word start
    assert marker_set(frozenset({"<x>"}), ns_suffixes=frozenset({"invoke"})).prefixes is None  # <ns:invoke
    assert marker_set(frozenset({"<|call|>", "</a>"})).prefixes == frozenset(
        {"<", "<|", "<|c", "<|ca", "<|cal", "<|call", "<|call|", "</", "</a"}
    )
    extendable = marker_set(frozenset({"[", "[TOOL_CALLS]"}))  # "[" is whole, though it may grow
    assert extendable.prefixes is not None
    assert "[" not in extendable.prefixes and "[TOOL" in extendable.prefixes
