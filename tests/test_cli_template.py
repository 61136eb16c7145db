"""``streamparse template FILE|DIR``: the derived parts, a sample round trip, and ``--json`` that
``formats.load`` reads back; a template that cannot be analysed exits 1 with the reason."""

from __future__ import annotations

import io
from pathlib import Path

from streamparse import formats
from streamparse.cli.main import main
from streamparse.cli.template import cmd_template

INVENTED = Path(__file__).parent / "data" / "invented"


def _run(*argv: str) -> tuple[int, str]:
    from streamparse.cli.main import make_argparser

    args = make_argparser().parse_args(["template", *argv])
    out = io.StringIO()
    return cmd_template(args, out), out.getvalue()


def test_the_report_names_each_derived_part_and_shows_a_round_trip() -> None:
    code, out = _run(str(INVENTED / "key_value_markers.jinja"))
    assert code == 0
    assert "reasoning        '<think>' ... '</think>'; the prompt opens it" in out
    assert "call             '<invocation>' ... '</invocation>'" in out
    assert '"value_open": "<val>"' in out
    assert "call: zqfirst" in out  # the sample parses back to the probe's call


def test_the_report_describes_messages_whose_recipient_names_the_call() -> None:
    code, out = _run(str(INVENTED / "recipient_channels.jinja"))
    assert code == 0
    assert "header '<~turn~>', '<~lane~>' ... '<~body~>', recipient after 'send=', channel after '<~lane~>'" in out
    assert "reasoning        messages for/in 'ponder'" in out
    assert "the recipient after 'tools.' is its name, JSON arguments, up to '<~fire~>'" in out
    assert "call: zqfirst" in out


def test_json_output_loads_back_as_the_same_declaration(tmp_path: Path) -> None:
    folder = tmp_path / "Acme-Chat-7B"
    folder.mkdir()
    (folder / "chat_template.jinja").write_text((INVENTED / "json_markers.jinja").read_text(), encoding="utf-8")
    code, out = _run(str(folder), "--json")
    assert code == 0
    decl = formats.load(out)
    assert decl.name == "acme_chat_7b"
    assert (decl.call.open, decl.call.close) == ("<<fn>>", "<</fn>>")


def test_a_template_without_calls_exits_1_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "plain.jinja"
    path.write_text("{% for m in messages %}{{ m.content }}{% endfor %}", encoding="utf-8")
    code, out = _run(str(path))
    assert code == 1 and "renders no tool calls" in out


def test_a_folder_without_a_template_exits_1(tmp_path: Path) -> None:
    assert main(["template", str(tmp_path)]) == 1


def test_the_report_says_a_standalone_call_has_no_marker() -> None:
    code, out = _run(str(INVENTED / "bare_json_lines.jinja"))
    assert code == 0
    assert "call             bare JSON, no marker (at a line start or the output start)" in out
    assert "call: zqfirst" in out
