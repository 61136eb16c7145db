"""MiniMax-M3 arguments stream while the invoke is open (issue 17): string values fragment by fragment,
every other top-level element when it closes; the same final result under every chunking."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons

from streamparse import StreamParser, ToolCallDelta, ToolCallEnd

NS = "]<]minimax[>["


def _tool(name: str, props: dict[str, object]) -> dict[str, object]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": props}}}


TOOLS = [
    _tool(
        "write",
        {
            "path": {"type": "string"},
            "content": {"type": "string"},
            "mode": {"type": "integer"},
            "opts": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}},
        },
    )
]
BODY = "line one\nline two < three & <b>bold</b>\n"
CALL = (
    f'{NS}<tool_call>\n{NS}<invoke name="write">{NS}<path>/tmp/a.txt{NS}</path>{NS}<content>{BODY}{NS}</content>'
    f"{NS}<mode>644{NS}</mode>{NS}<opts>{NS}<tags>{NS}<item>x{NS}</item>{NS}<item>y{NS}</item>{NS}</tags>{NS}</opts>"
    f"{NS}</invoke>\n{NS}</tool_call>"
)
ARGS = {"path": "/tmp/a.txt", "content": BODY, "mode": 644, "opts": {"tags": ["x", "y"]}}


def _deltas_before_end(text: str, **options: object) -> list[tuple[int, str]]:
    """(characters fed, delta) for every argument delta emitted before the call ended, one char per feed."""
    parser = StreamParser(**options)  # type: ignore[arg-type]
    out: list[tuple[int, str]] = []
    for i, ch in enumerate(text):
        for ev in parser.feed(ch):
            if isinstance(ev, ToolCallDelta):
                out.append((i + 1, ev.arguments))
            if isinstance(ev, ToolCallEnd):
                return out
    return out


def test_arguments_arrive_before_the_invoke_closes() -> None:
    deltas = _deltas_before_end(CALL, formats=["minimax_m3"], tools=TOOLS)
    closed = CALL.index(f"{NS}</invoke>")
    early = "".join(d for i, d in deltas if i <= closed)
    # everything but the closing brace streamed while the invoke was open
    assert json.loads(early + "}") == ARGS
    # the string value streamed in pieces before its own closing tag
    content_end = CALL.index(f"{NS}</content>")
    assert json.dumps(BODY)[1:-1] in "".join(d for i, d in deltas if i <= content_end)
    # the integer arrived when its element closed, not before
    mode_end = CALL.index(f"{NS}</mode>") + len(f"{NS}</mode>")
    assert [i for i, d in deltas if "644" in d] == [mode_end]


def test_streamed_arguments_are_the_same_under_every_chunking() -> None:
    result = check_stream("Writing it.\n" + CALL, formats=["minimax_m3"], tools=TOOLS)
    assert calls(result) == [("write", ARGS)] and result.text == "Writing it."


def test_without_a_schema_text_streams_and_elements_are_trees() -> None:
    result = check_stream(CALL, formats=["minimax_m3"])
    assert calls(result) == [
        ("write", {"path": "/tmp/a.txt", "content": BODY, "mode": "644", "opts": {"tags": ["x", "y"]}})
    ]
    deltas = _deltas_before_end(CALL, formats=["minimax_m3"])
    assert '"/tmp/a.txt' in "".join(d for i, d in deltas if i <= CALL.index(f"{NS}</path>"))


def test_a_top_level_key_written_twice_counts_once_the_last() -> None:
    text = f'{NS}<invoke name="write">{NS}<path>a{NS}</path>{NS}<path>b{NS}</path>{NS}</invoke>'
    result = check_stream(text, formats=["minimax_m3"], tools=TOOLS)
    assert calls(result) == [("write", {"path": "b"})]


def test_an_element_left_open_or_a_stray_closer_is_malformed() -> None:
    for body in (f"{NS}<opts>{NS}<tags>x{NS}</opts>", f"{NS}<mode>1", f"{NS}</mode>", f"text{NS}<mode>1{NS}</mode>"):
        text = f'{NS}<tool_call>{NS}<invoke name="write">{body}{NS}</invoke>{NS}</tool_call>'
        result = check_stream(text, formats=["minimax_m3"], tools=TOOLS)
        assert calls(result) == [] and reasons(result) == ["malformed"] and result.text == "", body


_PIECES = st.lists(st.sampled_from([*"ab <>/\n&]minax[", NS, "<s>", "<b>", "</b>"]), max_size=30).map("".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(rest=_PIECES.filter(lambda v: "</s>" not in v.replace(NS, "")))
def test_property_a_string_value_is_its_text_without_namespace_tokens(rest: str) -> None:
    value = "x" + rest  # starts with text: a string value (a leading tag would make it an element)
    tools = [_tool("w", {"s": {"type": "string"}})]
    text = f'{NS}<tool_call>\n{NS}<invoke name="w">{NS}<s>{value}{NS}</s>{NS}</invoke>\n{NS}</tool_call>'
    result = check_stream(text, seeds=2, formats=["minimax_m3"], tools=tools)
    assert calls(result) == [("w", {"s": value.replace(NS, "")})] and result.text == ""
