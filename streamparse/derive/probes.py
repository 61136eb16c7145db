"""Probe conversations rendered through a chat template, and what the model's part of each turn is.

Every probe is one assistant turn after the same user message: only text, text with reasoning, one call,
two calls, two arguments, one argument of every JSON type, a call without arguments, text before a call,
reasoning before a call. Names, keys and values are sentinels (``zqfirst``, ``zqk_alpha``, ``ZQV_ONE``)
that occur nowhere else, so finding them in a render is unambiguous.

What the model generates for a turn is the rendered conversation minus the rendered generation prompt:
the longest common prefix of the two (never cutting a marker) is the prompt, the rest of the turn is the
output, and what the prompt has past that prefix (``<think>`` the turn does not repeat) is the prompt's tail.

A call is offered to the template in the shapes templates expect, tried in order until one renders the
sentinels: arguments as a mapping or as a JSON string (OpenAI's wire form), without or with an ``id``
(nine alphanumerics, the strictest rule seen).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .render import BoundError, Renderer, RenderError
from .scope import caller_scope_hint
from .text import Markers, common_prefix

__all__ = [
    "Probe",
    "Probes",
    "ProbeError",
    "PROBES",
    "TOOLS",
    "CHECK_TOOLS",
    "TYPED",
    "run_probes",
    "THINKING_ON",
    "THINKING_OFF",
    "ESCAPED",
    "ESC",
    "QUOTED",
    "QUOTED_VALUE",
]

USER = "ZQ_USER_ASKS"
CONTENT = "ZQ_CONTENT_TEXT"
REASONING = "ZQ_REASONING_TEXT"
ONE = {"zqk_alpha": "ZQV_ONE"}
TWO = {"zqk_beta": "ZQV_TWO"}
BOTH = {"zqk_alpha": "ZQV_ONE", "zqk_beta": "ZQV_TWO"}
TYPED: dict[str, Any] = {
    "zqt_s": "ZQV_S",
    "zqt_i": 7391,
    "zqt_f": 2.75,
    "zqt_b": True,
    "zqt_n": None,
    "zqt_a": ["ZQV_A", "ZQV_B"],
    "zqt_o": {"zqt_k": "ZQV_O"},
}
ESC = '&<>"'
THINKING_ON: dict[str, Any] = {"enable_thinking": True, "thinking": True}
THINKING_OFF: dict[str, Any] = {"enable_thinking": False, "thinking": False}


def _tool(name: str, props: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"Probe tool {name}.",
            "parameters": {"type": "object", "properties": props, "required": list(props) if required else []},
        },
    }


_S = {"type": "string", "description": "a text"}
TOOLS: list[dict[str, Any]] = [
    _tool("zqfirst", {"zqk_alpha": _S, "zqk_beta": _S}, required=False),
    _tool("zqsecond", {"zqk_beta": _S}),
    _tool("zqthird", {}),
    _tool(
        "zqtyped",
        {
            "zqt_s": _S,
            "zqt_i": {"type": "integer", "description": "an integer"},
            "zqt_f": {"type": "number", "description": "a number"},
            "zqt_b": {"type": "boolean", "description": "a flag"},
            "zqt_n": {"description": "nothing"},  # no "type": Hermes recurses on "null"
            "zqt_a": {"type": "array", "items": {"type": "string"}, "description": "a list"},
            # additionalProperties: Command R+ turns every object schema into Dict[str, <its type>]
            "zqt_o": {"type": "object", "description": "an object", "additionalProperties": {"type": "string"}},
        },
    ),
]


# The parser reads values by the schema; the templates get "zqt_n" untyped (see above), the checks typed.
CHECK_TOOLS: list[dict[str, Any]] = [
    _tool("zqfirst", {"zqk_alpha": _S, "zqk_beta": _S}, required=False),
    *TOOLS[1:3],
    _tool("zqtyped", {**TOOLS[3]["function"]["parameters"]["properties"], "zqt_n": {"type": "null"}}),
]


@dataclass(frozen=True, slots=True)
class Probe:
    """One assistant turn: ``calls`` as (name, arguments)."""

    id: str
    content: str = ""
    reasoning: str = ""
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()


PROBES: tuple[Probe, ...] = (
    Probe("text", content=CONTENT),
    Probe("reasoning", content=CONTENT, reasoning=REASONING),
    Probe("call", calls=(("zqfirst", ONE),)),
    Probe("call2", calls=(("zqfirst", ONE), ("zqsecond", TWO))),
    Probe("args2", calls=(("zqfirst", BOTH),)),
    Probe("typed", calls=(("zqtyped", TYPED),)),
    Probe("noargs", calls=(("zqthird", {}),)),
    Probe("text_call", content=CONTENT, calls=(("zqfirst", ONE),)),
    Probe("reasoning_call", reasoning=REASONING, calls=(("zqfirst", ONE),)),
)


ESCAPED = Probe("escaped", calls=(("zqn_e" + ESC, {"zqk_e" + ESC: "ZQV_E" + ESC}),))
"""Analysed only (how a name, key or value with ``& < > "`` is written), not read back: no tool has it."""

QUOTED_VALUE = "ZQ'V\\nQ"
QUOTED = Probe("quoted", calls=(("zqfirst", {"zqk_alpha": QUOTED_VALUE}),))
"""Analysed only, and rendered only for calls written as Python call expressions (``zqfirst(``): whether a
string argument holding a quote and a backslash is written as it is or as a Python literal."""


class ProbeError(Exception):
    """The template cannot render the probes (it raises, or renders no tool calls)."""


@dataclass(slots=True)
class Probes:
    """The renders: ``gen[probe id]`` is the model's part of that turn; ``failed`` the probes that raised."""

    gen: dict[str, str] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    prompt_on: str = ""
    prompt_off: str = ""
    tail_on: str = ""
    tail_off: str = ""
    args_as_string: bool = False
    with_ids: bool = False
    flat_tools: bool = False
    """The template reads tools without OpenAI's ``{"type": "function", "function": ...}`` envelope."""
    flat_calls: bool = False
    """The template reads a call's ``name`` and ``arguments`` without the ``function`` envelope (Command R+)."""
    extras: dict[str, Any] = field(default_factory=dict)
    """Other variables the template reads (:data:`CONVENTIONAL`), when it renders only with them."""
    escaped: str | None = None
    """The :data:`ESCAPED` probe's turn (None when the template refuses it)."""
    quoted: str | None = None
    """The :data:`QUOTED` probe's turn, for Python call expressions only (None otherwise, or refused)."""


def _call(name: str, args: dict[str, Any], index: int, as_string: bool, with_id: bool, flat: bool) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(args, ensure_ascii=False) if as_string else args}
    call: dict[str, Any] = dict(function) if flat else {"type": "function", "function": function}
    if with_id:
        call["id"] = f"zqid{index:05d}"
    return call


