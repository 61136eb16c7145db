"""A header read in pieces (a tag call's ``<function=NAME>`` or ``<invoke name="NAME">``, a parameter's
``<parameter name="KEY">``, generic_xml's ``<name>NAME</name>``): while only more of it can decide, the engine
keeps its chunks (``FastPaths.wait_for`` with ``lookahead.undecided``) instead of running the states again.
Feed by feed, and in the held-back bound, that gives what the states give, under 1-character, 1-byte and
random chunkings; the reference is the same parser with ``Engine.wait_for`` switched off."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import random_pieces
from wait_checks import feeds, same_with_and_without_waits

from streamparse import StreamParser
from streamparse import formats as catalog
from streamparse.core.engine import Engine
from streamparse.core.lookahead import LOOKAHEAD, undecided

WAITS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Formats whose calls begin with a header read by the handlers and states that now wait.
HEADERS = [
    "generic_xml",
    "qwen3_coder",
    "xml_invoke",
    "step3",
    "gigachat35",
    "dots",
    "seed_oss",
    "minimax",
    "kimi_k3",
    "muse",
]
EXAMPLES = {name: catalog.get(name).example for name in HEADERS}
# Text that breaks a header: its terminator early, a closer inside it, a newline, a very long name.
NOISE = st.sampled_from([">", '"', "</tool>", "</function>", "</invoke>", "\n", "<", "x" * (LOOKAHEAD + 5), ""])


@WAITS
@given(
    name=st.sampled_from(HEADERS),
    at=st.integers(0, 1000),
    noise=NOISE,
    seed=st.integers(0, 1000),
    auto=st.booleans(),
    cut=st.booleans(),
)
def test_a_header_arriving_in_pieces_is_kept_and_released_as_the_states_do(
    name: str, at: int, noise: str, seed: int, auto: bool, cut: bool
) -> None:
    example = EXAMPLES[name]
    i = at % (len(example) + 1)
    broken = example[:i] + noise + example[i:]
    text = "Sure.\n" + example + "\n" + (broken[: len(broken) // 2] if cut else broken + " done")
    same_with_and_without_waits(text, "auto" if auto else [name], seed)


def test_the_header_chunks_are_kept_without_the_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """The states run once the header is whole, not once per piece of it."""
    runs: list[bool] = []
    real = Engine._run
    monkeypatch.setattr(Engine, "_run", lambda self, final: runs.append(True) or real(self, final))
    parser = StreamParser(formats=["xml_invoke"])
    parser.feed('<function_calls>\n<invoke name="')
    runs.clear()
    for piece in ["fe", "tch", "_u", "rl"]:
        assert parser.feed(piece) == []
    assert runs == []  # kept: only more of the name could decide
    events = parser.feed('">\n<parameter name="url">https://example.org</parameter>\n</invoke>\n</function_calls>')
    events += parser.close()
    assert [e.call.name for e in events if e.type == "tool_call_end"] == ["fetch_url"]


def test_undecided_stops_at_the_terminator_and_the_bound() -> None:
    pattern = undecided("<invoke", ('">',), 10)
    assert pattern.fullmatch(' name="fetch') is None  # (the opener is part of the held text)
    assert pattern.fullmatch('<invoke name="f"') is not None  # a terminator's first character: undecided
    assert pattern.fullmatch('<invoke name="f">') is None  # the terminator: the states decide
    assert pattern.fullmatch("<invoke" + "a" * 10) is not None
    assert pattern.fullmatch("<invoke" + "a" * 11) is None  # past the look-ahead bound: decided


@pytest.mark.parametrize("name", HEADERS)
@pytest.mark.parametrize("noise", ["\n", "\nx", ">", "</", " ", "x" * (LOOKAHEAD + 5)])
def test_a_header_broken_inside_its_name_is_released_as_the_states_release_it(name: str, noise: str) -> None:
    example = EXAMPLES[name]
    marks = [i + 2 for i in (example.find(' name="'), example.find("<name>"), example.find("=")) if i >= 0]
    at = min(marks) + 2
    text = "Sure.\n" + example[:at] + noise + example[at:] + " done"
    for chunks in (list(text), random_pieces(text, 1, 6)):
        fast = feeds(chunks, [name])
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(Engine, "wait_for", lambda self, marker, start: None)
            slow = feeds(chunks, [name])
        assert fast == slow
