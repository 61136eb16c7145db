"""Property-based fuzzing in the normal suite: marker soup through every format never raises and keeps
invariants 1 (chunking) and 2 (argument deltas). The long campaign over the same fragments is
``benchmarks/fuzz.py`` (``make fuzz``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_deltas, check_stream, run

from streamparse import StreamParser
from streamparse.events import merge_events


def _load_campaign() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz.py"
    spec = importlib.util.spec_from_file_location("streamparse_fuzz_campaign", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


campaign = _load_campaign()
MARKERS, OTHERS = campaign.fragments()
CHOICES = campaign.format_choices()

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # the suite is reproducible; the campaign explores
)


@st.composite
def fragment(draw: st.DrawFn) -> str:
    piece = draw(
        st.one_of(
            st.sampled_from(MARKERS),
            st.sampled_from(OTHERS),
            st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6),  # any unicode
        )
    )
    if len(piece) > 1 and draw(st.integers(0, 3)) == 0:  # a cut marker or example: partial markup
        cut = draw(st.integers(1, len(piece) - 1))
        piece = piece[:cut] if draw(st.booleans()) else piece[cut:]
    return piece


SOUP = st.lists(fragment(), min_size=1, max_size=16).map("".join)


def test_the_fragments_cover_every_format_and_the_text_scope() -> None:
    from streamparse import formats
    from streamparse.states import text as textscope

    for spec in formats.CATALOG.values():
        assert spec.example in OTHERS
    assert set(textscope.CONTROL_TOKENS) <= set(MARKERS)
    assert {"<tool_call>", "[TOOL_CALLS]", "<｜tool▁calls▁begin｜>", "<|channel|>", "```"} <= set(MARKERS)


@SETTINGS
@given(text=SOUP, choice=st.sampled_from(CHOICES), with_tools=st.booleans())
def test_marker_soup_keeps_the_invariants_in_every_format(text: str, choice: str, with_tools: bool) -> None:
    # check_stream feeds whole, per character, per UTF-8 byte and in random pieces, and compares.
    check_stream(text, seeds=2, **campaign.options_for(choice, with_tools))


@SETTINGS
@given(text=SOUP, choice=st.sampled_from(CHOICES), data=st.data())
def test_any_split_gives_the_events_of_the_whole(text: str, choice: str, data: st.DataObject) -> None:
    options = campaign.options_for(choice, False)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=12)))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    whole = run([text], **options)
    split = run(chunks, **options)
    check_deltas(split)
    assert merge_events(split) == merge_events(whole)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(text=SOUP, choice=st.sampled_from(CHOICES), limit=st.sampled_from([1, 8, 40, 300]))
def test_max_call_chars_keeps_the_invariants(text: str, choice: str, limit: int) -> None:
    options = campaign.options_for(choice, False)
    result = check_stream(text, seeds=2, max_call_chars=limit, **options)
    for rejected in result.rejected:
        if rejected.reason == "too_large":
            # At most the limit, or what an opener needed to read before the call began (bounded lookahead).
            assert len(rejected.raw) <= max(limit, 300)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.binary(max_size=64), choice=st.sampled_from(CHOICES))
def test_arbitrary_bytes_never_raise(data: bytes, choice: str) -> None:
    parser = StreamParser(**campaign.options_for(choice, False))
    events = [ev for i in range(len(data)) for ev in parser.feed(data[i : i + 1])]
    events += parser.close()
    check_deltas(events)


# Inputs the campaign found (shrunk), kept as regressions: each once broke chunking invariance or raised.
FOUND = [
    ("x[e~[", ["json"]),  # `[` (json) is a prefix of `[e~[`: at the end of a chunk it must be held
    ("x[THINK]", ["xlam"]),
    ("}[THINK]", "auto"),
    ('<tool_call>{"":functoo', ["hermes"]),  # a long bare word: the error must not depend on the chunking
    ('functools[{"":OL_REQU', "auto"),
    ('<tool_call>{"a": 漢字}</tool_call>', ["hermes"]),  # str.isalpha() is true for CJK: raised
    ('<tool_call>{"name": "f", "arguments": {"a": ²}}</tool_call>', ["hermes"]),
]


def test_inputs_found_by_the_campaign_keep_the_invariants() -> None:
    for text, formats in FOUND:
        check_stream(text, formats=formats)
