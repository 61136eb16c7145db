"""Real model output round-trips (issue 10): models' own chat templates and the peers' parser cases.

Every case of tests/data/real/*.json must parse to its expected calls, rejections, visible text and
reasoning, whole, per character, per UTF-8 byte and in random pieces, with identical merged events; and
``ParseResult.from_events`` of any chunking must equal ``parse`` of the whole text. Template cases run with
``StreamParser.for_model`` (the preset of the model the template belongs to) and with ``formats="auto"``.
"""

from __future__ import annotations

import pytest
from real_world import SOURCES, Case, cases, check_case, chunkings, events_of

from streamparse.events import ParseResult


def _params(source: str, mode: str = "preset") -> list[object]:
    return [pytest.param(c, id=c.id) for c in cases(source, mode)]


@pytest.mark.parametrize("case", _params("templates"))
def test_template_output_round_trips_with_the_models_preset(case: Case) -> None:
    check_case(case)


@pytest.mark.parametrize("case", _params("templates", "auto"))
def test_template_output_round_trips_in_auto_mode(case: Case) -> None:
    check_case(case)


@pytest.mark.parametrize("case", [p for s in SOURCES if s != "templates" for p in _params(s)])
def test_peer_parser_case_passes(case: Case) -> None:
    check_case(case)


@pytest.mark.parametrize("case", [p for s in SOURCES for p in _params(s)][::7])
def test_from_events_of_any_chunking_equals_the_whole_parse(case: Case) -> None:
    whole = ParseResult.from_events(events_of(case, [case.text]))
    for label, chunks in chunkings(case.text, seeds=2):
        got = ParseResult.from_events(events_of(case, chunks))
        assert got.text == whole.text and got.reasoning == whole.reasoning, label
        assert [(c.name, c.arguments) for c in got.tool_calls] == [(c.name, c.arguments) for c in whole.tool_calls]
        assert [r.reason for r in got.rejected] == [r.reason for r in whole.rejected], label


def test_every_source_has_cases() -> None:
    for source in SOURCES:
        assert len(cases(source)) >= 20, source
