"""Zero-config: derive a model's format from its own chat template (issue 18).

:func:`derive` renders probe conversations through the template in a bounded sandbox
(:mod:`.render`, as ``transformers`` renders), compares the renders (:mod:`.probes`, :mod:`.analyze`,
:mod:`.calls`) and returns a :class:`Derivation`: a :class:`~streamparse.formats.Declaration` in the same
vocabulary as the built-in formats, registered in the catalog under a name derived from its content,
and checked against the template's own renders (:mod:`.verify`). A template that cannot be analysed
raises :class:`DeriveError` naming the part that could not be derived. Results are cached per template
text, special tokens and template options.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import formats
from ..formats import Declaration
from .analyze import Analysis, analyse
from .calls import DeriveError
from .probes import PROBES, ProbeError, Probes, run_probes
from .render import Limits, Renderer, RenderError
from .text import Markers
from .verify import Check, check_probe, checker, sample_output

__all__ = ["Derivation", "DeriveError", "RenderError", "derive", "Limits", "clear_cache"]

CORE_PROBES = ("text", "call", "call2", "args2", "noargs", "text_call")
"""Probes whose failure makes the derivation fail (a wrong parse would be silent otherwise)."""


@dataclass(frozen=True, slots=True)
class Derivation:
    """What :func:`derive` found: the declaration (registered under ``name``), the checks and samples."""

    name: str
    declaration: Declaration
    primed: bool
    """The generation prompt (with the options given) leaves the output inside reasoning."""
    checks: tuple[Check, ...]
    samples: Mapping[str, str]
    """Each probe's model output, as parsed by the checks (a sample round trip for users)."""
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default=())
    end_of_turn: str = ""
    """What ends the model's turn in the renders (a server stops there; the parser drops it as control)."""
    arguments_as_string: bool = False
    """The template renders calls whose arguments are a JSON string (OpenAI's wire form), not a mapping."""
    call_ids: bool = False
    """The template requires call ids (nine alphanumerics satisfied it)."""
    flat_tools: bool = False
    """The template reads the tool list without OpenAI's ``function`` envelope."""
    calls_after_end: bool = False
    """Calls come as messages of their own after the end-of-turn marker (GigaChat 3)."""
    flat_calls: bool = False
    """The template reads a call's name and arguments without OpenAI's ``function`` envelope."""
    template_variables: Mapping[str, Any] = field(default_factory=dict)
    """Variables beyond transformers' the template needed to render (firefunction-v2's ``functions``)."""


_CACHE: dict[str, Derivation] = {}


def clear_cache(*, unregister: bool = False) -> None:
    """Forget cached derivations; with ``unregister``, also remove their formats from the catalog."""
    if unregister:
        for name in {d.name for d in _CACHE.values()}:
            if name in formats.names():
                formats.unregister(name)
    _CACHE.clear()


def _key(template: str, tokens: Iterable[str], options: Mapping[str, Any]) -> str:
    h = hashlib.sha256(template.encode("utf-8"))
    h.update(json.dumps([sorted(set(tokens)), dict(options)], sort_keys=True, default=str).encode("utf-8"))
    return h.hexdigest()


def _register(decl: Declaration) -> tuple[Declaration, bool]:
    """Register under a name fixed by the content, so equal derivations share one catalog entry; and
    whether this call added it."""
    digest = hashlib.sha256(json.dumps(decl.to_dict(), sort_keys=True).encode("utf-8")).hexdigest()[:12]
    decl = dataclasses.replace(decl, name=f"derived_{digest}")
    if decl.name in formats.names():
        return decl, False
    formats.register(decl)
    return decl, True


