"""The turn to send back: a parse result as an assistant message, a rejection as a tool message a model can fix.

The agent loop's other half (what openai-python's ``get_final_completion()`` and LangChain's
``invalid_tool_calls`` give their users): :class:`~streamparse.ParseResult` and
:class:`~streamparse.ToolCallRejected` delegate here. A leaf under the events: it reads their attributes
and imports nothing from the package, so ``events.py`` can call it.

Ids: an accepted call keeps its ``ToolCall.id``; a rejected candidate has no id of its own (a rejection
before any ``ToolCallStart`` never had one), so it is named by its index, ``rejected_call_id(index)``,
the same in the assistant message and in its tool message, however often either is built.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeAlias

Style: TypeAlias = Literal["openai", "anthropic"]

_ANTHROPIC_ID = re.compile(r"[^A-Za-z0-9_-]")  # tool_use ids match ^[a-zA-Z0-9_-]+$
_NO_NAME = "invalid_tool_call"  # a candidate rejected before its name was read still needs a name in history


def rejected_call_id(index: int) -> str:
    """The id a rejected candidate with ``index`` carries in the assistant message and its tool message."""
    return f"call_rejected_{index}"


def anthropic_id(call_id: str) -> str:
    """``call_id`` as Anthropic accepts a ``tool_use`` id (e.g. Kimi's ``functions.f:0`` -> ``functions_f_0``)."""
    return _ANTHROPIC_ID.sub("_", call_id) or "call"


def finish_reason(accepted: bool, cut: bool, upstream: str | None = None) -> str:
    """The one rule every reader, writer and result follows: ``"tool_calls"`` when a call was accepted,
    ``"length"`` when the output was cut (the upstream said so, or a call was truncated), else the
    upstream's reason, else ``"stop"``."""
    if accepted:
        return "tool_calls"
    if cut or upstream == "length":
        return "length"
    return upstream or "stop"


def tool_names(tools: Any) -> list[str]:
    """The names in whatever ``tools=`` took (a ToolSet, names, OpenAI/Anthropic dicts, pydantic models,
    functions, a name -> schema mapping), for telling a model what it may call."""
    if tools is None:
        return []
    if isinstance(tools, Mapping):
        if "function" in tools or ("name" in tools and isinstance(tools.get("name"), str)):
            tools = [tools]
        else:
            return [str(k) for k in tools]
    names: list[str] = []
    for item in tools if isinstance(tools, Iterable) else [tools]:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, Mapping):
            fn = item.get("function")
            name = fn.get("name") if isinstance(fn, Mapping) else item.get("name")
            if isinstance(name, str):
                names.append(name)
        elif isinstance(getattr(item, "__name__", None), str):
            names.append(item.__name__)
    return names


def _offered(tools: Any) -> str:
    names = tool_names(tools)
    return ", ".join(names) if names else ""


def rejection_text(rejected: Any, tools: Any = None) -> str:
    """What went wrong with a rejected call, in words a model can act on: the schema path and what it
    expected, the unknown name and the names it may use."""
    name = rejected.name
    detail = rejected.detail or ""
    reason = rejected.reason
    offered = _offered(tools)
    call = f"the call to {name}" if name else "the tool call"
    if reason == "unknown_tool":
        text = f"Error: there is no tool named {name!r}."
        if offered:
            text += f" The tools you can call are: {offered}."
        return text + " Call one of them by its exact name, or answer without a tool."
    if reason == "schema_violation":
        where, _, what = detail.partition(": ")
        if what:
            where = "the arguments" if where == "$" else f"argument {where.removeprefix('$.')}"
            problem = f"at {where}: {what}"
        else:
            problem = detail or "the arguments do not match the tool's parameters"
        return (
            f"Error: {call} was not run because its arguments do not match the tool's parameters ({problem})."
            f" Call {name or 'the tool'} again with corrected arguments."
        )
    if reason == "truncated":
        return f"Error: {call} was cut off before it was complete, so it was not run. Write the whole call again."
    if reason == "too_large":
        return f"Error: {call} was not run: it grew past the size limit ({detail}). Make the arguments shorter."
    if reason == "ambiguous":
        return f"Error: {call} was not run: it was not clearly a tool call ({detail}). Write exactly one call."
    if name is None:
        text = "Error: a tool call was not run: it has no tool name."
        if offered:
            text += f" The tools you can call are: {offered}."
        return text + " Write the call again with the tool's name and JSON arguments."
    why = f" ({detail})" if detail else ""
    return f"Error: {call} could not be read, so it was not run{why}. Write it again with valid JSON arguments."


