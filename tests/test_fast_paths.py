"""The engine's fast paths (core/fastpaths.py, issue 19) give exactly what the states give: the same events,
the same earliest release, the same raw markup, under 1-character, 1-byte and random chunkings.

The reference is the same parser with every fast path switched off (``slow_paths``)."""

from __future__ import annotations

import dataclasses
import json
import tracemalloc
from collections.abc import Iterator

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import byte_pieces, check_stream, random_pieces, run
from wait_checks import same_with_and_without_waits

from streamparse import StreamParser, merge_events
from streamparse import formats as catalog
from streamparse.core.constructors import (
    reasoning_delta,
    text_delta,
    tool_call,
    tool_call_delta,
    tool_call_end,
    tool_call_start,
)
from streamparse.core.engine import Engine, ScanState
from streamparse.events import ReasoningDelta, TextDelta, ToolCall, ToolCallDelta, ToolCallEnd, ToolCallStart
from streamparse.tools import ToolSet

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture
def slow_paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every chunk through the states: no visible-text path, no armed path, no held-prefix path."""

    def no_text(self: Engine) -> None:
        self.scan_text = None

    monkeypatch.setattr(Engine, "_arm_text", no_text)
    monkeypatch.setattr(Engine, "_arm_inline", lambda self: None)
    monkeypatch.setattr(Engine, "_hot", lambda self, hot, text, limit: None)
    monkeypatch.setattr(Engine, "wait_for", lambda self, marker, start: None)
    monkeypatch.setattr(ScanState, "fast", lambda self, eng, text: None)
    yield


def chunkings(text: str) -> dict[str, list[str] | list[bytes]]:
    out: dict[str, list[str] | list[bytes]] = {"chars": list(text), "bytes": byte_pieces(text), "whole": [text]}
    out.update({f"random{seed}": random_pieces(text, seed) for seed in range(6)})
    return out


def all_chunkings(text: str, **options: object) -> dict[str, list[object]]:
    return {label: merge_events(run(chunks, **options)) for label, chunks in chunkings(text).items()}  # type: ignore[arg-type]


def hermes_call(content: str) -> str:
    call = {"name": "write_file", "arguments": {"path": "a.py", "content": content}}
    return "Writing it.\n<tool_call>\n" + json.dumps(call, ensure_ascii=False) + "\n</tool_call>\nDone."


# Text for argument strings: what JSON escapes (quotes, backslashes, control characters), astral characters
# (a surrogate pair when escaped with ensure_ascii) and markup look-alikes.
ARG_TEXT = st.text(alphabet=st.sampled_from(list('ab "\\\n\t/é東🚀<>{}[]u')), max_size=40)


@FAST
@given(content=ARG_TEXT, ascii_escapes=st.booleans())
def test_chunks_ending_inside_an_escape_stream_like_the_states(content: str, ascii_escapes: bool) -> None:
    call = {"name": "write_file", "arguments": {"path": "a.py", "content": content}}
    text = "<tool_call>\n" + json.dumps(call, ensure_ascii=ascii_escapes) + "\n</tool_call>"
    results = all_chunkings(text, formats=["hermes"])
    whole = results.pop("whole")
    for label, events in results.items():
        assert events == whole, label
    ends = [e for e in whole if isinstance(e, ToolCallEnd)]
    assert [e.call.arguments["content"] for e in ends] == [content]
    assert ends[0].call.raw == text  # the markup, kept once with the arguments, comes back exact


@FAST
@given(content=ARG_TEXT)
def test_fast_paths_give_the_events_of_the_states(content: str) -> None:
    text = hermes_call(content)
    fast = {label: run(chunks, formats=["hermes"]) for label, chunks in chunkings(text).items()}  # type: ignore[arg-type]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Engine, "_arm_text", lambda self: setattr(self, "scan_text", None))
        mp.setattr(Engine, "_arm_inline", lambda self: None)
        mp.setattr(Engine, "_hot", lambda self, hot, text, limit: None)
        mp.setattr(Engine, "wait_for", lambda self, marker, start: None)
        mp.setattr(ScanState, "fast", lambda self, eng, text: None)
        slow = {label: run(chunks, formats=["hermes"]) for label, chunks in chunkings(text).items()}  # type: ignore[arg-type]
    for label in fast:
        assert merge_events(fast[label]) == merge_events(slow[label]), label


def test_a_split_escape_holds_only_its_backslash() -> None:
    parser = StreamParser(formats=["hermes"])
    parser.feed('<tool_call>{"name": "f", "arguments": {"q": "ab')
    assert [e.arguments for e in parser.feed("c\\") if isinstance(e, ToolCallDelta)] == ["c"]
    assert parser.stats.largest_holdback == 1
    assert [e.arguments for e in parser.feed("\\") if isinstance(e, ToolCallDelta)] == ["\\\\"]
    assert [e.arguments for e in parser.feed("x\\") if isinstance(e, ToolCallDelta)] == ["x"]
    assert [e.arguments for e in parser.feed('"y\\') if isinstance(e, ToolCallDelta)] == ['\\"y']
    last = parser.feed('n"}}</tool_call>')
    assert [e.arguments for e in last if isinstance(e, ToolCallDelta)] == ['\\n"}']
    assert [e.call.arguments for e in last if isinstance(e, ToolCallEnd)] == [{"q": 'abc\\x"y\n'}]


def test_a_chunk_of_complete_escapes_streams_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = StreamParser(formats=["hermes"])
    parser.feed('<tool_call>{"name": "f", "arguments": {"q": "ab')
    parser.feed("cd")  # (armed)

    def general(*args: object) -> None:
        raise AssertionError("the chunk left the inlined path")

    monkeypatch.setattr(Engine, "_hot", general)
    monkeypatch.setattr(Engine, "_run", general)
    for chunk in ('\\"x', "\\\\", "n\\t", "\\u00e9z"):
        assert [(e.index, e.arguments) for e in parser.feed(chunk)] == [(0, chunk)]
    monkeypatch.undo()
    events = parser.feed('"}}</tool_call>') + parser.close()
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.call.arguments for e in ends] == [{"q": 'abcd"x' + "\\" + "n\té" + "z"}]


@pytest.mark.parametrize("closer", ["\n</tool_call>\nok", "\n</tool_callx>\nok", "\n</tool_call"])
def test_a_closer_arriving_in_pieces_is_only_kept_while_it_is_undecided(
    closer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    head = '<tool_call>{"name": "f", "arguments": {"q": 1}}'
    reference = merge_events(run([head, closer], formats=["hermes"]))
    parser = StreamParser(formats=["hermes"])
    events = parser.feed(head) + parser.feed(closer[:3])  # "\n</": the state waits for the rest of the closer
    real_run = Engine._run
    ran: list[bool] = []
    monkeypatch.setattr(Engine, "_run", lambda self, final: ran.append(True) or real_run(self, final))
    for i in range(3, len(closer)):
        ran.clear()
        events += parser.feed(closer[i])
        undecided = "\n</tool_call>".startswith(closer[: i + 1]) and i + 1 < len("\n</tool_call>")
        assert not (undecided and ran), closer[: i + 1]  # kept by the engine, the states not stepped
    events += parser.close()
    assert merge_events(events) == reference
    assert parser.stats.largest_holdback >= len("</tool_call")


@pytest.mark.parametrize("split", [True, False])
def test_a_split_escape_at_the_end_of_the_stream_is_an_unterminated_escape(split: bool) -> None:
    head = '<tool_call>{"name": "f", "arguments": {"q": "ab'
    parser = StreamParser(formats=["hermes"])
    events = parser.feed(head) + parser.feed("\\") if split else parser.feed(head + "\\")
    events += parser.close()
    rejected = [(e.reason, e.detail) for e in events if e.type == "tool_call_rejected"]
    assert rejected == [("malformed", "invalid JSON: unterminated escape")]


def test_a_split_surrogate_pair_escape_streams_whole() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"q": "\\ud83d\\ude80 go"}}</tool_call>'
    result = check_stream(text, formats=["hermes"])
    assert result.tool_calls[0].arguments == {"q": "🚀 go"}
    assert result.tool_calls[0].raw == text


PROSE = st.text(alphabet=st.sampled_from(list("ato fuTOL_CAin=s.[:<>x \n")), max_size=60)


@FAST
@given(text=PROSE)
def test_marker_prefixes_at_chunk_ends_stream_like_the_states(text: str) -> None:
    results = all_chunkings(text, formats="auto")
    whole = results.pop("whole")
    for label, events in results.items():
        assert events == whole, label


def test_a_marker_prefix_at_a_chunk_end_is_held_and_released_by_the_next_chunk() -> None:
    parser = StreamParser(formats="auto")
    # Before any visible text ``to=functions.`` (harmony's first message) counts: its prefix is held (the
    # whitespace that starts the output is no text: exact output).
    assert [e.text for e in parser.feed(" to") if isinstance(e, TextDelta)] == []
    assert parser.stats.largest_holdback == 2
    assert [e.text for e in parser.feed(" the") if isinstance(e, TextDelta)] == ["to the"]
    assert [e.text for e in parser.feed(" <tool") if isinstance(e, TextDelta)] == []
    assert [e.text for e in parser.feed("box> is") if isinstance(e, TextDelta)] == [" <toolbox> is"]


def test_prose_ending_in_the_start_of_an_anchored_marker_is_not_held() -> None:
    # Markers of ordinary characters count only where their templates write them: functools[, TOOL_CALL and
    # Action: at a word start, to=functions. before any visible text. The chunk is judged with the text
    # before it, however the stream was cut.
    parser = StreamParser(formats="auto")
    for piece in ("We went", " to", "\nt", "he shop", " of", "f", " IT", "OOL", "_", " XAction"):
        assert [e.text for e in parser.feed(piece) if isinstance(e, TextDelta)] == [piece], piece
    assert parser.stats.largest_holdback == 0
    assert [e.text for e in parser.feed(" f") if isinstance(e, TextDelta)] == []  # a word start: held
    assert [e.text for e in parser.feed("ound") if isinstance(e, TextDelta)] == [" found"]


TAG_VALUE = st.text(alphabet=st.sampled_from(list('ab "\\\n/é<>')), min_size=1, max_size=30)


@FAST
@given(value=TAG_VALUE)
def test_raw_markup_of_a_tag_call_with_escaped_values_is_the_input(value: str) -> None:
    value = value.strip() or "v"
    text = f"Text.\n<tool_call>\n<function=f>\n<parameter=q>\n{value}\n</parameter>\n</function>\n</tool_call>"
    raws = set()
    for chunks in chunkings(text).values():
        ends = [e for e in run(chunks, formats=["qwen3_coder"]) if isinstance(e, ToolCallEnd)]  # type: ignore[arg-type]
        assert [e.call.arguments for e in ends] == [{"q": value}]
        raws.add(ends[0].call.raw)
    assert len(raws) == 1 and raws.pop() in text  # one raw text, taken from the input as it was


def test_events_built_by_the_private_constructors_equal_and_hash_like_the_classes() -> None:
    pairs = [
        (text_delta("hi"), TextDelta("hi")),
        (reasoning_delta("hm"), ReasoningDelta("hm")),
        (tool_call_delta(2, '{"a"'), ToolCallDelta(2, '{"a"')),
        (tool_call_start(1, "call_1", "f"), ToolCallStart(1, "call_1", "f")),
    ]
    call = ("call_1", "f", {"a": 1}, '{"a": 1}', "hermes", "<tool_call>", False, ["trailing_comma"], "pass", None)
    fast_call, built_call = tool_call(*call), ToolCall(*call)  # type: ignore[arg-type]
    pairs += [(fast_call, built_call), (tool_call_end(1, fast_call), ToolCallEnd(1, built_call))]
    for fast, built in pairs:
        assert fast == built and type(fast) is type(built) and repr(fast) == repr(built)
        if isinstance(fast, ToolCall | ToolCallEnd):  # (a call holds a dict: unhashable, built either way)
            with pytest.raises(TypeError):
                hash(fast)
        else:
            assert hash(fast) == hash(built)
        field = dataclasses.fields(fast)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(fast, field, None)


SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^[A-Z]-[0-9]{2}$"},
        "n": {"type": "integer", "minimum": 1},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
        "mode": {"enum": ["a", "b"]},
    },
    "required": ["id"],
    "additionalProperties": False,
}
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, width=16),
    st.sampled_from(["A-12", "a", "b"]),
)
INSTANCES = st.dictionaries(
    st.sampled_from(["id", "n", "tags", "mode", "x"]), st.one_of(VALUES, st.lists(VALUES, max_size=3)), max_size=4
)


@FAST
@given(arguments=INSTANCES)
def test_the_compiled_precheck_gives_jsonschema_verdicts_and_messages(arguments: dict[str, object]) -> None:
    tools = ToolSet([{"name": "f", "parameters": SCHEMA}])
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(SCHEMA).iter_errors(arguments))
    detail = tools.validate("f", arguments)
    if error is None:
        assert detail is None
    else:
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        assert detail == f"{path}: {error.message}"


def test_a_schema_the_compiled_validator_cannot_take_is_judged_by_jsonschema() -> None:
    from streamparse.schema_fast import compiled_for

    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}}}
    tools = ToolSet([{"name": "f", "parameters": schema}])
    assert compiled_for(tools._validators["f"]) is None  # type: ignore[attr-defined]
    assert tools.validate("f", {}) is None  # nothing to resolve: valid, without any fetch
    assert tools.validate("f", {"a": 1}) is not None  # the unresolvable reference fails closed


@pytest.mark.parametrize("chunk", [1, 64])
def test_a_buffered_json_argument_is_kept_once(chunk: int) -> None:
    """A call's markup refers to its argument text instead of copying it: about 1 byte per character."""
    body = json.dumps('lorem "ipsum" dolor\\sit amet\n' * 2000)[1:-1]
    parser = StreamParser(formats=["hermes"])
    parser.feed('<tool_call>\n{"name": "write_file", "arguments": {"content": "')
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(0, len(body), chunk):
            parser.feed(body[i : i + chunk])
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert held <= 1.1 * len(body), held / len(body)
    ends = [e for e in parser.feed('"}}\n</tool_call>') + parser.close() if isinstance(e, ToolCallEnd)]
    assert ends[0].call.arguments_json == '{"content": "' + body + '"}'
    assert ends[0].call.raw.endswith(body + '"}}\n</tool_call>')


