"""A call whose closer the model left out, followed by the next call's opener (issue 17, "a cut call is never
returned ... the first complete one is kept"): the opener ends the call only where the call can end (after its
complete JSON arguments, after a complete parameter); inside a value it is value text. Solar Open writes
``<|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{...}<|tool_call:end|>`` per call (its template),
Solar Open 2 ``<|tool_call:start|>NAME\\n<|tool_arg:start|>K<|tool_arg:value|>V<|tool_arg:end|><|tool_call:end|>``
(vLLM's solar_open2 parser)."""

from __future__ import annotations

import pytest

from tests.invariants import calls, check_stream, reasons

S1_CALL = "<|tool_call:begin|>{id}<|tool_call:name|>{name}<|tool_call:args|>{args}"
S2_CALL = "<|tool_call:start|>{name}\n<|tool_arg:start|>{key}<|tool_arg:value|>{value}<|tool_arg:end|>"


def s1(cid: str, name: str, args: str) -> str:
    return S1_CALL.format(id=cid, name=name, args=args)


def s2(name: str, key: str, value: str) -> str:
    return S2_CALL.format(name=name, key=key, value=value)


CASES = {
    # (format, text, expected calls, expected rejection reasons)
    "solar_open_two_calls_first_closer_missing": (
        "solar_open",
        "<|tool_calls|>"
        + s1("a", "get_weather", '{"city": "Paris"}')
        + s1("b", "get_time", '{"timezone": "UTC"}')
        + "<|tool_call:end|>",
        [("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "UTC"})],
        [],
    ),
    "solar_open_first_complete_second_cut": (
        "solar_open",
        "<|tool_calls|>" + s1("a", "get_weather", '{"city": "Paris"}') + s1("b", "get_time", '{"timezone": "U'),
        [("get_weather", {"city": "Paris"})],
        ["truncated"],
    ),
    "solar_open_opener_in_a_json_string_is_value_text": (
        "solar_open",
        "<|tool_calls|>" + s1("a", "get_weather", '{"city": "a <|tool_call:begin|> b"}') + "<|tool_call:end|>",
        [("get_weather", {"city": "a <|tool_call:begin|> b"})],
        [],
    ),
    "solar_open_opener_inside_cut_json_does_not_end_it": (
        "solar_open",
        "<|tool_calls|>"
        + s1("a", "get_weather", '{"city": "Par')
        + s1("b", "get_time", '{"timezone": "UTC"}')
        + "<|tool_call:end|>",
        [],
        ["malformed"],
    ),
    "solar_open2_two_calls_first_closer_missing": (
        "solar_open2",
        s2("get_weather", "city", "Paris") + s2("get_time", "timezone", "UTC") + "<|tool_call:end|>",
        [("get_weather", {"city": "Paris"}), ("get_time", {"timezone": "UTC"})],
        [],
    ),
    "solar_open2_first_complete_second_cut": (
        "solar_open2",
        s2("get_weather", "city", "Paris")
        + "<|tool_call:start|>get_time\n<|tool_arg:start|>timezone<|tool_arg:value|>U",
        [("get_weather", {"city": "Paris"})],
        ["truncated"],
    ),
    "solar_open2_opener_inside_a_value_is_value_text": (
        "solar_open2",
        s2("get_weather", "city", "a<|tool_call:start|>b") + "<|tool_call:end|>",
        [("get_weather", {"city": "a<|tool_call:start|>b"})],
        [],
    ),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_the_next_opener_ends_a_call_only_where_it_can_end(key: str) -> None:
    fmt, text, want, rejected = CASES[key]
    result = check_stream(text, formats=[fmt])
    assert calls(result) == want
    assert reasons(result) == rejected
    assert result.text == ""  # no markup of either call leaks into the content


def test_the_kept_call_ends_before_the_next_opener() -> None:
    text = (
        s1("a", "get_weather", '{"city": "Paris"}') + s1("b", "get_time", '{"timezone": "UTC"}') + "<|tool_call:end|>"
    )
    result = check_stream(text, formats=["solar_open"])
    first, second = result.tool_calls
    assert first.raw == s1("a", "get_weather", '{"city": "Paris"}')
    assert (first.id, second.id) == ("a", "b")