def _turn(probe: Probe, as_string: bool, with_id: bool, flat: bool) -> dict[str, Any]:
    turn: dict[str, Any] = {"role": "assistant", "content": probe.content}
    if probe.calls:
        turn["tool_calls"] = [_call(n, a, i + 1, as_string, with_id, flat) for i, (n, a) in enumerate(probe.calls)]
    if probe.reasoning:
        for key in ("reasoning_content", "reasoning", "thinking"):
            turn[key] = probe.reasoning
    return turn


FLAT_TOOLS: list[dict[str, Any]] = [t["function"] for t in TOOLS]
"""The tool list without OpenAI's ``{"type": "function", "function": ...}`` envelope (Apertus reads it so)."""
CONVENTIONAL: dict[str, Any] = {"functions": json.dumps(FLAT_TOOLS, indent=2), "datetime": "01 Jan 2026"}
"""Variables some templates read beyond transformers' (firefunction-v2: the tools as JSON text and today's
date, as llama.cpp passes them); offered only to a template that does not render without them."""


def _variables(
    kwargs: dict[str, Any], special: dict[str, str], tools: list[dict[str, Any]], extras: dict[str, Any]
) -> dict[str, Any]:
    return {
        **extras,
        "tools": tools,
        "bos_token": special.get("bos_token", ""),
        "eos_token": special.get("eos_token", ""),
        **kwargs,
    }