# Prose around the markers that count only at a word start (functools[, TOOL_CALL, Action:) or before the
# first visible text (to=functions.), glued to words or not, cut anywhere.
WORDY = st.lists(
    st.sampled_from(["functools[", "functools", "TOOL_CALL", "Action:", "to=functions.", "to=", "x", "of", "_"])
    | st.sampled_from([" ", "\n", "f", "t", "[", ":", '{"name": "f", "arguments": {}}', "]", "`"]),
    max_size=16,
).map("".join)


def _per_feed(chunks: list[str] | list[bytes]) -> list[list[object]]:
    parser = StreamParser(formats="auto")
    return [merge_events(parser.feed(c)) for c in chunks] + [merge_events(parser.close())]


@FAST
@given(text=WORDY)
def test_word_and_start_markers_are_released_when_the_states_release_them(text: str) -> None:
    # Feed by feed (the earliest release), the fast paths give what the states give.
    cuts = chunkings(text)
    fast = {label: _per_feed(chunks) for label, chunks in cuts.items()}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Engine, "_arm_text", lambda self: setattr(self, "scan_text", None))
        mp.setattr(Engine, "_arm_inline", lambda self: None)
        mp.setattr(Engine, "_hot", lambda self, hot, text, limit: None)
        mp.setattr(Engine, "wait_for", lambda self, marker, start: None)
        mp.setattr(ScanState, "fast", lambda self, eng, text: None)
        slow = {label: _per_feed(chunks) for label, chunks in cuts.items()}
    for label in fast:
        assert fast[label] == slow[label], label


EXAMPLES = {name: catalog.get(name).example for name in catalog.names()}


@FAST
@given(
    name=st.sampled_from(sorted(EXAMPLES)),
    cut=st.integers(0, 1000),
    drop=st.integers(0, 5),
    seed=st.integers(0, 1000),
    auto=st.booleans(),
)
def test_markup_arriving_in_pieces_is_kept_and_released_as_the_states_do(
    name: str, cut: int, drop: int, seed: int, auto: bool
) -> None:
    # Every format's own call, whole and then with a few characters left out at a random place (a marker or a
    # header broken off inside, a prefix that stops being one): feed by feed, and in the held-back bound, the
    # engine waiting for a marker's prefix (FastPaths.wait_for) gives what the states give.
    example = EXAMPLES[name]
    i = cut % (len(example) + 1)
    text = "Sure.\n" + example + "\n" + example[:i] + example[i + drop :] + " done"
    same_with_and_without_waits(text, "auto" if auto else [name], seed)
