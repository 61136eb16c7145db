"""cwm (formats/cwm.py): Meta CWM's ``<tool: LABEL>`` blocks as vLLM's cwm parser reads them, through the
``facebook/cwm`` preset, whole, per character, per byte and in random chunks: the name as the body's first word,
JSON or raw-command arguments, the label-named shorthand, cut and nameless blocks, and the command text
property-tested. vLLM's own cases are in tests/data/real/vllm.json (test_real_world.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons

from streamparse import parse
from streamparse.presets import preset_for

MODEL = "facebook/cwm"

CASES: dict[str, tuple[str, list[tuple[str, dict[str, Any]]], str, list[str]]] = {
    # (output, calls, visible text, rejection reasons)
    "json_arguments_after_the_name": (
        '<tool: function>\nsearch {"q": "a </tool> b"}\n</tool>',
        [("search", {"q": "a </tool> b"})],
        "",
        [],
    ),
    "command_whitespace_inside_is_kept_around_it_dropped": (
        "Run:\n<tool: function>\nterminal   printf 'a  b'\n  ls\n\n</tool>\nDone.",
        [("terminal", {"command": "printf 'a  b'\n  ls"})],
        "Run:\nDone.",
        [],
    ),
    "name_alone_is_an_empty_command": (
        "<tool: function>\nterminal\n</tool>",
        [("terminal", {"command": ""})],
        "",
        [],
    ),
    "block_without_a_name_is_malformed": ("Hm.<tool: function>\n</tool>", [], "Hm.", ["malformed"]),
    "cut_in_the_command": ("<tool: function>\nterminal echo hi", [], "", ["truncated"]),
    "cut_in_the_closer": ("<tool: function>\nterminal echo hi</too", [], "", ["truncated"]),
    "no_label_is_text": ("a <tool:> b", [], "a <tool:> b", []),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_a_cwm_block_parses_through_the_preset_under_every_chunking(key: str) -> None:
    text, want, visible, rejected = CASES[key]
    preset = preset_for(MODEL)
    assert preset.formats == ("cwm",)
    result = check_stream(text, formats=list(preset.formats))
    assert calls(result) == want
    assert result.text == visible
    assert reasons(result) == rejected


def test_cwm_is_read_only_where_named() -> None:
    text = "<tool: function>\nterminal ls\n</tool>"
    assert calls(parse(text, model=MODEL)) == [("terminal", {"command": "ls"})]
    assert calls(parse(text, formats="auto")) == []


_COMMAND = st.text(alphabet=st.sampled_from(list("ab {}<>/\n\t\"\\'tol:")), max_size=24)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(_COMMAND)
def test_a_command_comes_back_as_written_without_its_surrounding_whitespace(command: str) -> None:
    body = command.strip()
    if "</tool>" in command or body.startswith("{"):
        return  # the closer ends the command; a `{` makes the arguments JSON
    result = check_stream(f"<tool: function>\nterminal {command}\n</tool>", seeds=3, formats=["cwm"])
    assert calls(result) == [("terminal", {"command": body})]
