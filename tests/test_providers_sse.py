"""SSE framing: the push decoder gives the same events however the byte stream is split."""

from __future__ import annotations

import pytest

from streamparse.providers.sse import SSEDecoder, SSEEvent, encode_sse

# Every framing feature in one stream: BOM, LF / CRLF / CR line ends, comments, multi-line data, a field
# without a colon, no space after the colon, an event with no data (not dispatched), id / retry, and a
# multi-byte UTF-8 character.
STREAM = (
    "\ufeff: keep-alive comment\n"
    "data: one\n\n"
    "event: delta\r\ndata: two\r\ndata:  lines\r\nid: 7\r\n\r\n"
    "data: cr\rretry: 1500\r\r"
    "data\n\n"
    "event: lonely\n\n"
    "id: bad\0id\ndata: caf\u00e9 \u2603\nretry: 5x\n\n"
).encode("utf-8")

EXPECTED = [
    SSEEvent("message", "one", "", None),
    SSEEvent("delta", "two\n lines", "7", None),
    SSEEvent("message", "cr", "7", 1500),
    SSEEvent("message", "", "7", None),
    SSEEvent("message", "caf\u00e9 \u2603", "7", None),
]


def decode(pieces: list[bytes] | list[str]) -> list[SSEEvent]:
    dec = SSEDecoder()
    out: list[SSEEvent] = []
    for p in pieces:
        out.extend(dec.feed(p))
    out.extend(dec.close())
    return out


def test_whole_stream_gives_the_spec_events() -> None:
    assert decode([STREAM]) == EXPECTED


def test_every_single_split_point_gives_the_same_events() -> None:
    for i in range(len(STREAM) + 1):
        assert decode([STREAM[:i], STREAM[i:]]) == EXPECTED, i


def test_one_byte_pieces_give_the_same_events() -> None:
    assert decode([STREAM[i : i + 1] for i in range(len(STREAM))]) == EXPECTED


def test_str_pieces_one_character_at_a_time() -> None:
    text = STREAM.decode("utf-8")
    assert decode(list(text)) == EXPECTED


def test_crlf_split_across_pieces_dispatches_without_waiting_or_doubling() -> None:
    dec = SSEDecoder()
    assert dec.feed("data: a\r\n\r") == [SSEEvent("message", "a")]  # the CR already ends the blank line
    # The LF that completes the CRLF must not count as a second blank line / a new line.
    assert dec.feed("\ndata: b\r") == []
    assert dec.feed("\n\r\n") == [SSEEvent("message", "b")]


def test_bom_is_stripped_only_at_stream_start() -> None:
    assert decode(["\ufeffdata: x\n\n", "data: \ufeffy\n\n"]) == [
        SSEEvent("message", "x"),
        SSEEvent("message", "\ufeffy"),
    ]


def test_incomplete_event_at_close_is_discarded_unless_asked() -> None:
    dec = SSEDecoder()
    assert dec.feed("data: tail") == []
    assert dec.close() == []
    dec = SSEDecoder()
    dec.feed("data: tail")
    assert dec.close(dispatch_incomplete=True) == [SSEEvent("message", "tail")]


def test_unknown_fields_are_ignored() -> None:
    assert decode(["foo: bar\ndata: x\nbaz\n\n"]) == [SSEEvent("message", "x")]


@pytest.mark.parametrize("data", ["plain", "two\nlines", "", '{"a": "b"}'])
def test_encode_sse_round_trips(data: str) -> None:
    assert decode([encode_sse(data, event="e", id="1")]) == [SSEEvent("e", data, "1")]
