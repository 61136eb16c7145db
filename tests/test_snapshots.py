"""Running snapshots (``StreamParser.calls`` / ``snapshot(index)``, ``ParseResult.snapshots``) and the
pydantic instance of a call to a pydantic-model tool (``ToolCall.parsed``)."""

from __future__ import annotations

import json

import pytest
from invariants import check_stream
from pydantic import BaseModel, field_validator

from streamparse import StreamParser, parse
from streamparse.partial import CallSnapshot, PartialJson, partial_arguments


def _hermes(name: str, args: str) -> str:
    return '<tool_call>{"name": "' + name + '", "arguments": ' + args + "}</tool_call>"


def test_a_snapshot_follows_the_partial_value_rule_while_the_call_streams() -> None:
    parser = StreamParser(formats=["hermes"])
    seen: list[dict[str, object]] = []
    text = _hermes("f", '{"city": "Lyon", "days": 12, "tags": ["a", {"k": true}], "note": "x\\ny"}')
    for ch in text:
        parser.feed(ch)
        if parser.calls:
            snap = parser.snapshot(0)
            if not seen or seen[-1] != snap.arguments:
                seen.append(snap.arguments)
    parser.close()
    assert {"city": "Ly"} in seen  # a string so far
    assert {"city": "Lyon"} in seen and {"city": "Lyon", "days": 12} in seen
    assert not any(s.get("days") in (1,) for s in seen)  # a number appears only once complete
    assert {"city": "Lyon", "days": 12, "tags": ["a", {}]} in seen  # containers grow with their members
    assert {"city": "Lyon", "days": 12, "tags": ["a", {"k": True}], "note": "x"} in seen
    assert {"city": "Lyon", "days": 12, "tags": ["a", {"k": True}], "note": "x\n"} in seen
    final = parser.snapshot(0)
    assert final.complete and final.done and final.arguments == seen[-1]


