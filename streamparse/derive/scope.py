"""Why a template's name is undefined when it renders: a macro that reads a variable of its caller.

Jinja's macros see the template's top-level names and their own parameters, never the variables of the
code that calls them (transformers renders with jinja2, so a template written for an engine whose macros
read their caller's scope cannot render there: MiroThinker's ``render_tool_call()`` reads ``message`` and
``tool``). The plain ``'tool' is undefined`` of jinja2 does not say that; :func:`caller_scope_hint` does,
so the derivation's error names the cause instead of only the symptom.
"""

from __future__ import annotations

import re

__all__ = ["caller_scope_hint"]

_UNDEFINED = re.compile(r"UndefinedError: '(?P<name>[^\W\d]\w*)' is undefined")
_MACRO = re.compile(
    r"\{%-?\s*macro\s+(?P<macro>\w+)\s*\((?P<params>[^)]*)\)\s*-?%\}(?P<body>.*?)\{%-?\s*endmacro\b", re.S
)
_LOOP_OR_SET = r"\{%%-?\s*(?:for\s+(?:\w+\s*,\s*)*%s\b[^%%]*\bin\b|set\s+%s\s*=)"


def caller_scope_hint(source: str, failure: str) -> str:
    """`` (why)`` when ``failure`` is jinja2's "'NAME' is undefined" for a name some macro of ``source``
    reads without taking it as a parameter, while the template binds it elsewhere (a ``for`` or ``set``
    outside the macro); else ``""``."""
    m = _UNDEFINED.search(failure)
    if m is None:
        return ""
    name = m.group("name")
    used = re.compile(r"(?<![\w.'\"])" + re.escape(name) + r"\b")
    readers: list[str] = []
    outside = source
    for macro in _MACRO.finditer(source):
        params = {p.split("=")[0].strip() for p in macro.group("params").split(",")}
        body = macro.group("body")
        if name not in params and used.search(_code(body)):
            readers.append(macro.group("macro"))
        outside = outside.replace(macro.group(0), "")
    bound = re.search(_LOOP_OR_SET % (re.escape(name), re.escape(name)), outside)
    if not readers or bound is None:
        return ""
    why = "jinja2's macros, as transformers renders, see no caller variables"
    return f" (the macro {readers[0]}() reads its caller's {name!r}: {why})"


def _code(body: str) -> str:
    """The Jinja code of a macro body (its ``{{ }}`` and ``{% %}`` tags), without the text between them."""
    return " ".join(re.findall(r"\{\{.*?\}\}|\{%.*?%\}", body, re.S))
