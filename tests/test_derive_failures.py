"""The failure path of zero-config: a template that cannot be analysed gives a clear error naming what
could not be derived; rendering is sandboxed and bounded; for_model falls back to auto with a warning."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from streamparse import StreamParser
from streamparse.derive import DeriveError, derive
from streamparse.derive.render import Limits, Renderer, RenderError

CHAT = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
UNMARKED_JSON = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}"
    "{% for c in m.tool_calls or [] %}"
    '{"name": "{{ c.function.name }}", "parameters": {{ c.function.arguments | tojson }}}'
    "{% endfor %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
KEY_VALUE_LINES = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}"
    "{% for c in m.tool_calls or [] %}<call>{{ c.function.name }}\n"
    "{% for k, v in c.function.arguments.items() %}{{ k }}: {{ v }}\n{% endfor %}</call>"
    "{% endfor %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def test_a_template_that_renders_no_tool_calls_is_refused_by_name() -> None:
    with pytest.raises(DeriveError, match="renders no tool calls"):
        derive(CHAT)


def test_a_template_that_raises_reports_the_templates_own_message() -> None:
    with pytest.raises(DeriveError, match="this model takes no tools"):
        derive("{{ raise_exception('this model takes no tools') }}")


def test_a_template_that_never_ends_is_stopped_by_the_operation_bound() -> None:
    looping = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    with pytest.raises(DeriveError, match="operations"):
        derive(looping)


def test_a_template_that_floods_is_stopped_by_the_output_bound() -> None:
    with pytest.raises(RenderError, match="characters"):
        Renderer("{% for i in range(90000) %}{{ 'x' * 100 }}{% endfor %}").render()
    with pytest.raises(RenderError, match="larger than the output limit"):
        Renderer("{{ 'x' * 10 ** 9 }}").render()


def test_a_template_that_recurses_without_end_is_stopped() -> None:
    with pytest.raises(RenderError, match="recursed"):
        Renderer("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}").render()


def test_the_deadline_stops_a_slow_template() -> None:
    slow = "{% for i in range(100000) %}{% for j in range(100000) %}{{ '' }}{% endfor %}{% endfor %}"
    with pytest.raises(RenderError, match="longer than"):
        Renderer(slow, limits=Limits(ops=10**12, seconds=0.05)).render()


def test_unmarked_json_calls_running_into_the_text_are_outside_the_vocabulary_and_say_so() -> None:
    with pytest.raises(DeriveError, match="same line as"):
        derive(UNMARKED_JSON)


def test_key_value_lines_without_markers_are_outside_the_vocabulary_and_say_so() -> None:
    with pytest.raises(DeriveError, match="arguments"):
        derive(KEY_VALUE_LINES)


# Message headers (streamparse/derive/recipient.py) where the renders do not show what a header is made of:
# no later message begins with what the generation prompt ends with (a role line, no opener) ...
RECIPIENT_HEADER = (
    "{% for m in messages %}### {{ m.role }}\n"
    "{% for c in m.tool_calls or [] %} to={{ c.function.name }}<|msg|>{{ c.function.arguments | tojson }}<|call|>"
    "{% else %}<|msg|>{{ m.content }}<|done|>{% endfor %}\n{% endfor %}"
    "{% if add_generation_prompt %}### assistant\n{% endif %}"
)
# ... or the prompt writes the opener and the text turn shows no header with the word that means text.
PRIMED_RECIPIENT = (
    "{% for m in messages %}{% if m.role == 'user' %}[U]{{ m.content }}[/U]{% else %}[A]"
    "{% if m.content %}{{ m.content }}{% endif %}"
    "{% for c in m.tool_calls or [] %}@@{{ c.function.name }}\n{{ c.function.arguments | tojson }}{% endfor %}"
    "[/A]{% endif %}{% endfor %}{% if add_generation_prompt %}[A]@@{% endif %}"
)
BARE_KEYS = (
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}"
    "{% for c in m.tool_calls or [] %}<fn>{{ c.function.name }}{{ '{' }}"
    "{% for k, v in c.function.arguments.items() %}{{ k }}:«{{ v }}»{{ ',' if not loop.last }}{% endfor %}"
    "{{ '}' }}</fn>"
    "{% endfor %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        (RECIPIENT_HEADER, r"calls: the call name is the recipient of a message header"),
        (PRIMED_RECIPIENT, r"calls: the generation prompt writes '@@' and the model starts by naming the recipient"),
        (BARE_KEYS, r"arguments: an object with bare keys and values of its own quoting"),
    ],
    ids=["recipient_in_header", "recipient_after_primed_opener", "bare_keys_own_quotes"],
)
def test_structures_outside_the_vocabulary_are_named(template: str, message: str) -> None:
    with pytest.raises(DeriveError, match=message):
        derive(template)


def test_a_syntax_error_is_a_derive_error() -> None:
    with pytest.raises(DeriveError, match="does not compile"):
        derive("{% for x in %}")


def test_the_sandbox_refuses_private_attributes_and_the_template_reaches_nothing_outside() -> None:
    assert Renderer("{{ ''.__class__ }}").render() == ""
    with pytest.raises(RenderError):
        Renderer("{{ ''.__class__.__mro__[1].__subclasses__() }}").render()


class _Notes:
    """Not a container the sandbox knows: its `append` is an ordinary method, safe to call."""

    def __init__(self) -> None:
        self.items: list[int] = []

    def append(self, value: int) -> str:
        self.items.append(value)
        return "ok"


def test_the_sandboxs_attribute_verdicts_hold_on_every_render_and_for_each_type() -> None:
    # Verdicts are kept per (type, name): the same name is asked afresh for another type (a list's `append`
    # mutates it, refused in the immutable sandbox; another object's is allowed), and stays as given.
    renderer = Renderer("{{ x.__class__ }}{{ x.append(1) }}", mutable=False)
    for _ in range(2):
        assert renderer.render(x=_Notes()) == "ok"
        with pytest.raises(RenderError, match="unsafe"):
            renderer.render(x=[])


def test_for_model_falls_back_to_auto_with_a_warning_when_the_template_cannot_be_analysed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "chat_template.jinja").write_text(UNMARKED_JSON, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="streamparse"):
        parser = StreamParser.for_model(str(tmp_path))
    assert parser.derivation is None
    assert "hermes" in parser.formats  # the auto catalog
    assert "same line as" in caplog.text


def test_the_core_imports_without_jinja2_and_deriving_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['jinja2'] = None\n"
        "import streamparse\n"
        "from streamparse import StreamParser\n"
        "try:\n"
        "    StreamParser.from_chat_template('{{ 1 }}')\n"
        "except ImportError as exc:\n"
        "    print('IMPORT-ERROR', exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "IMPORT-ERROR" in out and "streamparse-llm[templates]" in out


@pytest.mark.parametrize(
    "source",
    ["{{ 'x' | center(50000000) }}", "{{ '%50000000s' % 'x' }}", "{{ '%50000000s' | format('x') }}"],
)
def test_a_filter_or_format_asked_for_a_huge_width_is_refused_before_it_allocates(source: str) -> None:
    with pytest.raises(RenderError, match="more characters than the output limit"):
        Renderer(source).render()


def test_lorem_ipsum_of_any_length_is_not_offered_to_templates() -> None:
    with pytest.raises(RenderError, match="lipsum"):
        Renderer("{{ lipsum(100000) }}").render()


def _chat(calls: str) -> str:
    """A chat template of an invented model that writes a turn's calls with ``calls``."""
    return (
        "{% for m in messages %}<|{{ m.role }}|>{{ m.content or '' }}{% if m.tool_calls %}" + calls + "{% endif %}"
        "<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )


@pytest.mark.parametrize(
    "calls, reason",
    [
        # A token before every tag is derived for element-tree arguments (MiniMax-M3); elsewhere it is named.
        (
            '~ns~<calls>{% for c in m.tool_calls %}~ns~<call name="{{ c.function.name }}">'
            "{{ c.function.arguments | tojson }}~ns~</call>{% endfor %}~ns~</calls>",
            r"every tag is preceded by '~ns~', but the arguments are not elements",
        ),
        # [get_weather(city='Paris')] with no marker around the list (between two markers it is derived, a
        # PythonName): the error names the structure and the family that reads a bare list.
        (
            "[{% for c in m.tool_calls %}{{ c.function.name }}({% for k, v in c.function.arguments.items() %}"
            "{{ k }}={{ v | tojson }}{% if not loop.last %}, {% endif %}{% endfor %})"
            "{% if not loop.last %}, {% endif %}{% endfor %}]",
            r"Python call expressions .* no opener and closer .* pythonic family",
        ),
    ],
    ids=["token_before_tags_around_json", "python_call_expressions"],
)
def test_a_structure_outside_the_vocabulary_is_named_as_the_reason(calls: str, reason: str) -> None:
    with pytest.raises(DeriveError, match=reason):
        derive(_chat(calls))


# A template written for an engine whose macros read their caller's variables: ``render_call()`` reads
# ``call``, bound by the loop that calls it (MiroThinker's structure, invented here).
CALLER_SCOPE = (
    "{% macro render_call() %}<call>{{ call.function.name }}</call>{% endmacro %}"
    "{% macro tool_line() %}{{ tool.function.name }}\n{% endmacro %}"
    "{% for tool in tools or [] %}{{ tool_line() }}{% endfor %}"
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}"
    "{% for call in m.tool_calls or [] %}{{ render_call() }}{% endfor %}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def test_a_macro_reading_its_callers_variable_is_named_as_the_cause() -> None:
    with pytest.raises(DeriveError, match=r"'tool' is undefined \(the macro tool_line\(\) reads its caller's 'tool'"):
        derive(CALLER_SCOPE)


def test_a_macro_taking_the_variable_as_a_parameter_derives_past_the_prompt() -> None:
    fixed = CALLER_SCOPE.replace("tool_line()", "tool_line(tool)").replace("render_call()", "render_call(call)")
    with pytest.raises(DeriveError) as info:  # renders now: what fails is the call shape, not the scope
        derive(fixed)
    assert "is undefined" not in str(info.value)


def test_the_hint_is_only_given_for_a_name_a_macro_reads_without_taking_it() -> None:
    from streamparse.derive.scope import caller_scope_hint

    failure = "UndefinedError: 'tool' is undefined"
    assert caller_scope_hint("{{ tool.name }}", failure) == ""  # no macro reads it: a plain missing variable
    assert (
        caller_scope_hint("{% macro f(tool) %}{{ tool }}{% endmacro %}{% for tool in x %}{% endfor %}", failure) == ""
    )
    assert caller_scope_hint("{% macro f() %}{{ tool }}{% endmacro %}", failure) == ""  # bound nowhere else
    assert "f()" in caller_scope_hint("{% macro f() %}{{ tool }}{% endmacro %}{% set tool = 1 %}", failure)
