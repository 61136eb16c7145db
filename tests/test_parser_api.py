"""The public surface of StreamParser: presets, discoverability, finish reason, stats, reset."""

from __future__ import annotations

import json
import logging

import pytest

import streamparse
from streamparse import StreamParser, formats, parse
from streamparse.parser import describe
from streamparse.presets import RULES


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.preset.family)
def test_every_preset_builds_a_parser(rule) -> None:  # type: ignore[no-untyped-def]
    preset = rule.preset
    names = formats.resolve(preset.formats)
    assert names
    parser = StreamParser(formats=preset.formats, start_in_reasoning=preset.start_in_reasoning)
    parser.feed("ok")
    parser.close()


def test_for_model_uses_the_preset_and_explicit_options_win() -> None:
    parser = StreamParser.for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct-GGUF")
    assert "qwen3_coder" in parser.formats
    text = "<tool_call>\n<function=ls>\n<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>"
    events = parser.feed(text) + parser.close()
    assert [e.call.name for e in events if isinstance(e, streamparse.ToolCallEnd)] == ["ls"]
    forced = StreamParser.for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct", formats=["hermes"])
    assert forced.formats == ("hermes",)


def test_for_model_primes_reasoning_for_primed_families() -> None:
    parser = StreamParser.for_model("deepseek-ai/DeepSeek-R1-0528")
    events = parser.feed("weigh options\n</think>\n\nAnswer.") + parser.close()
    result = streamparse.ParseResult.from_events(events)
    assert result.reasoning == "weigh options" and result.text == "Answer."


def test_unknown_model_falls_back_to_auto_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="streamparse"):
        parser = StreamParser.for_model("acme/brand-new-model-7b")
    assert parser.formats == formats.resolve("auto")
    assert any("acme/brand-new-model-7b" in r.getMessage() for r in caplog.records)


def test_describe_gives_models_delimiters_and_a_parsing_example_for_every_format() -> None:
    for name in formats.names():
        info = describe(name)
        assert info["name"] == name and info["models"] and info["delimiters"] and info["example"]
        assert info["parses_to"], f"{name}'s example does not parse to a call"


def test_finish_reason_reflects_accepted_calls_only() -> None:
    assert parse("just text").finish_reason == "stop"
    bad = parse('<tool_call>{"name": "f", "arguments": {x}}</tool_call>', formats=["hermes"])
    assert bad.finish_reason == "stop" and bad.rejected
    good = parse('<tool_call>{"name": "f", "arguments": {}}</tool_call>', formats=["hermes"])
    assert good.finish_reason == "tool_calls"


def test_stats_count_calls_rejections_repairs_formats_and_input() -> None:
    parser = StreamParser(formats=["hermes"])
    parser.feed(b"<tool_call>{'name': 'f', 'arguments': {}}</tool_call>")
    parser.feed('<tool_call>{"name": "g", "arguments": {bad}}</tool_call>')
    parser.close()
    stats = parser.stats
    assert stats.calls_accepted == 1
    assert stats.rejections == {"malformed": 1}
    assert stats.repairs == {"single_quotes": 1}
    assert stats.formats_seen == {"hermes": 2}
    assert stats.bytes_in > 0 and stats.chars_in > stats.bytes_in
    json.loads(stats.model_dump_json())


def test_reset_starts_a_new_stream_with_the_same_configuration() -> None:
    parser = StreamParser(formats=["hermes"])
    first = parser.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>') + parser.close()
    parser.reset()
    second = parser.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>') + parser.close()
    assert first == second


def test_options_are_validated_with_clear_errors() -> None:
    with pytest.raises(ValueError, match="calls_in_reasoning"):
        StreamParser(calls_in_reasoning="run")
    with pytest.raises(ValueError, match="max_call_chars"):
        StreamParser(max_call_chars=0)
    with pytest.raises(ValueError, match="unknown format"):
        StreamParser(formats=["qwen3coder"])


def test_parse_result_carries_the_envelope_metadata() -> None:
    text = '{"toolCalls": [{"name": "f", "arguments": {}}], "content": "Working.", "needsMoreWork": true}'
    result = parse(text, formats=["envelope"])
    assert result.text == "Working." and [c.name for c in result.tool_calls] == ["f"]
    assert result.metadata == {"needsMoreWork": True}
    assert parse("plain").metadata == {}
