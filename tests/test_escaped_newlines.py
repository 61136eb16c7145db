"""MiniCPM-V's tokenizer decodes a newline as the two characters ``\\`` ``n``: its preset turns them back into
newlines in the visible text and the reasoning, never in call arguments, code or math, as vLLM's minicpmv
parser does (vllm/parser/minicpmv.py and tests/parser/test_minicpmv.py's cases, vllm-project/vllm; the
escape rules are facts from there, the code is ours). Each case runs whole, per character, per UTF-8
byte and in random chunks: every chunking gives the same events."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import byte_pieces, calls, random_pieces, run

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