def _renders_call(gen: str) -> bool:
    """The one-call probe shows its name and value, and the arguments are not a Python dict's repr."""
    return "zqfirst" in gen and "ZQV_ONE" in gen and "'zqk_alpha'" not in gen


def run_probes(
    renderer: Renderer, markers: Markers, special: dict[str, str], kwargs: dict[str, Any] | None = None
) -> Probes:
    """Render every probe; raises ProbeError when no call shape renders the one-call probe."""
    # Turns are analysed with thinking on (reasoning shows); the thinking-off prompt says what changes then.
    on = {**(kwargs or {}), **THINKING_ON}
    off = {**(kwargs or {}), **THINKING_OFF}
    user = [{"role": "user", "content": USER}]
    out = Probes()
    failure = ""
    for tools, extras in ((TOOLS, {}), (FLAT_TOOLS, {}), (TOOLS, CONVENTIONAL)):
        try:
            out.prompt_on = renderer.render(
                messages=user, add_generation_prompt=True, **_variables(on, special, tools, extras)
            )
            out.prompt_off = renderer.render(
                messages=user, add_generation_prompt=True, **_variables(off, special, tools, extras)
            )
        except BoundError as exc:
            raise ProbeError(str(exc)) from exc
        except RenderError as exc:
            failure = failure or str(exc)
            continue
        out.flat_tools, out.extras = tools is FLAT_TOOLS, extras
        break
    else:
        hint = caller_scope_hint(renderer.source, failure)
        raise ProbeError(f"the template cannot render a generation prompt: {failure}{hint}")

    def generated(probe: Probe, as_string: bool, with_id: bool, flat: bool) -> str:
        """The assistant turn ``probe`` renders to (RenderError: the template refuses it; a bound hit is
        the derivation's failure, ProbeError)."""
        try:
            full = renderer.render(
                messages=[*user, _turn(probe, as_string, with_id, flat)],
                add_generation_prompt=False,
                **_variables(on, special, tools, extras),
            )
            n = common_prefix(out.prompt_on, full, markers)
        except BoundError as exc:
            raise ProbeError(str(exc)) from exc
        return full[n:]

    def optional(probe: Probe) -> str | None:
        """``probe`` in the call shape found, or None when the template refuses it."""
        try:
            return generated(probe, out.args_as_string, out.with_ids, out.flat_calls)
        except RenderError:
            return None

    errors: list[str] = []
    # OpenAI's call shape first; a call without the ``function`` envelope last (Command R+ reads that).
    shapes = [(s, i, False) for s in (False, True) for i in (False, True)] + [(False, False, True), (False, True, True)]
    for as_string, with_id, flat in shapes:
        try:
            first = generated(PROBES[2], as_string, with_id, flat)
        except RenderError as exc:
            errors.append(str(exc))
            continue
        if _renders_call(first):
            out.args_as_string, out.with_ids, out.flat_calls = as_string, with_id, flat
            break
        errors.append("the rendered turn shows no call")
    else:
        why = "; ".join(dict.fromkeys(errors)) or "no call in the render"
        why += next(filter(None, (caller_scope_hint(renderer.source, e) for e in errors)), "")
        raise ProbeError(f"the template renders no tool calls for an assistant turn ({why})")
    for probe in PROBES:
        if probe is PROBES[2]:
            out.gen[probe.id] = first  # rendered already, in the shape that showed the call
            continue
        try:
            out.gen[probe.id] = generated(probe, out.args_as_string, out.with_ids, out.flat_calls)
        except RenderError as exc:
            out.failed[probe.id] = str(exc)
    out.escaped = optional(ESCAPED)
    if "zqfirst(" in first:  # a Python call expression: how its string arguments are quoted decides the reading
        out.quoted = optional(QUOTED)
    n_on = common_prefix(out.prompt_on, out.prompt_on + out.gen.get("text", ""), markers)
    out.tail_on = out.prompt_on[n_on:]
    # The thinking-off prompt against the thinking-on one: what switching thinking off adds to the prompt.
    n_off = common_prefix(out.prompt_on, out.prompt_off, markers)
    out.tail_off = out.prompt_off[n_off:]
    return out
