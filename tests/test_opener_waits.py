"""Openers whose header arrives in pieces (mistral's ``[TOOL_CALLS]NAME[ARGS]``, pythonic's ``[NAME(``,
generic_xml's ``<tool>`` before ``<name>``, a declared section's first call): while only more of it can decide,
the engine keeps the chunks (``FastPaths.wait_for``) instead of running the handler once per piece. Feed by
feed, and in the held-back bound, that gives what the states give under 1-character, 1-byte and random
chunkings; the reference is the same parser with ``Engine.wait_for`` switched off."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import byte_pieces, random_pieces

from streamparse import StreamParser, merge_events
from streamparse import formats as catalog
from streamparse.core.engine import Engine
from streamparse.core.lookahead import LOOKAHEAD

WAITS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FORMATS = ["mistral", "pythonic", "generic_xml", "step3"]
EXAMPLES = {name: catalog.get(name).example for name in FORMATS}
# Text that breaks a header or keeps it undecided: the parts of mistral's header, blanks (and more than the
# look-ahead of them), a name longer than a name may be, brackets and closers, the opener itself again.
NOISE = st.sampled_from(
    [
        " ",
        "\n",
        "[",
        "[C",
        "[CALL_ID]",
        "[CALL_ID]" + "i" * 205,
        "[A",
        "[ARGS]",
        "[ARGS] ",
        "{",
        "}",
        "(",
        ")",
        "]",
        "<",
        "</",
        "<na",
        "<name>",
        "</name>",
        "[TOOL_CALLS]",
        "<|python_end|>",
        "x" * (LOOKAHEAD + 5),
        " " * (LOOKAHEAD + 5),
        "é",
        '"',
        "'",
        "",
    ]
)


def _feeds(chunks: list[str] | list[bytes], formats: Any) -> tuple[list[list[object]], int]:
    parser = StreamParser(formats=formats)
    out = [merge_events(parser.feed(c)) for c in chunks] + [merge_events(parser.close())]
    return out, parser.stats.largest_holdback


def _same_with_and_without_waits(text: str, formats: Any, seed: int) -> None:
    cuts: dict[str, list[str] | list[bytes]] = {
        "chars": list(text),
        "bytes": byte_pieces(text),
        "random": random_pieces(text, seed, 6),
    }
    fast = {label: _feeds(chunks, formats) for label, chunks in cuts.items()}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Engine, "wait_for", lambda self, marker, start: None)
        slow = {label: _feeds(chunks, formats) for label, chunks in cuts.items()}
    for label in fast:
        assert fast[label] == slow[label], label


@WAITS
@given(
    name=st.sampled_from(FORMATS),
    at=st.integers(0, 1000),
    noise=NOISE,
    seed=st.integers(0, 1000),
    auto=st.booleans(),
    cut=st.booleans(),
)
def test_an_opener_arriving_in_pieces_is_kept_and_released_as_the_states_do(
    name: str, at: int, noise: str, seed: int, auto: bool, cut: bool
) -> None:
    example = EXAMPLES[name]
    i = at % (len(example) + 1)
    broken = example[:i] + noise + example[i:]
    text = "Sure.\n" + example + "\n" + (broken[: len(broken) // 2] if cut else broken + " done")
    _same_with_and_without_waits(text, "auto" if auto else [name], seed)


@pytest.mark.parametrize(
    "text",
    [
        "Use [TOOL_CALLS] Sorry, no tools here. [TOOL_CALLS]!",  # prose after the token: text
        "[TOOL_CALLS]lookup_order x",
        "[TOOL_CALLS]lookup_order [ARGS]",
        "[TOOL_CALLS]lookup_order[CALL_ID]a1B2[ARGS]   " + "\n" * 300 + "{}",
        "[TOOL_CALLS]lookup_order[CALL_ID][ARGS]{}",
        "[TOOL_CALLS]" + "n" * 199 + "[ARGS]{}",
        "[TOOL_CALLS]" + "n" * 200 + "[ARGS]{}",
        "[TOOL_CALLS]lookup_order[CALL_ID]" + "i" * 200 + "[ARGS]{}",
        "[TOOL_CALLS]lookup_order[CALL_ID]" + "i" * 201 + "[ARGS]{}",
        "[TOOL_CALLS]" + " " * 255,
        "[TOOL_CALLS]" + " " * 256 + "x[ARGS]{}",
        "[TOOL_CALLS]lookup_order[ARGS]",
        "[TOOL_CALLS]lookup_order[CALL_ID]a1",
    ],
)
def test_mistral_headers_at_their_bounds_and_cut(text: str) -> None:
    for cut in (text, text + ' {"order_id": "A-1"} done'):
        for seed in (1, 2):
            _same_with_and_without_waits(cut, ["mistral"], seed)


def test_the_opener_chunks_are_kept_without_the_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """The states run once the header is decided, not once per piece of it."""
    runs: list[bool] = []
    real = Engine._run
    monkeypatch.setattr(Engine, "_run", lambda self, final: runs.append(True) or real(self, final))
    parser = StreamParser(formats=["mistral"])
    parser.feed("Sure.[TOOL_CALLS]lo")
    runs.clear()
    for piece in ["ok", "up_or", "der", "[CALL", "_ID]a1", "B2[A", "RGS]", " "]:
        assert parser.feed(piece) == []
    assert runs == []  # kept: only more of the header could decide
    events = parser.feed('{"order_id": "A-1"}') + parser.close()
    assert [e.call.name for e in events if e.type == "tool_call_end"] == ["lookup_order"]
