"""Property: whatever an invented model's template writes for a call, the format derived from that template
reads back, under every chunking (values drawn by hypothesis, rendered through the template itself)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream

from streamparse.derive import derive
from streamparse.derive.render import Renderer
from streamparse.derive.text import Markers, common_prefix

INVENTED = Path(__file__).parent / "data" / "invented"
KEYS = st.from_regex(r"[a-z][a-z_]{0,11}", fullmatch=True)
# Raw text values: no markup character, no blank at either end (the templates write values verbatim).
RAW = st.text(
    st.characters(blacklist_characters="<>&", blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30
).filter(lambda v: v == v.strip())
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def _output(key: str, name: str, arguments: dict[str, Any]) -> str:
    """The model's part of a one-call turn, as the template renders it."""
    renderer = Renderer((INVENTED / f"{key}.jinja").read_text(encoding="utf-8"))
    user = [{"role": "user", "content": "go"}]
    turn = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": name, "arguments": arguments}}]}  # fmt: skip
    prompt = renderer.render(messages=user, add_generation_prompt=True)
    full = renderer.render(messages=[*user, turn], add_generation_prompt=False)
    return full[common_prefix(prompt, full, Markers()) :]  # never half a marker


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=st.dictionaries(KEYS, JSONISH, max_size=4))
def test_json_arguments_of_any_shape_come_back_from_a_derived_json_format(arguments: dict[str, Any]) -> None:
    derivation = derive((INVENTED / "json_markers.jinja").read_text(encoding="utf-8"))
    result = check_stream(_output("json_markers", "get_data", arguments), seeds=2, formats=[derivation.name])
    assert calls(result) == [("get_data", arguments)]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=st.dictionaries(KEYS, RAW, min_size=1, max_size=4))
def test_raw_text_values_come_back_from_a_derived_key_value_format(arguments: dict[str, str]) -> None:
    derivation = derive((INVENTED / "key_value_markers.jinja").read_text(encoding="utf-8"))
    output = "</think>" + _output("key_value_markers", "note", arguments)  # the prompt opened <think>
    # Raw values are typed by the tool's schema: here every parameter is a string ("0" stays "0").
    props = {k: {"type": "string"} for k in arguments}
    tools = [{"type": "function", "function": {"name": "note", "parameters": {"type": "object", "properties": props}}}]
    result = check_stream(output, seeds=2, formats=[derivation.name], start_in_reasoning=True, tools=tools)
    assert calls(result) == [("note", arguments)]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=st.dictionaries(KEYS, JSONISH, max_size=4))
def test_json_arguments_of_any_shape_come_back_from_a_derived_standalone_format(arguments: dict[str, Any]) -> None:
    derivation = derive((INVENTED / "bare_json_lines.jinja").read_text(encoding="utf-8"))
    result = check_stream(_output("bare_json_lines", "get_data", arguments), seeds=2, formats=[derivation.name])
    assert calls(result) == [("get_data", arguments)]


# The quoted notation has no escapes: a string never holds its quote token (here ~~), keys are bare words.
QUOTED = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=20).filter(lambda s: "~" not in s),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=st.dictionaries(KEYS, QUOTED, max_size=4))
def test_values_of_any_shape_come_back_from_a_derived_quoted_object_format(arguments: dict[str, Any]) -> None:
    derivation = derive((INVENTED / "quoted_object.jinja").read_text(encoding="utf-8"))
    result = check_stream(_output("quoted_object", "get_data", arguments), seeds=2, formats=[derivation.name])
    assert calls(result) == [("get_data", arguments)]
