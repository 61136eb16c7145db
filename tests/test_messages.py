"""Messages with a header (``Messages``, ``RecipientName``): the vocabulary form of gpt-oss's channels,
Muse Glimmer's recipients and Functionary v3.2's ``>>>NAME``; derived from templates, it reads what the
built-in families read, under every chunking; invented templates of the same kind derive too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from invariants import calls, check_stream, reasons, released_after_each_char

from streamparse import formats
from streamparse.derive import derive
from streamparse.derive.render import Renderer
from streamparse.derive.text import Markers, common_prefix
from streamparse.formats import Call, Declaration, Messages, RecipientName, Section

DATA = Path(__file__).parent / "data"
INVENTED = DATA / "invented"
FIXTURES = json.loads((DATA / "real" / "templates.json").read_text(encoding="utf-8"))
TOOLS = FIXTURES["tools"]

HARMONY_LIKE = Messages(
    "<|start|>",
    "<|message|>",
    also_open=("<|channel|>",),
    recipient="to=",
    channel="<|channel|>",
    ends=("<|end|>", "<|call|>", "<|return|>"),
    reasoning_words=("analysis",),
    primed=True,
)


@pytest.fixture(autouse=True, scope="module")
def _unregister() -> Iterator[None]:
    yield
    for name in [n for n in formats.names() if n.startswith("derived_") and n.endswith(_STEMS)]:
        formats.unregister(name)
    derived.cache_clear()


_STEMS = ("openai_gpt_oss_120b", "meetkai_functionary_medium_v3_2", "muse_glimmer")


@cache
def derived(stem: str) -> str:
    """The committed declaration derived from a real template (scripts/derive_conformance.py), registered."""
    data = json.loads((DATA / "derived" / f"derived_{stem}.json").read_text(encoding="utf-8"))
    decl = formats.load(data["declaration"])
    if decl.name not in formats.names():
        formats.register(decl)
    return decl.name


def summary(output: str, fmt: str, **options: Any) -> dict[str, Any]:
    """What a format reads from ``output``, checked equal under whole, 1-char, 1-byte and random chunkings."""
    result = check_stream(output, seeds=3, formats=[fmt], **options)
    return {
        "calls": calls(result),
        "text": result.text.strip(),
        "reasoning": result.reasoning.strip(),
        "rejected": reasons(result),
    }


def _cases(file: str, fmt: str) -> list[dict[str, Any]]:
    data = json.loads((DATA / "real" / file).read_text(encoding="utf-8"))
    return [c for c in data["cases"] if c.get("options", {}).get("formats") == [fmt]]


def _fixtures(preset: str) -> list[str]:
    return [c["generated"] for c in FIXTURES["cases"] if c["preset"] == preset]


# Edge cases the built-in families pin (tests/test_families.py and friends), in their own syntax.
HARMONY_EDGES = [
    "<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather"
    ' <|constrain|>json<|message|>{"city": "Paris"}<|call|><|start|>assistant<|channel|>commentary '
    'to=functions.get_time <|constrain|>json<|message|>{"timezone": "UTC"}<|call|>',
    '<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"query": "x"}<|call|>',
    "<|channel|>analysis<|message|>Thinking about <|channel|>final and <|end|> here.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>Done.<|return|>",
    "<|channel|>analysis<|message|>Cut here<|start|>assistant<|channel|>final<|message|>Answer.",
    '<|start|>assistant<|channel|>commentary to=functions.get_weather<|message|>{"city": "Par',
    "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=functions.get_weather<|channel|>commen",
    '<|channel|>commentary to=functions.get_weather<|message|>{"city": oops}<|call|>',
    "<|channel|>final<|message|>Plain answer with a < and a > in it.<|return|>",
    "Plain text where a header should be, then to=functions.get_weather<|message|>{}",
]
FUNCTIONARY_EDGES = [
    'all\nLet me look.>>>get_weather\n{"city": "Paris"}>>>get_time\n{"timezone": "UTC"}<|eot_id|>',
    'get_weather\n{"city": "Par',
    "all\nJust text, no call.<|eot_id|>",
    'get_weather\n{"city": oops}',
    "all\nUse >>> in Python.",
    "Plain text where a header should be.",
]
MUSE_EDGES = [
    " to=self<|message|>Plan it.<|eom|><|start|>assistant to=user<|message|>Sure.<|eot|>",
    ' to=get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="city">Pa',
    "Plain text where a header should be.",
]


@pytest.mark.parametrize(
    "output",
    [c["generated"] for c in _cases("vllm.json", "harmony") + _cases("reports.json", "harmony")]
    + _fixtures("gpt-oss")
    + HARMONY_EDGES,
)
def test_the_harmony_derived_from_gpt_oss_template_reads_like_the_built_in_family(output: str) -> None:
    assert summary(output, derived("openai_gpt_oss_120b"), tools=TOOLS) == summary(output, "harmony", tools=TOOLS)


@pytest.mark.parametrize("output", _fixtures("functionary-v3.2") + FUNCTIONARY_EDGES)
def test_the_format_derived_from_functionary_v3_2_reads_like_the_built_in_family(output: str) -> None:
    fmt = derived("meetkai_functionary_medium_v3_2")
    assert summary(output, fmt, tools=TOOLS) == summary(output, "functionary_v3", tools=TOOLS)


@pytest.mark.parametrize("output", _fixtures("muse-glimmer") + MUSE_EDGES)
def test_the_format_derived_from_muse_glimmer_reads_like_the_built_in_family(output: str) -> None:
    assert summary(output, derived("muse_glimmer"), tools=TOOLS) == summary(output, "muse", tools=TOOLS)


FAMILIES = {
    "harmony": ("openai_gpt_oss_120b", [c["generated"] for c in _cases("vllm.json", "harmony")] + HARMONY_EDGES),
    "functionary_v3": ("meetkai_functionary_medium_v3_2", _fixtures("functionary-v3.2") + FUNCTIONARY_EDGES),
    "muse": ("muse_glimmer", _fixtures("muse-glimmer") + MUSE_EDGES),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_derived_message_format_releases_text_as_early_as_the_built_in_family(family: str) -> None:
    stem, outputs = FAMILIES[family]
    for output in outputs:
        mine = released_after_each_char(output, formats=[derived(stem)], tools=TOOLS)
        assert mine == released_after_each_char(output, formats=[family], tools=TOOLS), output


def test_the_gpt_oss_derivation_is_the_general_form_not_a_copy_of_the_family() -> None:
    decl = formats.declaration_of(derived("openai_gpt_oss_120b"))
    assert decl is not None
    assert decl.messages == HARMONY_LIKE
    assert decl.call == Call("", "<|call|>", RecipientName("functions."))


def test_a_messages_declaration_round_trips_through_plain_data() -> None:
    decl = Declaration("x_msgs", Call("", "<|call|>", RecipientName("functions.")), messages=HARMONY_LIKE)
    data = decl.to_dict()
    assert data["call"]["name"] == {"kind": "recipient", "prefix": "functions."}
    assert Declaration.from_dict(data) == decl
    assert formats.load(formats.dump(decl)) == decl
    for stem in ("openai_gpt_oss_120b", "meetkai_functionary_medium_v3_2", "muse_glimmer"):
        found = formats.declaration_of(derived(stem))
        assert found is not None and Declaration.from_dict(found.to_dict()) == found


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Declaration("x", Call("", None, RecipientName())), r"call\.name: .*declare messages"),
        (
            lambda: Declaration("x", Call("", None, RecipientName()), Section("<s>"), messages=HARMONY_LIKE),
            r"section: .*in no section",
        ),
        (lambda: Messages(">>>", "\n"), r"text_words: .*recipient alone needs"),
        (lambda: Messages(">>>", "\n", channel="<c>", text_words=("all",)), r"channel: .*holds no channel"),
        (lambda: Messages("<h>", "<b>", recipient="to=", reasoning_words=("me",), text_words=("me",)), r"also a"),
        (lambda: Messages("<h>", "<b>", also_open=("<b>",), recipient="to="), r"also_open: .*body marker"),
        (lambda: Messages("<h>", "<b>", recipient="to=", text_words=("two words",)), r"text_words\[0\]: .*one word"),
        (lambda: Call("<tool>", None, RecipientName()), r"name: .*no opener"),
        (lambda: Call("", None, RecipientName("fn x")), r"prefix: .*short word"),
    ],
    ids=[
        "no_messages",
        "section",
        "no_text_words",
        "channel_alone",
        "overlap",
        "body_opens",
        "word",
        "opener",
        "prefix",
    ],
)
def test_invalid_message_declarations_are_refused_with_the_field_named(build: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def test_a_built_in_recipient_is_a_call_only_when_declared_and_a_cut_header_is_truncated() -> None:
    fmt = derived("openai_gpt_oss_120b")
    out = '<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"query": "x"}<|call|>'
    assert summary(out, fmt, tools=TOOLS)["rejected"] == ["unknown_tool"]
    browser = [{"type": "function", "function": {"name": "browser.search", "parameters": {"type": "object"}}}]
    assert summary(out, fmt, tools=browser)["calls"] == [("browser.search", {"query": "x"})]
    cut = "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=functions.get_weather<|channel|>comm"
    assert summary(cut, fmt, tools=TOOLS) == {"calls": [], "text": "", "reasoning": "x", "rejected": ["truncated"]}


def test_family_knowledge_outside_the_vocabulary_fails_closed_in_the_derived_formats() -> None:
    # Functionary's `python` recipient has a raw code body; Muse's template leads to a doubled `NAME.NAME`.
    code = ">>>python\nprint(1)"
    assert summary(code, derived("meetkai_functionary_medium_v3_2"), tools=TOOLS)["rejected"] == ["malformed"]
    doubled = (
        ' to=get_weather.get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather.get_weather">\n'
        '<atem:parameter name="city">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>'
    )
    assert summary(doubled, derived("muse_glimmer"), tools=TOOLS)["rejected"] == ["unknown_tool"]
    assert summary(doubled, "muse", tools=TOOLS)["calls"] == [("get_weather", {"city": "Paris"})]


# Bodies that mention the markers that end a message, blanks, braces and angle brackets (never a header's
# opener: a text that writes one is markup the families read in their own ways).
HARMONY_FRAGMENTS = st.sampled_from(["a", " ", "word", "<|end|>", "to=x", "<", ">", "\n", "<|call|>", "<|return|>", "{", "}"])  # fmt: skip
FUNCTIONARY_FRAGMENTS = st.sampled_from(["a", " ", "word", ">>", ">", "\n", "all", "{", "}", "<|eot_id|>", "> >>"])
SMALL_ARGS = st.dictionaries(st.sampled_from(["city", "unit"]), st.text("ab <>|\n", max_size=6), max_size=2)


def _messages(fragments: st.SearchStrategy[str]) -> st.SearchStrategy[list[tuple[str, Any]]]:
    body = st.lists(fragments, max_size=8).map("".join)
    one = st.tuples(st.sampled_from(["reasoning", "text"]), body) | st.tuples(st.just("call"), SMALL_ARGS)
    return st.lists(one, min_size=1, max_size=4)


def _harmony(messages: list[tuple[str, Any]]) -> str:
    out = []
    for i, (kind, value) in enumerate(messages):
        head = "<|start|>assistant" if i else ""  # the prompt wrote the first one's
        if kind == "call":
            out.append(f"{head} to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{json.dumps(value)}<|call|>")  # fmt: skip
        else:
            channel, end = ("analysis", "<|end|>") if kind == "reasoning" else ("final", "<|return|>")
            out.append(f"{head}<|channel|>{channel}<|message|>{value}{end}")
    return "".join(out)


def _functionary(messages: list[tuple[str, Any]]) -> str:
    head = [">>>" if i else "" for i in range(len(messages))]
    return "".join(
        f"{h}get_weather\n{json.dumps(v)}" if k == "call" else f"{h}all\n{v}"
        for h, (k, v) in zip(head, messages, strict=True)
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=_messages(HARMONY_FRAGMENTS))
def test_any_sequence_of_harmony_messages_reads_as_the_built_in_family_reads_it(
    messages: list[tuple[str, Any]],
) -> None:
    output = _harmony(messages)
    assert summary(output, derived("openai_gpt_oss_120b"), tools=TOOLS) == summary(output, "harmony", tools=TOOLS)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=_messages(FUNCTIONARY_FRAGMENTS))
@example(messages=[("text", "> >>>>{\n")])  # `>>>{`: a recipient starts as a name does, else it is text
@example(messages=[("text", ">>>>a\n ")])  # an undeclared recipient with a broken body: rejected by both
@example(messages=[("text", ">>>>a{\n")])  # `a{` is not a name: text, as functionary_v3 reads it
def test_any_sequence_of_functionary_messages_reads_as_the_built_in_family_reads_it(
    messages: list[tuple[str, Any]],
) -> None:
    output = _functionary([("text", v) if k == "reasoning" else (k, v) for k, v in messages])
    fmt = derived("meetkai_functionary_medium_v3_2")
    got, want = summary(output, fmt, tools=TOOLS), summary(output, "functionary_v3", tools=TOOLS)
    # Both reject the same calls; a call to an undeclared recipient with a broken body may be named
    # `malformed` by one and `unknown_tool` by the other (which check runs first): both fail closed.
    assert len(got.pop("rejected")) == len(want.pop("rejected"))
    assert got == want


# -- invented models: the same structure with markers no known model uses ---------------------------------

USER = [{"role": "user", "content": "go"}]
WORDS = st.text(st.characters(whitelist_categories=("L", "N"), whitelist_characters=" .,!?'"), min_size=1, max_size=40)
TEXT = WORDS.filter(lambda v: v == v.strip())
KEYS = st.from_regex(r"[a-z][a-z_]{0,9}", fullmatch=True)
ARGS = st.dictionaries(KEYS, TEXT, max_size=3)
NAMES = st.sampled_from(["get_weather", "lookup", "send_note"])


def _render(stem: str, turn: dict[str, Any]) -> str:
    renderer = Renderer((INVENTED / f"{stem}.jinja").read_text(encoding="utf-8"))
    prompt = renderer.render(messages=USER, add_generation_prompt=True)
    full = renderer.render(messages=[*USER, turn], add_generation_prompt=False)
    return full[common_prefix(prompt, full, Markers()) :]


def _turn(content: str, reasoning: str, tool_calls: list[tuple[str, dict[str, str]]]) -> dict[str, Any]:
    turn: dict[str, Any] = {"role": "assistant", "content": content, "reasoning_content": reasoning}
    if tool_calls:
        turn["tool_calls"] = [{"type": "function", "function": {"name": n, "arguments": a}} for n, a in tool_calls]
    return turn


@pytest.mark.parametrize(
    ("stem", "kind"),
    [("recipient_channels", "recipient"), ("recipient_primed", "recipient"), ("recipient_markup", "header")],
)
def test_invented_message_templates_derive_a_messages_declaration(stem: str, kind: str) -> None:
    decl = derive((INVENTED / f"{stem}.jinja").read_text(encoding="utf-8")).declaration
    assert decl.messages is not None and decl.messages.primed
    assert decl.call.name.kind == kind


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stem=st.sampled_from(["recipient_channels", "recipient_primed", "recipient_markup"]),
    content=st.one_of(st.just(""), TEXT),
    reasoning=st.one_of(st.just(""), TEXT),
    tool_calls=st.lists(st.tuples(NAMES, ARGS), max_size=2),
)
def test_what_an_invented_message_template_writes_comes_back_under_every_chunking(
    stem: str, content: str, reasoning: str, tool_calls: list[tuple[str, dict[str, str]]]
) -> None:
    derivation = derive((INVENTED / f"{stem}.jinja").read_text(encoding="utf-8"))
    if stem == "recipient_primed":
        reasoning = ""  # the template has no reasoning
    if not content and not tool_calls:
        content = "ok"
    output = _render(stem, _turn(content, reasoning, tool_calls))
    end = derivation.end_of_turn
    output = output[: output.index(end)] if end and end in output else output
    props = {"type": "object", "additionalProperties": {"type": "string"}}
    tools = [{"type": "function", "function": {"name": n, "parameters": props}} for n in ("get_weather", "lookup", "send_note")]  # fmt: skip
    got = summary(output, derivation.name, tools=tools)
    assert got == {"calls": tool_calls, "text": content, "reasoning": reasoning, "rejected": []}
