"""``--tools-in-prompt``: for upstreams that refuse ``tools`` (vLLM without a tool parser answers 400,
llama.cpp without ``--jinja`` 500), the request is rewritten so the model still knows its tools.

``tools``/``tool_choice``/``parallel_tool_calls`` are removed; the tool definitions and how to call them
go into the system prompt in a format the model knows (the first of its preset's formats that has a
renderer here, else hermes ``<tool_call>``, which the caller then adds to the parser's formats); earlier
assistant ``tool_calls`` become text in that format and ``tool`` messages become user messages, since
such upstreams' templates may not accept either. The wording is streamparse's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["rewrite_for_prompted_tools", "prompt_format"]


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _args(call: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    fn = call.get("function") if isinstance(call.get("function"), dict) else {}
    assert isinstance(fn, dict)
    raw = fn.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        args = {}
    return str(fn.get("name", "")), args if isinstance(args, dict) else {}


def _py(value: Any) -> str:
    return repr(value) if isinstance(value, str) else _dumps(value)


def _xml_value(value: Any) -> str:
    return value if isinstance(value, str) else _dumps(value)


@dataclass(frozen=True)
class _Style:
    example: str  # how one call looks, with placeholders the model reads as such
    call: Callable[[str, dict[str, Any]], str]
    result_open: str = "<tool_response>\n"
    result_close: str = "\n</tool_response>"


_STYLES: dict[str, _Style] = {
    "hermes": _Style(
        '<tool_call>\n{"name": "<function name>", "arguments": {<arguments as a JSON object>}}\n</tool_call>',
        lambda n, a: "<tool_call>\n" + _dumps({"name": n, "arguments": a}) + "\n</tool_call>",
    ),
    "qwen3_coder": _Style(
        "<tool_call>\n<function=FUNCTION_NAME>\n<parameter=PARAMETER_NAME>\nvalue\n</parameter>\n</function>\n</tool_call>",
        lambda n, a: (
            f"<tool_call>\n<function={n}>\n"
            + "".join(f"<parameter={k}>\n{_xml_value(v)}\n</parameter>\n" for k, v in a.items())
            + "</function>\n</tool_call>"
        ),
    ),
    "mistral": _Style(
        "[TOOL_CALLS]FUNCTION_NAME[ARGS]{<arguments as a JSON object>}",
        lambda n, a: f"[TOOL_CALLS]{n}[ARGS]{_dumps(a)}",
        "[TOOL_RESULTS]",
        "[/TOOL_RESULTS]",
    ),
    "llama3_json": _Style(
        '{"name": "<function name>", "parameters": {<arguments as a JSON object>}}',
        lambda n, a: _dumps({"name": n, "parameters": a}),
    ),
    "pythonic": _Style(
        "[function_name(param_name=value, ...)]",
        lambda n, a: "[" + n + "(" + ", ".join(f"{k}={_py(v)}" for k, v in a.items()) + ")]",
    ),
    "function_tag": _Style(
        "<function=FUNCTION_NAME>{<arguments as a JSON object>}</function>",
        lambda n, a: f"<function={n}>{_dumps(a)}</function>",
    ),
    "glm45": _Style(
        "<tool_call>FUNCTION_NAME\n<arg_key>PARAMETER_NAME</arg_key>\n<arg_value>value</arg_value>\n</tool_call>",
        lambda n, a: (
            f"<tool_call>{n}\n"
            + "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{_xml_value(v)}</arg_value>\n" for k, v in a.items())
            + "</tool_call>"
        ),
    ),
}


def prompt_format(formats: Sequence[str] | str) -> str:
    """The format the prompt teaches: the first of ``formats`` with a renderer, else ``"hermes"``."""
    if not isinstance(formats, str):
        for name in formats:
            if name in _STYLES:
                return name
    return "hermes"


def _instructions(tools: list[Any], style: _Style, tool_choice: Any) -> str:
    lines = "\n".join(_dumps(t) for t in tools)
    text = (
        "# Tools\n\nYou can call functions to answer. They are described in JSON Schema between <tools> and"
        f" </tools>:\n<tools>\n{lines}\n</tools>\n\nTo call a function, write exactly this, one per call:\n"
        f"{style.example}\nResults come back in a later message."
    )
    if tool_choice == "required":
        text += "\nYou must call at least one function."
    elif isinstance(tool_choice, dict):
        name = (tool_choice.get("function") or {}).get("name")
        if name:
            text += f"\nYou must call the function {name}."
    return text


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def rewrite_for_prompted_tools(body: dict[str, Any], fmt: str) -> dict[str, Any]:
    """A copy of the request ``body`` for an upstream without tool support (see the module docstring)."""
    style = _STYLES[fmt]
    out = {k: v for k, v in body.items() if k not in ("tools", "tool_choice", "parallel_tool_calls")}
    tools = body.get("tools") if isinstance(body.get("tools"), list) else []
    messages: list[Any] = []
    for msg in body.get("messages") or []:
        if not isinstance(msg, dict):
            messages.append(msg)
            continue
        if msg.get("role") == "assistant" and msg.get("tool_calls"):
            calls = "\n".join(style.call(*_args(c)) for c in msg["tool_calls"] if isinstance(c, dict))
            before = _text(msg.get("content"))
            messages.append({"role": "assistant", "content": (before + "\n" if before else "") + calls})
        elif msg.get("role") == "tool":
            result = style.result_open + _text(msg.get("content")) + style.result_close
            messages.append({"role": "user", "content": result})
        else:
            messages.append(msg)
    if tools and body.get("tool_choice") != "none":
        block = _instructions(tools, style, body.get("tool_choice"))
        if messages and isinstance(messages[0], dict) and messages[0].get("role") in ("system", "developer"):
            first = dict(messages[0])
            first["content"] = _text(first.get("content")) + "\n\n" + block
            messages[0] = first
        else:
            messages.insert(0, {"role": "system", "content": block})
    out["messages"] = messages
    return out
