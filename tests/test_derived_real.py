"""Declarations derived from real chat templates (committed as data by scripts/derive_conformance.py; the
templates themselves are never committed) parse the outputs rendered from those templates: the rendered
scenarios stored beside each declaration, and the fixtures of tests/data/real/templates.json rendered
from the same template file, under every chunking."""

from __future__ import annotations

import dataclasses
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from invariants import check_stream

from streamparse import formats

DATA = Path(__file__).parent / "data"
DERIVED = sorted((DATA / "derived").glob("*.json"))
FIXTURES = json.loads((DATA / "real" / "templates.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True, scope="module")
def _unregister() -> Any:
    yield
    for name in [n for n in formats.names() if n.startswith("t_derived_")]:
        formats.unregister(name)
    registered.cache_clear()


@cache
def registered(path: Path, variant: int = -1) -> tuple[str, dict[str, Any]]:
    """The committed declaration (or its ``variant``-th, derived with other template options), registered."""
    data = json.loads(path.read_text(encoding="utf-8"))
    decl = formats.load(data["declaration"] if variant < 0 else data["variants"][variant]["declaration"])
    name = f"t_{decl.name}" + (f"_v{variant}" if variant >= 0 else "")
    if name not in formats.names():
        formats.register(dataclasses.replace(decl, name=name))
    return name, data


def _variant(path: Path, kwargs: dict[str, Any]) -> int:
    data = json.loads(path.read_text(encoding="utf-8"))
    found = [i for i, v in enumerate(data.get("variants", [])) if v["chat_template_kwargs"] == kwargs]
    return found[0] if found else -1


def _check(name: str, output: str, expected: dict[str, Any], primed: bool) -> None:
    result = check_stream(output, seeds=2, formats=[name], tools=FIXTURES["tools"], start_in_reasoning=primed)
    assert [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls] == expected["calls"]
    assert result.text.strip() == expected["text"]
    assert result.reasoning.strip() == expected["reasoning"]
    assert not result.rejected


def test_every_committed_declaration_loads_back_unchanged() -> None:
    assert len(DERIVED) >= 30
    for path in DERIVED:
        data = json.loads(path.read_text(encoding="utf-8"))
        decl = formats.load(data["declaration"])
        assert decl.to_dict() == data["declaration"], path.name
        assert data["source"]["repo"] and data["source"]["commit"], path.name  # where the template came from


@pytest.mark.parametrize("path", DERIVED, ids=[p.stem for p in DERIVED])
def test_a_derived_declaration_parses_the_outputs_rendered_from_its_template(path: Path) -> None:
    name, data = registered(path)
    assert data["cases"]
    for case in data["cases"]:
        _check(name, case["output"], case["expected"], data["primed"])


FIXTURE_CASES = [
    (path, case)
    for path in DERIVED
    for case in FIXTURES["cases"]
    if case["model"] in json.loads(path.read_text(encoding="utf-8"))["fixture_models"]
]


@pytest.mark.parametrize("path, case", FIXTURE_CASES, ids=[c["id"] for _, c in FIXTURE_CASES])
def test_a_derived_declaration_parses_the_real_template_fixtures_of_its_model(path: Path, case: dict[str, Any]) -> None:
    # Rendered with other options (thinking off, a reasoning effort): the declaration derived with them.
    name, _ = registered(path, _variant(path, case["chat_template_kwargs"]))
    _check(name, case["generated"], case["expected"], case["primed_reasoning"])


GLM = [p for p in DERIVED if p.stem in ("derived_glm_4_5", "derived_glm_4_7_flash", "derived_glm_5_2")]


def _parsed(output: str, fmt: str, primed: bool) -> tuple[Any, ...]:
    result = check_stream(output, seeds=1, formats=[fmt], tools=FIXTURES["tools"], start_in_reasoning=primed)
    calls = [(c.name, c.arguments) for c in result.tool_calls]
    return calls, result.text, result.reasoning, [r.reason for r in result.rejected]


@pytest.mark.parametrize("path", GLM, ids=[p.stem for p in GLM])
def test_a_derived_glm_declaration_parses_the_glm_renders_like_the_built_in_glm45_family(path: Path) -> None:
    # GLM-4.5 / 4.7 / 5 write the name straight into the first <arg_key>: HeaderName(end="").
    assert len(GLM) == 3
    name, data = registered(path)
    assert data["declaration"]["call"]["name"] == {"kind": "header", "end": ""}
    _parses_like(path, data, "glm45")


def _parses_like(path: Path, data: dict[str, Any], built_in: str) -> None:
    """The committed renders and the model's fixtures parse the same with the derived format (derived with
    each fixture's options) and with the built-in family."""
    outputs = [(c["output"], data["primed"], -1) for c in data["cases"]]
    outputs += [
        (c["generated"], c["primed_reasoning"], _variant(path, c["chat_template_kwargs"]))
        for c in FIXTURES["cases"]
        if c["model"] in data["fixture_models"]
    ]
    for output, primed, variant in outputs:
        derived = registered(path, variant)[0]
        assert _parsed(output, derived, primed) == _parsed(output, built_in, primed), output


# The built-in family that reads each model by hand, beside the derived declarations of its templates.
BUILT_IN = {
    "derived_meta_llama_llama_3_1_8b_instruct": "llama3_json",
    "derived_meta_llama_llama_3_2_3b_instruct": "llama3_json",
    "derived_meta_llama_llama_3_3_70b_instruct": "llama3_json",
    "derived_vllm_tool_chat_template_xlam_qwen": "xlam",
    "derived_google_gemma_4_31b_it": "gemma4",
    "derived_google_gemma_4_31b_it_interleaved": "gemma4",
}
FAMILIES = [p for p in DERIVED if p.stem in BUILT_IN]


@pytest.mark.parametrize("path", FAMILIES, ids=[p.stem for p in FAMILIES])
def test_a_derived_declaration_parses_its_renders_like_the_built_in_family_of_the_model(path: Path) -> None:
    # Llama 3.x and xLAM: bare JSON (Call.standalone); Gemma 4: bare keys and <|"|> strings (string_quote).
    assert len(FAMILIES) == len(BUILT_IN)
    name, data = registered(path)
    call = data["declaration"]["call"]
    assert call.get("standalone") or call.get("arguments", {}).get("string_quote") == '<|"|>'
    _parses_like(path, data, BUILT_IN[path.stem])