def test_the_arguments_are_read_once_however_often_snapshots_are_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear: each snapshot reads only the argument text that arrived since the previous one."""
    fed: list[int] = []
    original = PartialJson.feed

    def counting(self: PartialJson, text: str) -> None:
        fed.append(len(text))
        original(self, text)

    monkeypatch.setattr(PartialJson, "feed", counting)
    parser = StreamParser(formats=["hermes"])
    args = json.dumps({"code": "x = 1\n" * 400, "n": 5})
    text = _hermes("f", args)
    for ch in text[:-12]:  # stop before the closer: the call is still streaming
        parser.feed(ch)
        if parser.calls:
            for _ in range(3):
                parser.snapshot(0)
    assert parser.snapshot(0).status == "streaming"
    assert sum(fed) == len(args)


def test_the_final_snapshots_agree_with_the_events_and_calls() -> None:
    tools = {"f": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}
    text = _hermes("f", '{"a": 1}') + _hermes("f", '{"b": "xy"}') + _hermes("g", "{}")
    text += '<tool_call>{"name": "f", "arguments": {"a": 2, "b": "c'
    result = check_stream(text, formats=["hermes"], tools=tools)
    assert [(s.index, s.status, s.arguments, s.reason) for s in result.snapshots] == [
        (0, "complete", {"a": 1}, None),
        (1, "rejected", {"b": "xy"}, "schema_violation"),
        (3, "rejected", {"a": 2, "b": "c"}, "truncated"),  # index 2: the undeclared "g", rejected without a Start
    ]


def test_an_unknown_index_raises_and_reset_forgets() -> None:
    parser = StreamParser(formats=["hermes"])
    parser.feed(_hermes("f", '{"a": "b"}'))
    assert parser.snapshot(0).name == "f"
    with pytest.raises(KeyError):
        parser.snapshot(1)
    parser.close()
    parser.reset()
    assert parser.calls == []


def test_a_too_large_call_keeps_what_streamed() -> None:
    parser = StreamParser(formats=["hermes"], max_call_chars=60)
    parser.feed(_hermes("f", json.dumps({"text": "y" * 200})))
    parser.close()
    snap = parser.snapshot(0)
    assert snap.status == "rejected" and snap.reason == "too_large"
    assert set(snap.arguments) == {"text"} and snap.arguments["text"].startswith("yyy")


def test_a_snapshot_is_a_copy() -> None:
    parser = StreamParser(formats=["hermes"])
    parser.feed(_hermes("f", '{"tags": ["a"], "x": "b')[:-2])
    snap = parser.snapshot(0)
    snap.arguments["tags"].append("mutated")
    assert parser.snapshot(0).arguments["tags"] == ["a"]
    parser.feed('"}}</tool_call>')
    done = parser.snapshot(0)
    assert done.complete
    done.arguments["tags"].append("mutated")
    assert parser.snapshot(0).arguments["tags"] == ["a"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": "x\\', {"a": "x"}),
        ('{"a": "x\\u00', {"a": "x"}),
        ('{"a": "x\\u00e9', {"a": "xé"}),
        ('{"a": "\\ud83d', {"a": ""}),
        ('{"a": "\\ud83d\\ude00', {"a": "😀"}),
        ('{"a": "x\\\\', {"a": "x\\"}),
        ('{"a": tr', {}),
        ('{"a": -1.5e', {}),
        ('{"a": [1, 2', {"a": [1]}),
        ('{"a": {"b"', {"a": {}}),
        ('{"a": 1} trailing', {"a": 1}),
        ("not json", {}),
    ],
)
def test_partial_values(text: str, value: object) -> None:
    assert partial_arguments(text) == value


def test_partial_json_reads_any_split_of_valid_json() -> None:
    doc = {"s": 'q"\\é😀\n', "n": [1, -2.5e3, True, False, None], "o": {"k": {}}, "e": []}
    text = json.dumps(doc)
    for size in (1, 2, 3, 7):
        reader = PartialJson()
        for i in range(0, len(text), size):
            reader.feed(text[i : i + size])
        assert reader.done and reader.value() == doc


class get_weather(BaseModel):  # noqa: N801 - the tool name
    city: str
    days: int = 1


class booking(BaseModel):  # noqa: N801
    nights: int

    @field_validator("nights")
    @classmethod
    def positive(cls, v: int) -> int:
        if v < 1:
            raise ValueError("at least one night")
        return v


def test_a_pydantic_tool_call_carries_its_instance() -> None:
    result = check_stream(_hermes("get_weather", '{"city": "Lyon"}'), formats=["hermes"], tools=[get_weather, booking])
    call = result.tool_calls[0]
    assert call.parsed == get_weather(city="Lyon", days=1)
    assert isinstance(call.parsed, get_weather)
    assert result.snapshots[0].parsed == call.parsed
    assert "parsed" not in call.to_dict()


def test_a_model_that_refuses_valid_json_rejects_the_call() -> None:
    result = check_stream(_hermes("booking", '{"nights": 0}'), formats=["hermes"], tools=[booking])
    assert [(r.reason, r.started) for r in result.rejected] == [("schema_violation", True)]
    assert "at least one night" in result.rejected[0].detail


def test_other_tools_have_no_instance() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    assert parse(_hermes("f", "{}"), formats=["hermes"], tools=tools).tool_calls[0].parsed is None
    assert parse(_hermes("f", "{}"), formats=["hermes"]).tool_calls[0].parsed is None


def test_call_snapshot_flags() -> None:
    snap = CallSnapshot(0, "call_0", "f", {}, "rejected", "hermes", None, "malformed")
    assert snap.done and not snap.complete


def test_the_contract_examples_of_snapshots_and_custom_formats_run() -> None:
    """docs/API.md's python blocks of these sections run as written and show what they say."""
    import re
    from pathlib import Path

    from streamparse import formats

    text = (Path(__file__).resolve().parents[1] / "docs/API.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "snapshot(0)" in b or "declare(" in b]
    assert len(blocks) == 3  # snapshots, the keyword declaration, a Declaration
    try:
        for block in blocks:
            ns: dict[str, object] = {}
            exec(block, ns)
            snap = ns.get("snap")
            if isinstance(snap, CallSnapshot):
                assert (snap.name, snap.arguments, snap.status) == ("get_weather", {"city": "Ly"}, "streaming")
    finally:
        for name in ("acme", "acme_xml"):
            if name in formats.names():
                formats.unregister(name)


def test_a_string_read_piece_by_piece_equals_the_string_read_at_once() -> None:
    """Each request decodes only the new part of the string being written (escapes split anywhere)."""
    value = 'a\\"b\\\\c\\u00e9\\ud83d\\ude00\\n' * 3
    text = '{"s": "' + value
    reader = PartialJson()
    for i, ch in enumerate(text):
        reader.feed(ch)
        assert reader.value() == partial_arguments(text[: i + 1]) or i < 6, text[: i + 1]
    assert reader.value() == {"s": json.loads('"' + value + '"')}


def test_a_raw_control_character_keeps_the_string_out_of_every_later_snapshot() -> None:
    """A string holding a raw control character is not JSON: once a snapshot saw it, later ones must not
    show the rest of the string as if the character had never been there (found by the marker-soup fuzz)."""
    text = '{"order_id": "\x1f0'
    for cut in range(1, len(text)):
        reader = PartialJson()
        reader.feed(text[:cut])
        reader.value()
        reader.feed(text[cut:])
        assert reader.value() == partial_arguments(text) == {}, cut
