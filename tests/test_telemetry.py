"""Telemetry: per-call fields, ``parser.stats`` counters, debug logging that never prints."""

from __future__ import annotations

import logging

import pytest
from invariants import check_stream

from streamparse import StreamParser, ToolCallEnd, parse
from streamparse.stats import ParserStats

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_alarm",
            "parameters": {"type": "object", "properties": {"minutes": {"type": "integer"}}},
        },
    },
]
HERMES = '<tool_call>{"name": "lookup_order", "arguments": {"order_id": "A-1"}}</tool_call>'
REPAIRED = "<tool_call>{'name': 'set_alarm', 'arguments': {'minutes': 15, 'on': True,}}</tool_call>"
QWEN = "<tool_call>\n<function=set_alarm>\n<parameter=minutes>\n15\n</parameter>\n</function>\n</tool_call>"
UNKNOWN = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'
TRUNCATED = '<tool_call>{"name": "lookup_order", "arguments": {"order_id": "A'


def test_a_clean_marked_call_reports_its_format_and_no_fallback_or_repairs() -> None:
    (call,) = check_stream("ok " + HERMES, formats=["hermes"]).tool_calls
    assert (call.format, call.fallback_used, call.repairs, call.validation) == ("hermes", False, [], "skipped")
    assert call.raw == HERMES


def test_validation_is_pass_when_tools_were_given() -> None:
    (call,) = check_stream(HERMES, formats=["hermes"], tools=TOOLS).tool_calls
    assert call.validation == "pass"


def test_repairs_are_listed_by_kind_once_each() -> None:
    (call,) = check_stream(REPAIRED, formats=["hermes"]).tool_calls
    assert call.arguments == {"minutes": 15, "on": True}
    assert sorted(call.repairs) == ["python_literal", "single_quotes", "trailing_comma"]


def test_a_fenced_payload_reports_the_fence_repair() -> None:
    text = '<tool_call>\n```json\n{"name": "set_alarm", "arguments": {"minutes": 1}}\n```\n</tool_call>'
    (call,) = check_stream(text, formats=["hermes"]).tool_calls
    assert "json_fence" in call.repairs


def test_a_call_found_by_a_fallback_format_says_so() -> None:
    text = '{"name": "lookup_order", "arguments": {"order_id": "A-1"}}'
    (call,) = check_stream(text, formats="auto").tool_calls  # bare JSON at the start of the output
    assert call.fallback_used and call.format == "json"
    (named,) = check_stream(text, formats=["json"]).tool_calls  # named explicitly: not a fallback
    assert not named.fallback_used


def test_stats_count_calls_rejections_repairs_and_formats() -> None:
    text = HERMES + REPAIRED + QWEN + UNKNOWN + TRUNCATED
    parser = StreamParser(formats=["hermes", "qwen3_coder"], tools=TOOLS)
    for i in range(0, len(text), 5):
        parser.feed(text[i : i + 5])
    parser.close()
    stats = parser.stats
    assert isinstance(stats, ParserStats)
    assert stats.calls_accepted == 3
    assert stats.rejections == {"unknown_tool": 1, "truncated": 1}
    assert stats.rejected_total == 2
    assert stats.repairs == {"single_quotes": 1, "trailing_comma": 1, "python_literal": 1}
    assert stats.formats_seen == {"hermes": 4, "qwen3_coder": 1}
    assert stats.chars_in == len(text) and stats.bytes_in == 0
    assert 0 < stats.largest_holdback < 64
    assert parser.finish_reason == "tool_calls"
    dumped = stats.model_dump()
    assert dumped["calls_accepted"] == 3 and dumped["rejections"]["truncated"] == 1


def test_stats_count_bytes_and_characters_separately() -> None:
    text = "漢字 🙂 " + HERMES
    data = text.encode("utf-8")
    parser = StreamParser(formats=["hermes"])
    for i in range(len(data)):
        parser.feed(data[i : i + 1])
    parser.close()
    assert parser.stats.bytes_in == len(data)
    assert parser.stats.chars_in == len(text)


def test_largest_holdback_is_the_longest_possible_marker_prefix_held() -> None:
    parser = StreamParser(formats=["hermes"])
    parser.feed("text <tool_ca")
    assert parser.stats.largest_holdback == len("<tool_ca")
    parser.feed("t is not a marker")
    parser.close()
    assert parser.stats.largest_holdback == len("<tool_ca")


def test_reset_zeroes_the_stats() -> None:
    parser = StreamParser(formats=["hermes"])
    parser.feed(HERMES + UNKNOWN[:20])
    parser.close()
    assert parser.stats.calls_accepted == 1
    parser.reset()
    fresh = parser.stats
    assert (fresh.calls_accepted, fresh.rejections, fresh.formats_seen, fresh.chars_in) == (0, {}, {}, 0)
    assert fresh.largest_holdback == 0


def test_decisions_are_logged_at_debug_level_and_never_printed(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    with caplog.at_level(logging.DEBUG, logger="streamparse"):
        result = parse("hi " + HERMES + UNKNOWN + TRUNCATED, formats=["hermes"], tools=TOOLS)
    assert len(result.tool_calls) == 1 and len(result.rejected) == 2
    records = [r for r in caplog.records if r.name.startswith("streamparse")]
    assert all(r.levelno == logging.DEBUG for r in records)
    messages = [r.getMessage() for r in records]
    accepted = [m for m in messages if "accepted" in m]
    rejected = [m for m in messages if "rejected" in m]
    assert len(accepted) == 1 and "format=hermes" in accepted[0] and "fallback_used=False" in accepted[0]
    assert "validation=pass" in accepted[0]
    assert any("reason=unknown_tool" in m for m in rejected)
    assert any("reason=truncated" in m for m in rejected)
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_nothing_is_printed_or_logged_above_debug_on_hostile_input(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "<tool_call>{bad" + "<|" * 50 + "`" * 40 + '<tool_call>{"name": 1}</tool_call>' + "\x00\ud7ff"
    with caplog.at_level(logging.DEBUG):
        parser = StreamParser()
        for ch in text:
            parser.feed(ch)
        parser.close()
    assert not [r for r in caplog.records if r.levelno > logging.DEBUG]
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_end_events_carry_the_same_telemetry_as_the_parse_result() -> None:
    parser = StreamParser(formats=["hermes"], tools=TOOLS)
    ends = [e for e in parser.feed(REPAIRED) + parser.close() if isinstance(e, ToolCallEnd)]
    assert ends and ends[0].call.to_dict()["repairs"] == ends[0].call.repairs
    assert ends[0].call.to_dict()["validation"] == "pass"
