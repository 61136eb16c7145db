"""Precision in ``formats="auto"``: prose, Markdown, code and JSON data never turn into calls, and come
through as visible text exactly, under every chunking."""

from __future__ import annotations

import json

import pytest
from invariants import check_stream

PACKAGE_JSON = json.dumps(
    {
        "name": "my-app",
        "version": "1.2.0",
        "scripts": {"test": "jest", "build": "tsc"},
        "dependencies": {"react": "^18.2.0"},
    },
    indent=2,
)

TEXTS = {
    "prose": "Sure! The order A-1001 shipped yesterday; it should arrive by Friday.",
    "comparisons": "If a < b and b > c then a <b> c, x<y, 3 < 4 > 2, and i<n; i++ is fine.",
    "brackets": "[1] Smith et al. {x} is a set, [a, b] a list, f(x) = {y | y > x}.",
    "citation_at_start": "[1] Reference list follows.\n[2] Another one.",
    "set_at_start": "{x} is the set holding x.",
    "repl": ">>> print('hi')\nhi\n>>> 1 + 1\n2",
    "pipes": "a|b, <|, |>, <| not a token |> and a || b or <|im_start (no close",
    "near_miss_tags": "Use <tool to mean a tool, <tool_ calls, <toolbox>, <tools> and </tool_call without >.",
    "near_miss_tokens": "[TOOL is not a marker, nor [TOOL_CALL, nor functools.partial(f), nor Action: go.",
    "markdown": "# Title\n\n- item {a}\n- item [b](http://x.y)\n\n| a | b |\n|---|---|\n| {1} | [2] |\n",
    "inline_code": 'Call `{"name": "f", "arguments": {}}` like that, or `<tool_call>`.',
    "python_fence": '```python\nd = {"name": "f", "arguments": {}}\nprint(d)\n```\n',
    "fence_at_start": '```\n{"name": "pkg", "version": "1"}\n```\nThat is the manifest.',
    "json_fence_data": '```json\n{"users": [{"name": "Ann", "age": 3}]}\n```',
    "package_json_answer": PACKAGE_JSON,
    "package_json_after_prose": "Here is your file:\n\n" + PACKAGE_JSON + "\n",
    "json_data_answer": '{"temperature": 21.5, "unit": "C", "city": "Antwerp"}',
    "json_list_answer": '[{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]',
    "json_numbers": "[1, 2, 3]",
    "json_strings": '["apple", "banana"]',
    "json_person_named": '{"name": "Alice", "email": "a@example.org"}',
    "json_only_name": '{"name": "lookup_order"}',
    "json_mid_sentence": 'The tool call {"name": "f", "arguments": {}} is an example.',
    "json_after_prose_line": 'Example:\n{"name": "f", "arguments": {"a": 1}}\n',
    "numbers_at_start": "2024 was a good year. 1 {not json}",
    "digits_then_json_data": '1 {"a": 1}\n2 {"b": 2}',
    "braces_code_at_start": "{\n  int x = 1;\n}\n",
    "apostrophes": "It's {'a': 'b'} in Python, isn't it?",
    "unicode": "東京 {データ} [リスト] 🚀 <東> |記号|",
    "think_word": "I think <think is not a tag> and </thinking> neither.",
    "trailing_prefixes": "Ends with a partial <tool_ca",
    "lone_open_brace": "{",
    "lone_open_bracket": "[",
    "whitespace_then_data": '\n\n  {"score": 0.9}\n',
    "envelope_lookalike": '{"contents": "x", "needsWork": true}',
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_never_a_call_and_text_is_exact(name: str) -> None:
    text = TEXTS[name]
    result = check_stream(text, formats="auto")
    assert not result.tool_calls, result.tool_calls
    assert not result.rejected, result.rejected
    # Exact: every character, but the whitespace at the ends of the output (a separator, exact output)...
    assert result.text == text.strip(" \t\r\n")
    # ...which separators="keep" keeps too.
    assert check_stream(text, formats="auto", separators="keep").text == text


@pytest.mark.parametrize("name", ["json_mid_sentence", "package_json_after_prose", "json_data_answer", "brackets"])
def test_also_exact_when_json_is_configured(name: str) -> None:
    text = TEXTS[name]
    result = check_stream(text, formats=["json", "xlam", "envelope", "llama3_json", "tool_request"])
    assert not result.tool_calls and not result.rejected
    assert result.text == text.strip(" \t\r\n")
