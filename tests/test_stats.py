"""ParserStats: the counters behind ``parser.stats``."""

from __future__ import annotations

import json

from streamparse.rejections import Reason
from streamparse.stats import ParserStats


def test_new_stats_are_all_zero() -> None:
    stats = ParserStats()
    assert stats.model_dump() == {
        "calls_accepted": 0,
        "rejections": {},
        "repairs": {},
        "formats_seen": {},
        "fallback_calls": 0,
        "largest_holdback": 0,
        "bytes_in": 0,
        "chars_in": 0,
    }


def test_record_call_counts_calls_formats_repairs_and_fallbacks() -> None:
    stats = ParserStats()
    stats.record_call("hermes", [], False)
    stats.record_call("hermes", ["trailing_comma", "unquoted_key"], False)
    stats.record_call("json", iter(["trailing_comma"]), True)
    assert stats.calls_accepted == 3
    assert stats.formats_seen == {"hermes": 2, "json": 1}
    assert stats.repairs == {"trailing_comma": 2, "unquoted_key": 1}
    assert stats.fallback_calls == 1
    assert stats.rejections == {}


def test_record_rejection_counts_by_reason_and_format() -> None:
    stats = ParserStats()
    stats.record_rejection("truncated", "hermes")
    stats.record_rejection(Reason.TRUNCATED, None)
    stats.record_rejection(Reason.SCHEMA_VIOLATION, "qwen3_coder")
    assert stats.rejections == {"truncated": 2, "schema_violation": 1}
    assert all(type(k) is str for k in stats.rejections)  # Reason members collapse to their values
    assert stats.formats_seen == {"hermes": 1, "qwen3_coder": 1}
    assert stats.calls_accepted == 0
    assert stats.rejected_total == 3


def test_formats_seen_counts_accepted_and_rejected_calls_together() -> None:
    stats = ParserStats()
    stats.record_call("hermes", (), False)
    stats.record_rejection("malformed", "hermes")
    assert stats.formats_seen == {"hermes": 2}


def test_note_holdback_keeps_the_maximum() -> None:
    stats = ParserStats()
    for n in [3, 11, 0, 7]:
        stats.note_holdback(n)
    assert stats.largest_holdback == 11


def test_byte_and_char_counters_are_plain_int_attributes() -> None:
    stats = ParserStats()
    stats.bytes_in += 5
    stats.chars_in += 4
    assert (stats.bytes_in, stats.chars_in) == (5, 4)


def test_reset_zeroes_everything_without_sharing_old_dicts() -> None:
    stats = ParserStats()
    stats.record_call("hermes", ["x"], True)
    stats.record_rejection("truncated", "hermes")
    stats.note_holdback(9)
    stats.bytes_in, stats.chars_in = 10, 8
    before = stats.rejections
    stats.reset()
    assert stats == ParserStats()
    stats.record_rejection("truncated", None)
    assert before == {"truncated": 1}  # a snapshot taken before reset() is not changed by later counting


def test_separate_instances_do_not_share_counters() -> None:
    a, b = ParserStats(), ParserStats()
    a.record_call("hermes", ["x"], False)
    assert b.formats_seen == {} and b.repairs == {}


def test_stats_serialise_to_json() -> None:
    stats = ParserStats()
    stats.record_call("hermes", ["x"], False)
    stats.record_rejection(Reason.TOO_LARGE, None)
    data = json.loads(stats.model_dump_json())
    assert data["rejections"] == {"too_large": 1}
    assert data["formats_seen"] == {"hermes": 1}
    assert ParserStats.model_validate(data) == stats
