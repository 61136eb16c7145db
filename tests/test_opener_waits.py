"""Openers whose header arrives in pieces (mistral's ``[TOOL_CALLS]NAME[ARGS]``, pythonic's ``[NAME(``,
generic_xml's ``<tool>`` before ``<name>``, a declared section's first call): while only more of it can decide,
the engine keeps the chunks (``FastPaths.wait_for``) instead of running the handler once per piece. Feed by
feed, and in the held-back bound, that gives what the states give under 1-character, 1-byte and random
chunkings; the reference is the same parser with ``Engine.wait_for`` switched off."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wait_checks import same_with_and_without_waits

from streamparse import StreamParser
from streamparse import formats as catalog
from streamparse.core.engine import Engine
from streamparse.core.lookahead import LOOKAHEAD
from streamparse.formats.pythonic import PyCallsState

WAITS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# (and the tag-call formats, whose parameter closer waits for what follows it, and the declared sections,
# whose opener waits for the first call's)
FORMATS = ["mistral", "pythonic", "generic_xml", "step3", "gemma_tool_code", "qwen3_coder", "xml_invoke"]
FORMATS += ["minimax", "seed_oss", "kimi_k3", "dots", "gigachat35", "muse", "deepseek_v31", "glm45"]
FORMATS += ["granite_pythonic", "harmony"]  # (a line's first word, after a newline; a message's header)
_CALLS = "set_alarm(label='standup', minutes=15), lookup_order(order_id=\"A-1001\")"
NAMES = ["set_alarm", "lookup_order", "get_time"]
# (format, example): each format's own, and pythonic's other forms (LFM2's wrapper, Olmo's lines, the bare list
# at the output start or after prose, where its calls stay text until confirmed).
EXAMPLES = [(name, catalog.get(name).example) for name in FORMATS] + [
    ("pythonic", "<|tool_call_start|>[" + _CALLS + "]<|tool_call_end|>"),
    ("pythonic", "<function_calls>\nset_alarm(label='x')\nlookup_order(order_id=\"A\")\n</function_calls>"),
    ("pythonic", "[" + _CALLS + "]"),
]
# Text that breaks a header or keeps it undecided: the parts of mistral's header, blanks (and more than the
# look-ahead of them), a name longer than a name may be, brackets and closers, the opener itself again.
NOISE = st.sampled_from(
    [
        " ",
        "\n",
        "[",
        "[C",
        "[CALL_ID]",
        "[CALL_ID]" + "i" * 205,
        "[A",
        "[ARGS]",
        "[ARGS] ",
        "{",
        "}",
        "(",
        ")",
        "]",
        "<",
        "</",
        "<na",
        "<name>",
        "</name>",
        "[TOOL_CALLS]",
        "</parameter>",
        "</steptml:parameter>",
        "<steptml:invoke",
        "</function>",
        "<parameter=",
        "\n</",
        "</tool>",
        "<|python_end|>",
        "x" * (LOOKAHEAD + 5),
        " " * (LOOKAHEAD + 5),
        "é",
        '"',
        "'",
        "', '",
        "print(",
        "f(x=1), ",
        "`",
        "```",
        "```tool_code\n",
        "",
    ]
)


def _same_with_and_without_waits(text: str, formats: Any, seed: int, tools: Any = None) -> None:
    # (a call body's chunks through the states too: pythonic's whole-chunk fast path off in the reference)
    same_with_and_without_waits(text, formats, seed, tools, fast_off=(PyCallsState,))


@WAITS
@given(
    which=st.integers(0, len(EXAMPLES) - 1),
    at=st.integers(0, 1000),
    noise=NOISE,
    seed=st.integers(0, 1000),
    auto=st.booleans(),
    cut=st.booleans(),
    start=st.booleans(),
)
def test_an_opener_arriving_in_pieces_is_kept_and_released_as_the_states_do(
    which: int, at: int, noise: str, seed: int, auto: bool, cut: bool, start: bool
) -> None:
    name, example = EXAMPLES[which]
    i = at % (len(example) + 1)
    broken = example[:i] + noise + example[i:]
    tail = broken[: len(broken) // 2] if cut else broken + " done"
    text = (example + "\n" + tail) if start else ("Sure.\n" + example + "\n" + tail)
    # (pythonic reads a list after prose only for given tools)
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in NAMES]
    _same_with_and_without_waits(text, "auto" if auto else [name], seed, tools)


_PY = "<|python_start|>"
BOUNDS = [
    ("mistral", "Use [TOOL_CALLS] Sorry, no tools here. [TOOL_CALLS]!"),  # prose after the token: text
    ("mistral", "[TOOL_CALLS]lookup_order x"),
    ("mistral", "[TOOL_CALLS]lookup_order [ARGS]"),
    ("mistral", "[TOOL_CALLS]lookup_order[CALL_ID]a1B2[ARGS]   " + "\n" * 300 + "{}"),
    ("mistral", "[TOOL_CALLS]lookup_order[CALL_ID][ARGS]{}"),
    ("mistral", "[TOOL_CALLS]" + "n" * 199 + "[ARGS]{}"),
    ("mistral", "[TOOL_CALLS]" + "n" * 200 + "[ARGS]{}"),
    ("mistral", "[TOOL_CALLS]lookup_order[CALL_ID]" + "i" * 200 + "[ARGS]{}"),
    ("mistral", "[TOOL_CALLS]lookup_order[CALL_ID]" + "i" * 201 + "[ARGS]{}"),
    ("mistral", "[TOOL_CALLS]" + " " * 255),
    ("mistral", "[TOOL_CALLS]" + " " * 256 + "x[ARGS]{}"),
    ("mistral", "[TOOL_CALLS]lookup_order[ARGS]"),
    ("mistral", "[TOOL_CALLS]lookup_order[CALL_ID]a1"),
    ("pythonic", _PY + " " * 255 + "[f(x=1)]<|python_end|>"),
    ("pythonic", _PY + " " * 256 + "[f(x=1)]<|python_end|>"),
    ("pythonic", _PY + "[" + " " * 254 + "f(x=1)]<|python_end|>"),
    ("pythonic", _PY + "[" + " " * 255 + "f(x=1)]<|python_end|>"),
    ("pythonic", _PY + "[" + "n" * 254 + "(x=1)]<|python_end|>"),
    ("pythonic", _PY + "[" + "n" * 256 + "(x=1)]<|python_end|>"),
    ("pythonic", _PY + "[set_alarm x(y=1)]<|python_end|>"),
    ("pythonic", _PY + "[set alarm (y=1)]<|python_end|>"),
    ("pythonic", _PY + "[f(x=1), " + "n" * 300 + "(y=2)]<|python_end|>"),
    ("pythonic", _PY + "[f(x=1), g  \t(y=2)]<|python_end|>"),
    ("pythonic", _PY + "[f(x=1)] <|python_e nd|>"),
    ("pythonic", _PY + "[f(x=1)]<|python_end|"),
    ("pythonic", _PY + "[f(x=1), g"),
    ("pythonic", _PY + "[f(x='a)b', y=\"]\", z=[1, {'k': (2,)}]), g(s='''x\\'y''')]<|python_end|>"),
    ("pythonic", "<function_calls>\nf(x=1)\n</function_cal" + "ls> done"),
    ("pythonic", "<function_calls>\nf(x=1)\ng(y=2)\n</funct"),
    ("pythonic", "[f(x='a)b'), g(y=\"]\")]"),
    ("pythonic", "[f(x='a'), print(x) for x in y]"),
    ("granite_pythonic", "Checking.\n" + "n" * 254 + "(x=1)\nok"),
    ("granite_pythonic", "Checking.\n" + "n" * 256 + "(x=1)\nok"),
    ("granite_pythonic", "Checking.\nfoo bar(x=1)\nfoo \t (x=1)\n  f(x=1)\nf.g-h(x=1)"),
    ("granite_pythonic", "Checking.\nfoo\nbar\n\nf("),
    ("harmony", "<|start|>assistant<|channel|>commentary to=functions.f " + "x" * 500 + "<|message|>{}<|call|>"),
    ("harmony", "<|start|>assistant<|channel|>commentary to=functions.f " + "x" * 430 + "<|message|>{}<|call|>"),
    ("harmony", "<|channel|>analysis<|message|>Think.<|start|>assistant<|channel|>final<|message|>Hi<|end|>"),
    ("harmony", "<|channel|>analysis<|message|>Think <|channel|>final is a word " + "y" * 520),
    ("harmony", "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|mess"),
    ("generic_xml", "<tool>" + " " * 255 + "<name>f</name><arguments><x>1</x></arguments></tool>"),
    ("generic_xml", "<tool>" + " " * 240 + "<name>" + "n" * 9 + "</name><arguments><x>1</x></arguments></tool>"),
    ("generic_xml", "<tool>\n<name>" + "n" * 250 + "</name><arguments><x>1</x></arguments></tool>"),
    ("generic_xml", "<tool>\n<nam e>f</name></tool>"),
    ("generic_xml", "<tool>\n<name>f</na me></tool> and <tool>"),
    # A ```tool_code fence's run, info line and first head (text.backticks, pyish.tool_code_fence): at and past
    # their bounds, a run too long, an info line that is not tool_code, the fence in a stream without the format.
    ("gemma_tool_code", "Ok.\n\n```tool_code\n" + " " * 70 + "print(default_api.f(x=1))\n```"),
    ("gemma_tool_code", "Ok.\n\n```tool_code\n" + "n" * 250 + "(x=1)\n```"),
    ("gemma_tool_code", "Ok.\n\n```tool_code \nprint  (default_api.f(x=1))\n```"),
    ("gemma_tool_code", "Ok.\n\n```tool_code\nprint(print(x))\n```"),
    ("gemma_tool_code", "Ok.\n\n````tool_code\nf(x=1)\n````"),
    ("gemma_tool_code", "Ok.\n\n" + "`" * 33 + "tool_code\nf(x=1)\n```"),
    ("gemma_tool_code", "Ok.\n\n```" + "x" * 260 + "\nf(x=1)\n```"),
    ("gemma_tool_code", "Ok.\n\n```TOOL_CODE\nf(x=1)\n```"),
    ("gemma_tool_code", "Ok ``inline`` and `one` and ```\ncode\n``` and ```tool_code\nf(x=1)"),
    ("hermes", "Ok.\n\n```tool_code\nprint(default_api.f(x=1))\n```"),
    ("step3", "<｜tool_calls_begin｜>" + " " * 255 + '<steptml:invoke name="f"></steptml:invoke><｜tool_calls_end｜>'),
    ("step3", "<｜tool_calls_begin｜><steptml:inv oke><｜tool_calls_end｜>"),
    ("step3", '<｜tool_calls_begin｜><steptml:invoke name="f"><steptml:parameter name="x">1</steptml:parameter>  '),
    (
        "step3",
        '<｜tool_calls_begin｜><steptml:invoke name="f"><steptml:parameter name="x">1</steptml:parameter> </st x',
    ),
]


@pytest.mark.parametrize(("name", "text"), BOUNDS)
def test_headers_at_their_bounds_broken_and_cut(name: str, text: str) -> None:
    for whole in (text, text + ' {"order_id": "A-1"} done'):
        for seed in (1, 2):
            _same_with_and_without_waits(whole, [name], seed)


def test_the_opener_chunks_are_kept_without_the_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """The states run once the header is decided, not once per piece of it."""
    runs: list[bool] = []
    real = Engine._run
    monkeypatch.setattr(Engine, "_run", lambda self, final: runs.append(True) or real(self, final))
    parser = StreamParser(formats=["mistral"])
    parser.feed("Sure.[TOOL_CALLS]lo")
    runs.clear()
    for piece in ["ok", "up_or", "der", "[CALL", "_ID]a1", "B2[A", "RGS]", " "]:
        assert parser.feed(piece) == []
    assert runs == []  # kept: only more of the header could decide
    events = parser.feed('{"order_id": "A-1"}') + parser.close()
    assert [e.call.name for e in events if e.type == "tool_call_end"] == ["lookup_order"]


def test_a_tool_code_fence_arriving_in_pieces_is_kept_without_the_states() -> None:
    """gemma_tool_code: the fence's backticks, its info line and the first call's head are kept until the
    ``(`` after the name decides them: after each piece the engine waits (only keeps the next one), which is
    read off the engine rather than by patching it, so the compiled build is judged too."""
    parser = StreamParser(formats=["gemma_tool_code"])
    engine = parser._engine
    parser.feed("Checking.\n\n`")
    for piece in ["``", "tool", "_code", "\npri", "nt(def", "ault_api.", "lookup_", "order"]:
        assert parser.feed(piece) == []
        assert engine.wait is not None, piece
    events = parser.feed('(order_id="A-1"))\n```') + parser.close()
    assert engine.wait is None
    assert [e.call.name for e in events if e.type == "tool_call_end"] == ["lookup_order"]


def test_a_call_body_is_read_without_the_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pythonic: a chunk inside a call's body without a closing bracket, and the pieces of the wrapper's
    ``[NAME(``, of the next call's name and of the closer, are kept or read without running the states."""
    runs: list[bool] = []
    real = Engine._run
    monkeypatch.setattr(Engine, "_run", lambda self, final: runs.append(True) or real(self, final))
    parser = StreamParser(formats=["pythonic"])
    parser.feed("Setting both.\n<|python_start|>")
    runs.clear()
    for piece in ["[", "set_", "ala", "rm"]:
        assert parser.feed(piece) == []
    assert runs == []
    assert [e.type for e in parser.feed("(l")] == ["tool_call_start"]
    runs.clear()
    for piece in ["abel='st", "and", "up', m", "inutes=15"]:
        assert parser.feed(piece) == []
    assert runs == []
    events = parser.feed("), ")
    for piece in ["look", "up_ord"]:
        assert parser.feed(piece) == []
    events += parser.feed('er(order_id="A-1")]<|py')
    runs.clear()
    for piece in ["thon_", "end|"]:
        assert parser.feed(piece) == []
    assert runs == []
    events += parser.feed(">") + parser.close()
    assert [e.call.name for e in events if e.type == "tool_call_end"] == ["set_alarm", "lookup_order"]
    assert [e.call.arguments for e in events if e.type == "tool_call_end"] == [
        {"label": "standup", "minutes": 15},
        {"order_id": "A-1"},
    ]
