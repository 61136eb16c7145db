"""``Section.noise``: text between a section's markers that is neither a call nor a separator (Step-3's
``function<｜tool_sep｜>NAME``) is dropped when the section's next marker follows within the look-ahead; the
same under every chunking; without it, such text before the first call is a broken call (fail closed)."""

from __future__ import annotations

from typing import Any

import pytest
from invariants import byte_pieces, random_pieces

from streamparse import StreamParser, formats
from streamparse.events import Event, ParseResult, merge_events
from streamparse.formats import Declaration

BASE: dict[str, Any] = {
    "call": {"open": "<c>", "close": "</c>", "name": {"kind": "header", "end": ":"}},
    "section": {"open": "<cs>", "close": "</cs>", "separators": ["<sep>"]},
}
OUTPUT = 'Sure.<cs><sep>fn NAME\n<c>get_weather:{"city": "Paris"}</c><sep>junk<sep><c>now:{}</c></cs>'


def parse(name: str, text: str, pieces: list[Any] | None = None) -> list[Event]:
    parser = StreamParser(formats=[name])
    out: list[Event] = []
    for piece in pieces if pieces is not None else [text]:
        out.extend(parser.feed(piece))
    return out + parser.close()


@pytest.fixture
def declared() -> Any:
    names = []

    def register(noise: bool) -> str:
        name = "x_noisy" if noise else "x_strict"
        section = {**BASE["section"], **({"noise": True} if noise else {})}
        formats.register(Declaration.from_dict({"name": name, **BASE, "section": section}))
        names.append(name)
        return name

    yield register
    for name in names:
        formats.unregister(name)


def test_noise_between_a_sections_markers_is_dropped(declared: Any) -> None:
    name = declared(True)
    whole = parse(name, OUTPUT)
    result = ParseResult.from_events(whole)
    assert result.text == "Sure."
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("get_weather", {"city": "Paris"}), ("now", {})]
    for chunks in (list(OUTPUT), byte_pieces(OUTPUT), *(random_pieces(OUTPUT, seed) for seed in range(6))):
        assert merge_events(parse(name, OUTPUT, chunks)) == merge_events(whole)


def test_without_noise_stray_text_before_the_first_call_is_a_broken_call(declared: Any) -> None:
    result = ParseResult.from_events(parse(declared(False), OUTPUT))
    assert [r.reason for r in result.rejected] == ["malformed"]
    assert "NAME" not in result.text  # fail closed: none of the section leaks


def test_noise_round_trips_and_is_checked() -> None:
    decl = Declaration.from_dict({"name": "x_noisy", **BASE, "section": {**BASE["section"], "noise": True}})
    assert decl.to_dict()["section"]["noise"] is True
    assert formats.load(formats.dump(decl)) == decl
    with pytest.raises(ValueError, match="section.noise"):
        Declaration.from_dict({"name": "x_bad", **BASE, "section": {**BASE["section"], "noise": "yes"}})
