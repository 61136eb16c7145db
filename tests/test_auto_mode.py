"""Every catalog format, through the invariant suite, in auto mode: its example parses to the same calls
as with the format configured alone, and prose around it stays text."""

from __future__ import annotations

import pytest
from invariants import calls, check_stream

from streamparse import formats

AUTO = [n for n in formats.names() if not formats.CATALOG[n].opt_in]
# Unmarked or start-anchored in auto mode (start rule, docs/FORMATS.md, auto-detection): a call only at the start of the output.
START_ONLY = {"json", "xlam", "envelope", "pythonic", "tool_request", "functionary_v3"}


def _starts_with_call(name: str) -> bool:
    return not formats.CATALOG[name].example[:1].isalpha() or name not in START_ONLY


@pytest.mark.parametrize("name", [n for n in AUTO if _starts_with_call(n)])
def test_example_gives_the_same_calls_in_auto_mode_as_configured(name: str) -> None:
    example = formats.CATALOG[name].example
    alone = check_stream(example, seeds=4, formats=[name], start_in_reasoning=False)
    auto = check_stream(example, seeds=4, formats="auto")
    assert calls(alone) and calls(auto) == calls(alone)


def test_unmarked_json_after_prose_is_text_in_auto_mode_but_a_call_when_configured() -> None:
    example = formats.CATALOG["json"].example
    assert not example.lstrip().startswith("{")
    auto = check_stream(example, seeds=4, formats="auto")
    assert calls(auto) == [] and auto.text == example
    assert calls(check_stream(example, seeds=4, formats=["json"]))


@pytest.mark.parametrize("name", [n for n in AUTO if n not in START_ONLY])
def test_example_after_prose_keeps_the_prose_visible(name: str) -> None:
    example = formats.CATALOG[name].example
    text = "Let me do that.\n" + example + "\nDone."
    result = check_stream(text, seeds=3, formats="auto")
    assert calls(result) == calls(check_stream(example, seeds=0, formats="auto"))
    assert result.text.startswith("Let me do that.\n") and result.text.endswith("\nDone.")


def test_key_value_is_opt_in_only() -> None:
    example = formats.CATALOG["key_value"].example
    assert calls(check_stream(example, seeds=2, formats="auto")) == []
    assert calls(check_stream(example, seeds=2, formats=["key_value"]))
