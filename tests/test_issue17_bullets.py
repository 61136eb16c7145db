"""Issue 17, bullet by bullet: one case per claim of the issue that had no test running it whole, per
character, per UTF-8 byte and in random chunks (``check_stream``), with the exact result the issue asks for.
The families' own suites hold the rest (docs/FORMATS.md names them per family)."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import calls, check_stream

TOOLS: dict[str, Any] = {
    "lookup": {"type": "object", "properties": {"q": {"type": "string"}}},
    "f": {"type": "object", "properties": {"a": {"type": "string"}, "key with space": {"type": "string"}}},
}
_HERMES = '<tool_call>\n{"name": "lookup", "arguments": {"q": "x"}}\n</tool_call>'

# (bullet, output, options, visible text, reasoning, calls, rejection reasons)
CASES: list[tuple[str, str, dict[str, Any], str, str, list[Any], list[str]]] = [
    # 2. Exact output: the template's separators are not content; the raw-text option keeps them
    ("separators are not content", f"<think>\nPlan.\n</think>\n\nChecking.\n\n{_HERMES}\n\nDone.", {"formats": ["hermes"]},
     "Checking.\nDone.", "Plan.", [("lookup", {"q": "x"})], []),
    ("the raw-text option keeps them", f"<think>\nPlan.\n</think>\n\nChecking.\n\n{_HERMES}", {"formats": ["hermes"],
     "separators": "keep"}, "\n\nChecking.\n\n", "\nPlan.\n", [("lookup", {"q": "x"})], []),
    # 2. Argument values as the template wrote them: Qwen3-Coder one newline per side, Gemma 4 spaced keys
    ("qwen3-coder strips one newline per side", "<tool_call>\n<function=f>\n<parameter=a>\n  x  \n</parameter>\n"
     "</function>\n</tool_call>", {"formats": ["qwen3_coder"]}, "", "", [("f", {"a": "  x  "})], []),
    ("a gemma 4 key with spaces is a key", '<|tool_call>call:f{key with space:<|"|>v<|"|>}<tool_call|>',
     {"formats": ["gemma4"], "tools": TOOLS}, "", "", [("f", {"key with space": "v"})], []),
    # 3. Markers inside values and reasoning
    ("closers inside a qwen3-coder value", "<tool_call>\n<function=f>\n<parameter=a>\nuse </parameter> and "
     "</function> and </tool_call> here\n</parameter>\n</function>\n</tool_call>", {"formats": ["qwen3_coder"]}, "",
     "", [("f", {"a": "use </parameter> and </function> and </tool_call> here"})], []),
    ("harmony reasoning mentions <|call|>", "<|channel|>analysis<|message|>I will use <|call|> and "
     "<|channel|>final later<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>", {"formats": ["harmony"]},
     "Hi", "I will use <|call|> and <|channel|>final later", [], []),
    # 3. A cut call is never returned; the complete one before it is kept
    ("a pythonic list cut before )]", '[lookup(q="x"', {"formats": ["pythonic"]}, "", "", [], ["truncated"]),
    ("a JSON body cut mid-string", '<tool_call>\n{"name": "lookup", "arguments": {"q": "ab', {"formats": ["hermes"]},
     "", "", [], ["truncated"]),
    ("a harmony header cut before its message", "<|channel|>commentary to=functions.lookup", {"formats": ["harmony"]},
     "", "", [], ["truncated"]),
    ("two calls cut in the second", '[lookup(q="x"), lookup(q="y"', {"formats": ["pythonic"]}, "", "",
     [("lookup", {"q": "x"})], ["truncated"]),
    # 3. Prose is not a call; a bare list on its own line is
    ("a list quoted mid-sentence (auto)", 'the docs say [lookup(q="x")] returns the first hit', {},
     'the docs say [lookup(q="x")] returns the first hit', "", [], []),
    ("a list on its own line", 'Let me look.\n[lookup(q="x")]', {"formats": ["pythonic"], "tools": TOOLS},
     "Let me look.", "", [("lookup", {"q": "x"})], []),
    # 3. Qwen3-Coder without its wrapper; Kimi K2 noise between section markers
    ("qwen3-coder without <tool_call>", "<function=lookup>\n<parameter=q>\nx\n</parameter>\n</function>",
     {"formats": ["qwen3_coder"]}, "", "", [("lookup", {"q": "x"})], []),
    ("kimi k2 section noise", "<|tool_calls_section_begin|> noise <|tool_call_begin|>functions.lookup:0"
     '<|tool_call_argument_begin|>{"q": "x"}<|tool_call_end|> more noise <|tool_calls_section_end|>',
     {"formats": ["kimi_k2"]}, "", "", [("lookup", {"q": "x"})], []),
    # 1. DeepSeek V4 DSML spellings
    ("dsml calls with the space", '<｜DSML｜ calls>\n<｜DSML｜invoke name="lookup">\n<｜DSML｜parameter name="q" '
     'string="true">x</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜ calls>', {"formats": ["deepseek_dsml"]}, "", "",
     [("lookup", {"q": "x"})], []),
    ("dsml self-closing invoke", '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="lookup"/>\n</｜DSML｜tool_calls>',
     {"formats": ["deepseek_dsml"]}, "", "", [("lookup", {})], []),
    # 1. Reasoning delimiters: plain-text and tag families, and GLM's interleaved blocks
    ("apriel primed", "Plan.\n[BEGIN FINAL RESPONSE]\nDone.\n[END FINAL RESPONSE]", {"formats": ["apriel"],
     "start_in_reasoning": True}, "Done.", "Plan.", [], []),
    ("cohere's orphan <|END_THINKING|>", "Plan.<|END_THINKING|><|START_RESPONSE|>Done.<|END_RESPONSE|>",
     {"formats": ["command_r"]}, "Done.", "Plan.", [], []),
    ("granite's plain-text markers", "Here is my thought process:\nPlan.\nHere is my response:\nDone.",
     {"formats": ["granite_thinking"]}, "Done.", "Plan.", [], []),
    ("hunyuan's <answer>", "<think>\nPlan.\n</think>\n<answer>\nDone.\n</answer>", {"formats": ["hunyuan"]}, "Done.",
     "Plan.", [], []),
    ("glm's interleaved blocks", "<think>a</think>Text <think>b</think> More", {"formats": ["glm45"]}, "Text More",
     "a\nb", [], []),
    ("kimi-vl's ◁think▷", "◁think▷Plan.◁/think▷Done.", {}, "Done.", "Plan.", [], []),
]  # fmt: skip


@pytest.mark.parametrize(("bullet", "output", "options", "text", "reasoning", "expected", "rejected"), CASES,
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_issue_17_bullet_holds_under_every_chunking(
    bullet: str,
    output: str,
    options: dict[str, Any],
    text: str,
    reasoning: str,
    expected: list[Any],
    rejected: list[str],
) -> None:
    result = check_stream(output, **options)
    assert (result.text, result.reasoning) == (text, reasoning)
    assert calls(result) == expected
    assert [r.reason for r in result.rejected] == rejected
