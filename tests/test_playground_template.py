"""The playground takes a pasted chat template or a local model folder, replays with the parser derived
from it, and reports the derived format beside the parse."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamparse.playground.replay import ReplayRequest, RequestError, replay

INVENTED = Path(__file__).parent / "data" / "invented"
OUTPUT = 'Checking.\n<calls>\n<call name="get_weather">{"city": "Paris"}</call>\n</calls>'


def _run(template: str) -> tuple[dict, dict]:
    messages = list(replay(ReplayRequest.from_json({"input": OUTPUT, "chat_template": template, "speed": 0})))
    start = messages[0][1]
    done = messages[-1][1]
    return start, done


def test_a_pasted_template_replays_with_the_derived_format_and_shows_it() -> None:
    start, done = _run((INVENTED / "name_attribute_json.jinja").read_text(encoding="utf-8"))
    assert start["derived"]["declaration"]["call"]["open"] == "<call"
    assert start["formats"] == [start["derived"]["name"]]
    assert all(c["ok"] for c in start["derived"]["checks"])
    assert done["stats"]["calls_accepted"] == 1


def test_a_local_model_folder_is_read_like_for_model(tmp_path: Path) -> None:
    (tmp_path / "chat_template.jinja").write_text(
        (INVENTED / "name_attribute_json.jinja").read_text(encoding="utf-8"), encoding="utf-8"
    )
    start, _ = _run(str(tmp_path))
    assert start["derived"]["declaration"]["section"]["open"] == "<calls>"


def test_a_template_that_cannot_be_analysed_is_a_readable_request_error() -> None:
    with pytest.raises(RequestError, match="renders no tool calls"):
        _run("{% for m in messages %}{{ m.content }}{% endfor %}")
