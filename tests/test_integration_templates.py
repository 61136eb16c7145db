"""The engine adapters' zero-config hook (streamparse.integrations.templates): which template the served
model's parser is derived from. The adapters themselves run against the engines in tests/integrations."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamparse import StreamParser
from streamparse.integrations.templates import FIRST_ENV, TEMPLATE_ENV, template_from_argv, template_options

INVENTED = Path(__file__).parent / "data" / "invented"


class Tokenizer:
    def __init__(self, chat_template: object) -> None:
        self.chat_template = chat_template


def test_the_tokenizers_template_is_used_and_the_environment_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TEMPLATE_ENV, raising=False)
    monkeypatch.delenv(FIRST_ENV, raising=False)
    assert template_options(Tokenizer("{{ x }}")) == {"chat_template": "{{ x }}", "template_first": False}
    assert template_options(Tokenizer({"default": "{{ a }}", "tool_use": "{{ b }}"}))["chat_template"] == "{{ b }}"
    assert template_options(Tokenizer(None)) == {}
    monkeypatch.setenv(TEMPLATE_ENV, "/models/x")
    monkeypatch.setenv(FIRST_ENV, "1")
    assert template_options(Tokenizer("{{ x }}")) == {"chat_template": "/models/x", "template_first": True}


def test_the_sglang_command_line_names_the_template_file_or_a_local_model_folder(tmp_path: Path) -> None:
    tpl = tmp_path / "t.jinja"
    tpl.write_text("{{ x }}", encoding="utf-8")
    assert template_from_argv(["--model-path", "Qwen/Qwen3-8B", "--chat-template", str(tpl)]) == str(tpl)
    assert template_from_argv([f"--model-path={tmp_path}"]) == str(tmp_path)
    assert template_from_argv(["--model-path", "Qwen/Qwen3-8B", "--chat-template", "chatml"]) is None


def test_an_adapter_for_an_unknown_model_gets_the_derived_format(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TEMPLATE_ENV, raising=False)
    tokenizer = Tokenizer((INVENTED / "name_attribute_json.jinja").read_text(encoding="utf-8"))
    parser = StreamParser.for_model("acme/brand-new", **template_options(tokenizer))
    assert parser.derivation is not None
    known = StreamParser.for_model("Qwen/Qwen3-8B", **template_options(tokenizer))
    assert known.derivation is None  # a preset matches: the template is not needed
