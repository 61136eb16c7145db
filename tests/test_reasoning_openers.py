"""A reasoning opener written inside primed reasoning (issue 17): at the start of the reasoning it is markup
(the model repeated the opener the prompt wrote), after reasoning text it is that text, spaces included.

The templates write an opener only where reasoning begins; vLLM's reasoning parsers (deepseek_r1, qwen3:
``partition`` on the opener) and SGLang's (the first opener stripped once) take at most one opener as
markup. So ``I mention <think> here`` is reasoning as written, not ``I mentionhere``. Every preset whose
reasoning is primed is checked with ``<think>`` and with its own family's opener, whole, per character,
per UTF-8 byte and in random chunks (``check_stream``).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_stream

from streamparse.config import Tables
from streamparse.presets import RULES, THINKING_PRIMES, Preset
from streamparse.states.text import REASONING

# Families whose reasoning delimiters are built-in wrappers other than <think> (states/text.py REASONING).
_OWN_OPENER = {
    "minimax-m3": "<mm:think>",
    "cohere-north": "<|START_THINKING|>",
    "plamo-3": "<|plamo:begin_think:plamo|>",
    "openpangu": "[unused16]",
    "kimi-k2.5": "◁think▷",
}


def _primed_presets() -> dict[str, Preset]:
    found: dict[str, Preset] = {}
    for rule in RULES:
        p = rule.preset
        if p.start_in_reasoning or p.family in THINKING_PRIMES:
            found.setdefault(p.family, p)
    return found


PRIMED = _primed_presets()


def _delimiters(preset: Preset) -> list[tuple[str, str]]:
    """``<think>`` and the family's own primed delimiters (declared, or a built-in wrapper)."""
    pairs = [("<think>", "</think>")]
    if isinstance(preset.formats, tuple):
        wiring = Tables(preset.formats, False, explicit=True).wiring
        pairs += [(r.open, r.close) for r in wiring.reasoning if r.primed and r.open is not None]
    own = _OWN_OPENER.get(preset.family)
    if own is not None:
        pairs.append((own, REASONING[own]))
    return list(dict.fromkeys(pairs))


CASES = [(family, opener, closer) for family, p in PRIMED.items() for opener, closer in _delimiters(p)]


def _options(family: str) -> dict[str, object]:
    return {"formats": PRIMED[family].formats, "start_in_reasoning": True}


def test_every_primed_family_is_checked() -> None:
    assert len(PRIMED) >= 40
    assert {"kimi-k3", "longcat-flash", "apriel", "minimax-m3", "cohere-north"} <= PRIMED.keys()


@pytest.mark.parametrize(("family", "opener", "closer"), CASES)
def test_an_opener_after_primed_reasoning_text_is_that_text(family: str, opener: str, closer: str) -> None:
    thought = f"I mention {opener} here, and {opener}\nthere."
    result = check_stream(f"{thought}{closer}Answer.", seeds=3, **_options(family))
    assert result.reasoning == thought
    assert result.text == "Answer."


@pytest.mark.parametrize(("family", "opener", "closer"), CASES)
def test_an_opener_at_the_start_of_primed_reasoning_is_markup(family: str, opener: str, closer: str) -> None:
    result = check_stream(f"{opener}\nPlan with {opener} inside.\n{closer}\n\nAnswer.", seeds=3, **_options(family))
    assert result.reasoning == f"Plan with {opener} inside."
    assert result.text == "Answer."


def test_a_repeated_opener_at_the_start_of_a_written_block_is_markup() -> None:
    result = check_stream("<think>\n<think>\nPlan.</think>Answer.", formats=["hermes"], start_in_reasoning=True)
    assert result.reasoning == "Plan."
    assert result.text == "Answer."


def test_keep_separators_keeps_a_mid_reasoning_opener_and_its_spaces() -> None:
    result = check_stream(
        "I mention <think> here</think>Answer.", formats=["hermes"], start_in_reasoning=True, separators="keep"
    )
    assert result.reasoning == "I mention <think> here"


def test_keep_separators_keeps_the_whitespace_before_a_leading_opener_as_reasoning() -> None:
    # vLLM's DeepSeek-R1 streaming test: "\n<think>This is ..." gives the reasoning "\nThis is ...".
    result = check_stream(
        "\n<think>Plan.</think>\nAnswer.", formats=["hermes"], start_in_reasoning=True, separators="keep"
    )
    assert result.reasoning == "\nPlan."
    assert result.text == "\nAnswer."


_WORDS = st.text(alphabet="ab <>/\n.", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(_WORDS, st.sampled_from(["<think>", "<mm:think>", "◁think▷", "<seed:think>", "[THINK]"]), _WORDS)
def test_a_mid_reasoning_opener_never_eats_the_text_around_it(before: str, opener: str, after: str) -> None:
    if not before.strip() or "</" in before + after or "<think" in before + after:
        return  # the opener must follow reasoning text; a closer in the text would end the reasoning
    thought = f"{before}{opener}{after}"
    result = check_stream(f"{thought}</think>Answer.", seeds=3, formats=["hermes"], start_in_reasoning=True)
    assert result.reasoning == thought.strip(" \n")
    assert result.text == "Answer."