def derive(
    template: str,
    *,
    special_tokens: Iterable[str] | Mapping[str, Any] | None = None,
    chat_template_kwargs: Mapping[str, Any] | None = None,
    name: str | None = None,
    limits: Limits | None = None,
) -> Derivation:
    """Derive the format of the model whose chat template is ``template``.

    ``special_tokens``: the tokenizer's special tokens (strings; a ``tokenizer_config.json``-style
    mapping of ``bos_token`` / ``eos_token`` / ``additional_special_tokens`` also works): marker
    boundaries never cut one. ``chat_template_kwargs``: the template options the server renders with
    (``enable_thinking=False`` decides whether the output starts in reasoning). ``name``: the name the
    declaration carries in :attr:`Derivation.declaration` (the catalog entry is content-addressed).
    Raises :class:`DeriveError` (a :class:`ValueError`) naming what could not be derived.
    """
    tokens, variables = _tokens(special_tokens)
    options = dict(chat_template_kwargs or {})
    key = _key(template, tokens, options)
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = _derive(template, tokens, variables, options, limits)
    if name:
        return dataclasses.replace(found, declaration=dataclasses.replace(found.declaration, name=name))
    return found


def _tokens(special: Iterable[str] | Mapping[str, Any] | None) -> tuple[list[str], dict[str, str]]:
    """Special-token strings, and the ``bos_token`` / ``eos_token`` the template reads."""
    if special is None:
        return [], {}
    if not isinstance(special, Mapping):
        return [str(t) for t in special], {}
    tokens: list[str] = []
    variables: dict[str, str] = {}

    def text(value: Any) -> str:
        return str(value.get("content", "")) if isinstance(value, Mapping) else str(value or "")

    for k, v in special.items():
        if k.endswith("_token") and text(v):
            variables[k] = text(v)
            tokens.append(text(v))
        elif k == "additional_special_tokens" and isinstance(v, list):
            tokens += [text(t) for t in v if text(t)]
        elif k == "added_tokens_decoder" and isinstance(v, Mapping):
            tokens += [text(t) for t in v.values() if isinstance(t, Mapping) and t.get("special") and text(t)]
    return tokens, variables


def _derive(
    template: str, tokens: list[str], variables: dict[str, str], options: dict[str, Any], limits: Limits | None
) -> Derivation:
    markers = Markers(tokens)
    try:
        renderer = Renderer(template, limits=limits)
        probes: Probes = run_probes(renderer, markers, variables, options)
    except (RenderError, ProbeError) as exc:
        raise DeriveError(str(exc)) from exc
    try:
        analysis: Analysis = analyse(probes, markers, "derived")
    except DeriveError:
        raise
    except ValueError as exc:  # parts that do not form a valid declaration: named, never a crash
        raise DeriveError(f"the derived parts do not form a valid declaration: {exc}") from exc
    thinking_off = options.get("enable_thinking") is False or options.get("thinking") is False
    primed = analysis.primed_off if thinking_off else analysis.primed_on
    close = analysis.declaration.reasoning[0].close if analysis.declaration.reasoning else None
    samples = {
        probe.id: sample_output(
            probes.gen[probe.id],
            analysis.end_of_turn,
            analysis.primed_on,
            close,
            [n for n, _ in probe.calls] if analysis.calls_after_end else [],
        )
        for probe in PROBES
        if probe.id in probes.gen
    }
    # The one-call sample is the format's example (``streamparse formats``, ``describe``).
    decl, added = _register(dataclasses.replace(analysis.declaration, example=samples["call"]))
    config = checker(decl.name, primed=analysis.primed_on)
    checks = [check_probe(config, probe, samples[probe.id]) for probe in PROBES if probe.id in samples]
    failed = [c for c in checks if not c.ok and c.probe in CORE_PROBES]
    if failed:
        if added:  # a format that does not read its own template back is not left in the catalog
            formats.unregister(decl.name)
        why = "; ".join(f"{c.probe}: {c.detail}" for c in failed)
        raise DeriveError(f"the derived format does not read the template's own renders back ({why})")
    warnings = tuple(f"{c.probe}: {c.detail}" for c in checks if not c.ok)
    return Derivation(
        decl.name,
        decl,
        primed,
        tuple(checks),
        samples,
        tuple(analysis.notes),
        warnings,
        analysis.end_of_turn,
        probes.args_as_string,
        probes.with_ids,
        probes.flat_tools,
        analysis.calls_after_end,
        probes.flat_calls,
        dict(probes.extras),
    )
