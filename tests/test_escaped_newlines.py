"""MiniCPM-V's preset, as vLLM's minicpmv parser reads the model (vllm/parser/minicpmv.py and the cases of
tests/parser/engine/test_minicpmv_reasoning.py, vllm-project/vllm; the rules are facts from there, the code
is ours). Its tokenizer decodes a newline as the two characters ``\\`` ``n``: the preset turns them back into
newlines in the visible text and the reasoning, never in call arguments, code or math. Its reserved markers
``<reserved_12>``...``<reserved_15>`` and ``<|reserved_12|>``...``<|reserved_15|>`` are control tokens: never
text nor reasoning. Each case runs whole, per character, per UTF-8 byte and in random chunks: every chunking
gives the same events."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import byte_pieces, calls, check_stream, random_pieces, run

from streamparse import StreamParser, parse
from streamparse.events import ParseResult, TextWasReasoning, merge_events
from streamparse.formats.escaped_newlines import Unescaper

MODEL = "openbmb/MiniCPM-V-4_5"


def _stream(text: str, **options: Any) -> ParseResult:
    """The result of ``text`` through ``for_model(MODEL)``; asserts that every chunking gives the same events."""
    options = {"model": MODEL, **options}

    def events(chunks: list[Any]) -> list[Any]:
        model = options["model"]
        rest = {k: v for k, v in options.items() if k != "model"}
        parser = StreamParser.for_model(model, **rest) if model else StreamParser(**rest)
        out: list[Any] = []
        for chunk in chunks:
            out += parser.feed(chunk)
        return out + parser.close()

    whole = events([text])
    ref = merge_events(whole)
    for label, chunks in [("chars", list(text)), ("bytes", byte_pieces(text))] + [
        (f"random{seed}", random_pieces(text, seed)) for seed in range(6)
    ]:
        assert merge_events(events(chunks)) == ref, label
    return ParseResult.from_events(whole)


# vLLM's TestNewlineRecovery.test_recover_newlines
VLLM_IN = (
    "first\\nsecond\\rthird\\r\\nfourth `code\\nvalue` ```python\\nvalue = '\\\\n'\\n``` "
    "$x\\ny$ $$x\\ny$$ \\(x\\ny\\) \\[x\\ny\\] escaped \\\\n"
)
VLLM_OUT = (
    "first\nsecond\nthird\nfourth `code\\nvalue` ```python\\nvalue = '\\\\n'\\n``` "
    "$x\\ny$ $$x\\ny$$ \\(x\\ny\\) \\[x\\ny\\] escaped \\\\n"
)


def test_escaped_newlines_become_newlines_outside_code_and_math() -> None:
    assert _stream(VLLM_IN).text == VLLM_OUT


def test_the_same_text_in_reasoning_is_recovered_on_its_own() -> None:
    result = _stream(f"<think>{VLLM_IN}</think>first\\nsecond", chat_template_kwargs={"enable_thinking": True})
    assert (result.reasoning, result.text) == (VLLM_OUT, "first\nsecond")


def test_a_half_escape_at_the_end_of_reasoning_does_not_eat_the_answer() -> None:
    """vLLM's test_streaming_recovers_reasoning_and_content: a trailing backslash of the reasoning is
    decided when the reasoning ends, apart from the answer."""
    result = _stream("<think>reason\\nnext\\</think>answer\\nend")
    assert (result.reasoning, result.text) == ("reason\nnext\\", "answer\nend")


def test_call_arguments_keep_their_escapes() -> None:
    text = "Checking\\nnow.<tool_call>\n<function=note>\n<parameter=text>\nfirst\\nsecond\n</parameter>\n</function>\n</tool_call>"
    result = _stream(text)
    assert result.text == "Checking\nnow."
    assert calls(result) == [("note", {"text": "first\\nsecond"})]


def test_backslash_runs_read_the_same_under_every_split() -> None:
    for count in range(1, 7):
        text = "\\" * count + "n"
        whole = Unescaper().feed(text, final=True)
        assert whole == ("\n" if count == 1 else text)
        for split in range(len(text) + 1):
            u = Unescaper()
            assert u.feed(text[:split]) + u.feed(text[split:], final=True) == whole


def test_text_was_reasoning_counts_the_recovered_text() -> None:
    """Unprimed, an orphan ``</think>`` moves the text before it to reasoning: the count is of the
    characters this filter released (one newline for the two-character escape)."""
    parser = StreamParser.for_model(MODEL)
    events = parser.feed("a\\nb</think>c") + parser.close()
    assert [e.chars for e in events if isinstance(e, TextWasReasoning)] == [3]
    result = ParseResult.from_events(events)
    assert (result.reasoning, result.text) == ("a\nb", "c")


def test_only_the_minicpm_v_preset_recovers_newlines() -> None:
    assert parse("a\\nb", model=MODEL).text == "a\nb"
    assert parse("a\\nb", model="Qwen/Qwen3-8B").text == "a\\nb"
    assert parse("a\\nb", escaped_newlines=True).text == "a\nb"


_PIECES = st.sampled_from(["\\", "n", "r", "`", "```", "$", "(", ")", "[", "]", "a", " ", "\n"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.lists(_PIECES, max_size=20).map("".join))
def test_recovery_is_the_same_under_every_chunking(text: str) -> None:
    whole = Unescaper().feed(text, final=True)
    if "\\" not in text:
        assert whole == text
    events = run(list(text), escaped_newlines=True, formats=["hermes"])
    assert (
        ParseResult.from_events(events).text
        == ParseResult.from_events(run([text], escaped_newlines=True, formats=["hermes"])).text
    )


def test_separator_newlines_written_as_escapes_are_not_content() -> None:
    """The template's ``<think>\\n``, ``\\n</think>\\n\\n`` and the newlines around a call arrive as escapes:
    once recovered they are separators like any other (exact output), kept with ``separators="keep"``."""
    text = "<think>\\nPlan.\\n</think>\\n\\nChecking.\\n" + _CALL + "\\nDone.\\n"
    result = _stream(text)
    assert (result.reasoning, result.text, calls(result)) == ("Plan.", "Checking.\nDone.", [("note", {"text": "x"})])
    kept = _stream(text, separators="keep")
    assert (kept.reasoning, kept.text) == ("\nPlan.\n", "\n\nChecking.\n\nDone.\n")


_CALL = "<tool_call>\n<function=note>\n<parameter=text>\nx\n</parameter>\n</function>\n</tool_call>"


# -- reserved markers -------------------------------------------------------------------------------------

RESERVED = [f"<{bar}reserved_{i}{bar}>" for bar in ("", "|") for i in range(12, 16)]
_RESERVED = re.compile("|".join(re.escape(m) for m in RESERVED))
THINKING = {"chat_template_kwargs": {"enable_thinking": True}}


def test_reserved_markers_are_removed_from_the_text() -> None:
    """vLLM's TestNonThinking.test_reserved_markers_are_removed."""
    result = _stream("<reserved_12>reasoning<reserved_13><|reserved_14|>tool call<|reserved_15|>")
    assert (result.reasoning, result.text) == ("", "reasoningtool call")


