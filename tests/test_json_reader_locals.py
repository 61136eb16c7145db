"""``JsonReader.feed`` reads with locals, matches whitespace only where there is some and tells its sink
inline (issue 19): it must read exactly as it did (``reference_json_reader.ReferenceReader``), whatever the
input and the chunking: the same positions returned feed by feed, the same output drained, the same sink
callbacks in the same order, the same state, repairs and error at the end."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_json_reader import ReferenceReader

from streamparse.core.json_reader import JsonReader

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SCALARS = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab \"\\\n\t'é🚀{}[],:")), max_size=8),
    st.integers(-300, 300),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.none(),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
# Edits that take valid JSON to what models write: the repairs, and text that is no JSON at all.
EDITS = st.lists(
    st.tuples(
        st.integers(0, 10_000),
        st.sampled_from(["'", ",", " ", "\n", "\t", "True", "None", "x", "]", "}", "\\", '"', "-", "1e", ":"]),
    ),
    max_size=3,
)


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def value_start(self, depth: int, kind: str, pos: int) -> None:
        self.calls.append(("start", depth, kind, pos))

    def value_end(self, depth: int, pos: int) -> None:
        self.calls.append(("end", depth, pos))

    def key(self, depth: int, key: str) -> None:
        self.calls.append(("key", depth, key))


def _read(cls: type[JsonReader], text: str, cuts: list[int], watch: int) -> tuple[Any, ...]:
    sink = Recorder()
    reader = cls(sink, watch)
    buf, pos, steps = "", 0, []
    bounds = sorted({c % (len(text) + 1) for c in cuts} | {len(text)})
    start = 0
    for i, end in enumerate(bounds):
        buf = buf[pos:] + text[start:end]
        start = end
        pos = reader.feed(buf, 0, i == len(bounds) - 1)
        steps.append((pos, reader.drain(), reader.state))
    return steps, sink.calls, reader.state, reader.repairs, reader.error, reader.stack, reader.pending


@SETTINGS
@given(
    value=VALUES,
    edits=EDITS,
    compact=st.booleans(),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
    watch=st.integers(-1, 3),
)
def test_the_reader_reads_as_it_did(
    value: Any, edits: list[tuple[int, str]], compact: bool, cuts: list[int], watch: int
) -> None:
    text = json.dumps(value, separators=(",", ":") if compact else None, ensure_ascii=False)
    for at, piece in edits:
        at %= len(text) + 1
        text = text[:at] + piece + text[at:]
    assert _read(JsonReader, text, cuts, watch) == _read(ReferenceReader, text, cuts, watch)


def test_every_character_a_chunk() -> None:
    text = '{"name": \'f\', "arguments": {"a": [1, 2.5e3, True, None,], "b": "x\\n\\"y\\"\n"}, }'
    cuts = list(range(len(text)))
    for watch in (-1, 0, 1, 2):
        assert _read(JsonReader, text, cuts, watch) == _read(ReferenceReader, text, cuts, watch)
