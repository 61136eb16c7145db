"""Properties of declared formats over generated values (hypothesis): a value the template writes comes
back exactly as it was given, under every chunking (tests/invariants.py), for the verbatim text values
of Kimi K3 and GigaChat 3.5 and the JSON values of Apertus."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream

# Text a value may hold: anything but the markers that can end it where it stands (the closer, the next
# element's opener, the call's closer), plus near-misses of them.
_PIECES = st.sampled_from(["<|close|>", "<|sep|>", "argument", "<", "|", ">", "\n", " ", "&amp;", '"', "｜GCML｜"])
_TEXT = st.lists(st.one_of(st.text(max_size=6), _PIECES), max_size=8).map("".join)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

K3_ENDS = ("<|close|>argument<|sep|>", "<|open|>argument", "<|close|>call<|sep|>")
GCML_ENDS = ("</｜GCML｜parameter>", "<｜GCML｜parameter", "</｜GCML｜invoke>")


@SETTINGS
@given(_TEXT)
def test_a_k3_string_value_comes_back_verbatim(value: str) -> None:
    if any(end in value for end in K3_ENDS):
        return
    text = (
        '<|open|>tools<|sep|><|open|>call tool="note" index="1"<|sep|><|open|>argument key="text" type="string"<|sep|>'
        + value
        + "<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"
    )
    assert calls(check_stream(text, seeds=3, formats=["kimi_k3"])) == [("note", {"text": value})]


@SETTINGS
@given(_TEXT)
def test_a_gcml_string_value_comes_back_verbatim(value: str) -> None:
    if any(end in value for end in GCML_ENDS):
        return
    text = (
        '<｜GCML｜tool_calls>\n<｜GCML｜invoke name="note">\n<｜GCML｜parameter name="text" string="true">'
        + value
        + "</｜GCML｜parameter>\n</｜GCML｜invoke>\n</｜GCML｜tool_calls>"
    )
    assert calls(check_stream(text, seeds=3, formats=["gigachat35"])) == [("note", {"text": value})]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@SETTINGS
@given(st.dictionaries(st.text(min_size=1, max_size=6), _JSON, max_size=3))
def test_apertus_arguments_come_back_as_written(args: dict[str, object]) -> None:
    text = "<|tools_prefix|>[" + json.dumps({"note": args}, ensure_ascii=False) + "]<|tools_suffix|>"
    assert calls(check_stream(text, seeds=3, formats=["apertus"])) == [("note", args)]