def test_other_reserved_numbers_stay_text() -> None:
    """vLLM's test_unrelated_reserved_text_is_unchanged: only 12 to 15 are markers."""
    text = "<reserved_11>content<|reserved_16|>"
    assert _stream(text).text == text


def test_reserved_markers_split_across_chunks_are_removed() -> None:
    """vLLM's test_streaming_split_reserved_markers, with its chunks (``_stream`` adds every other split)."""
    parser = StreamParser.for_model(MODEL)
    events: list[Any] = []
    for chunk in ["<reser", "ved_12>", "reasoning", "<|reserved", "_13|>", "final answer"]:
        events += parser.feed(chunk)
    result = ParseResult.from_events(events + parser.close())
    assert (result.reasoning, result.text) == ("", "reasoningfinal answer")
    assert _stream("<reserved_12>reasoning<|reserved_13|>final answer").text == "reasoningfinal answer"


def test_reserved_markers_are_removed_from_reasoning_and_answer() -> None:
    """vLLM's TestThinking.test_reserved_markers_are_removed; also in reasoning the prompt primed."""
    result = _stream("<think><reserved_12>private reasoning</think><|reserved_13|>final answer", **THINKING)
    assert (result.reasoning, result.text) == ("private reasoning", "final answer")
    primed = _stream("<|reserved_14|>private <reserved_15>reasoning</think>final answer", start_in_reasoning=True)
    assert (primed.reasoning, primed.text) == ("private reasoning", "final answer")


def test_a_reserved_marker_only_disappears_the_whitespace_beside_it_is_kept() -> None:
    """Unlike a template's markup (``<|im_end|>``), a reserved marker has no separators around it: vLLM's
    parser removes the marker alone, so words on both sides are never glued (nor re-joined)."""
    text = "<think>private <reserved_15>reasoning</think>final <|reserved_12|> answer"
    result = _stream(text, **THINKING)
    assert (result.reasoning, result.text) == ("private reasoning", "final  answer")
    assert _stream(text.replace("<reserved_15>", "<|im_end|>"), **THINKING).reasoning == "privatereasoning"
    kept = _stream(text, separators="keep", **THINKING)
    assert (kept.reasoning, kept.text) == ("private reasoning", "final  answer")


def test_only_the_minicpm_v_preset_removes_reserved_markers() -> None:
    text = "<reserved_12>a<|reserved_15|>"
    assert parse(text, model=MODEL).text == "a"
    assert parse(text, model="Qwen/Qwen3-8B").text == text
    assert parse(f"<think>{text}</think>b", model="Qwen/Qwen3-8B").reasoning == text
    assert parse(text).text == text
    assert parse(text, control_tokens=["<reserved_12>", "<|reserved_15|>"]).text == "a"


@pytest.mark.parametrize("tokens", ["<reserved_12>", [""], [" <x>"], [5]])
def test_control_tokens_must_be_a_list_of_markers(tokens: Any) -> None:
    with pytest.raises(ValueError, match="control_tokens"):
        StreamParser(control_tokens=tokens)


_MARKUP = st.sampled_from([*RESERVED, "<reserved_11>", "<|reserved_16|>", "<", "|", ">", "reserved_", "1", "a", "b"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.lists(_MARKUP, max_size=12).map("".join), st.lists(_MARKUP, max_size=12).map("".join))
def test_reserved_markers_never_reach_text_or_reasoning(reasoning: str, answer: str) -> None:
    """Whatever surrounds them, and under every chunking, the markers are removed where they are written
    (one pass over the output, as it streams) and nothing else is."""
    result = _stream(f"<think>{reasoning}</think>{answer}", **THINKING)
    assert (result.reasoning, result.text) == (_RESERVED.sub("", reasoning), _RESERVED.sub("", answer))


def test_a_control_token_a_format_reads_stays_that_formats_marker() -> None:
    """docs/API.md: a marker a format reads (a call opener) given as a control token stays that format's, so
    the call is never made to vanish."""
    result = check_stream(
        'hi <tool_call>{"name": "f", "arguments": {}}</tool_call> <reserved_12>bye',
        formats=["hermes"],
        control_tokens=["<tool_call>", "<reserved_12>"],
    )
    assert [c.name for c in result.tool_calls] == ["f"]
    assert result.text == "hi bye"