def tool_message(rejected: Any, style: Style = "openai", tools: Any = None) -> dict[str, Any]:
    """An OpenAI ``role: "tool"`` message, or an Anthropic ``tool_result`` block with ``is_error``,
    answering the rejected call ``rejected`` (its id as :func:`assistant_message` wrote it)."""
    call_id = rejected_call_id(rejected.index)
    text = rejection_text(rejected, tools)
    if style == "anthropic":
        return {"type": "tool_result", "tool_use_id": anthropic_id(call_id), "content": text, "is_error": True}
    if style != "openai":
        raise ValueError(f"style must be 'openai' or 'anthropic', not {style!r}")
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def _rejected_arguments(rejected: Any, snapshots: Iterable[Any]) -> str:
    """Valid JSON for a rejected call's arguments (servers parse the history's arguments): the complete
    arguments of a schema violation, else what had streamed, else ``{}``."""
    if rejected.arguments is not None:
        try:
            json.loads(rejected.arguments)
            return str(rejected.arguments)
        except ValueError:
            pass
    for snap in snapshots:
        if snap.index == rejected.index:
            return json.dumps(snap.arguments, ensure_ascii=False)
    return "{}"


def _entries(result: Any, include_rejected: bool) -> list[tuple[str, str, str, dict[str, Any] | None]]:
    """(id, name, arguments JSON, arguments object) of every call to put in the message, in the order the
    calls ended (the events' order; accepted then rejected for a result built without events)."""
    ended = [ev for ev in result.events if getattr(ev, "type", None) in ("tool_call_end", "tool_call_rejected")]
    if not ended:
        ended = [*result.tool_calls, *result.rejected]
    out: list[tuple[str, str, str, dict[str, Any] | None]] = []
    for item in ended:
        call = getattr(item, "call", item)  # a ToolCallEnd's call, or a ToolCall
        if getattr(call, "arguments_json", None) is not None:
            out.append((call.id, call.name, call.arguments_json, call.arguments))
        elif include_rejected:
            args = _rejected_arguments(item, result.snapshots)
            out.append((rejected_call_id(item.index), item.name or _NO_NAME, args, None))
    return out


def assistant_message(
    result: Any, reasoning_field: str | None = "reasoning_content", include_rejected: bool = True
) -> dict[str, Any]:
    """The OpenAI chat ``assistant`` message of a parse result (see ``ParseResult.to_openai_message``)."""
    entries = _entries(result, include_rejected)
    message: dict[str, Any] = {"role": "assistant", "content": result.text or (None if entries else "")}
    if result.reasoning and reasoning_field:
        message[reasoning_field] = result.reasoning
    if entries:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
            for call_id, name, args, _ in entries
        ]
    return message


def anthropic_message(result: Any, include_thinking: bool = True, include_rejected: bool = True) -> dict[str, Any]:
    """The Anthropic Messages ``assistant`` turn of a parse result (see ``ParseResult.to_anthropic_message``)."""
    content: list[dict[str, Any]] = []
    if result.reasoning and include_thinking:
        content.append({"type": "thinking", "thinking": result.reasoning})
    if result.text:
        content.append({"type": "text", "text": result.text})
    for call_id, name, args_json, args in _entries(result, include_rejected):
        if args is None:
            try:
                value = json.loads(args_json)
            except ValueError:
                value = None
            args = value if isinstance(value, dict) else {}
        content.append({"type": "tool_use", "id": anthropic_id(call_id), "name": name, "input": args})
    return {"role": "assistant", "content": content}
