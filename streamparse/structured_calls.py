"""The checks a call the server already structured (``StreamParser.open_call`` ... ``close_call``) passes
at its end: the same as a parsed call's (core/calls.py ``end_call``), on the arguments as the server wrote
them (no lenient typing, no repairs)."""

from __future__ import annotations

import json

from .core.calls import Candidate, instantiate
from .events import ToolCall, Validation
from .tools import ToolSet

__all__ = ["verdict"]


def verdict(
    tools: ToolSet | None, cand: Candidate, args_json: str, cut: bool
) -> ToolCall | tuple[str, str, str | None]:
    """A :class:`ToolCall`, or why not: ``(reason, detail, the arguments to report or None)``."""
    if cut:
        return "truncated", "the stream ended inside the call", None
    try:
        args = json.loads(args_json)
    except (ValueError, RecursionError) as exc:
        return "malformed", f"arguments are not valid JSON: {exc}", None
    if not isinstance(args, dict):
        return "malformed", "arguments are not a JSON object", None
    parsed, name = None, cand.name or ""
    if tools is not None:
        problem = tools.validate(name, args)
        if problem is None:
            parsed, problem = instantiate(tools.model_for(name), args)
        if problem is not None:
            return "schema_violation", problem, args_json
    validation: Validation = "skipped" if tools is None else "pass"
    return ToolCall(cand.id or "", name, args, args_json, cand.format, args_json, False, [], validation, parsed)
