"""One text value of a tagged argument, streamed into the arguments JSON (the text-value rule).

Values are text, typed by the tool's schema when complete (see "Typing of text-valued parameters" in
docs/FORMATS.md); strings stream fragment by fragment.
"""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring  # the C string escaper json.dumps uses
from typing import Any, Final

from ..core.engine import Engine
from ..core.json_reader import dump_json
from .coerce import coerce_text_value, fit_json_value, streams_as_string

_ESCAPE: Final = re.compile(r'\\(["\\/nrt])')
_UNESCAPED: Final = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/"}


def _unescape(m: re.Match[str]) -> str:
    return _UNESCAPED[m.group(1)]


class ValueWriter:
    """Streams one text value into the arguments JSON (text-value rule): drop one leading and one trailing newline
    (the Qwen3-Coder template wraps values in them), keep every character (``verbatim``) or strip the value
    (``trim``); strings stream fragment by fragment, other types are coerced by the schema when complete."""

    __slots__ = (
        "eng", "schema", "stream", "first", "held_nl", "parts", "raw_json", "trim", "held_ws", "escaped", "held_bs",
        "verbatim", "python", "nl_end", "key", "deferred", "result",
    )  # fmt: skip

    def __init__(
        self,
        eng: Engine,
        key: str,
        first_key: bool,
        raw_json: bool | None,
        trim: bool = False,
        escaped: bool = False,
        verbatim: bool = False,
        python: bool = False,
        deferred: bool = False,
    ) -> None:
        self.eng = eng
        self.python = python  # raw values are Python reprs: ``None`` is null too
        self.key = key
        self.deferred = deferred  # a possible wrapper parameter: its value is kept, not sent (TagCallState)
        self.result: Any = None
        self.trim = trim
        self.held_ws = ""
        self.escaped = escaped  # the whole call was JSON-escaped once (GLM-4.6): values are unescaped
        self.held_bs = ""  # a trailing backslash whose escape is not complete yet
        call = eng.call
        tools = eng.cfg.tools
        self.schema = None
        if tools is not None and call is not None and call.name is not None and call.name in tools:
            self.schema = tools.property_schema(call.name, key)
        self.raw_json = raw_json  # DSML string="false": the value is JSON; "true": raw text
        # DSML string="true" is text, typed by the schema like any text value (a model writes string="true"
        # for `42` where the schema says integer; vLLM's DSML parser types it too).
        self.stream = not raw_json and not deferred and streams_as_string(self.schema)
        self.first = not verbatim  # verbatim: no leading newline to drop
        self.held_nl = False
        self.verbatim = verbatim
        self.parts: list[str] = []
        self.nl_end = False  # the text written so far ends with a newline (the fast paths never take one)
        if not deferred:
            eng.args(member(key, first_key) + ('"' if self.stream else ""))

    def write(self, text: str) -> None:
        if text:
            self.nl_end = text[-1] == "\n"
        if self.escaped:
            text = self.held_bs + text
            run = len(text) - len(text.rstrip("\\"))
            self.held_bs = "\\" if run % 2 else ""
            if run % 2:
                text = text[:-1]
            text = _ESCAPE.sub(_unescape, text)
        if not text:
            return
        if self.trim:
            # Leading whitespace is dropped; trailing whitespace waits until more text follows it.
            text = text.lstrip() if self.first else self.held_ws + text
            body = text.rstrip()
            self.held_ws = text[len(body) :]
            if not body:
                return
            self.first = False
            text = body
        elif self.first:
            self.first = False
            if text[0] == "\n":
                text = text[1:]
        if self.held_nl:
            text = "\n" + text
            self.held_nl = False
        if text.endswith("\n") and not self.verbatim:
            text = text[:-1]
            self.held_nl = True
        if not text:
            return
        if self.stream:
            self.eng.args(encode_basestring(text)[1:-1])
        elif not (self.eng.call is not None and self.eng.call.closed):  # too_large: buffer nothing more
            self.parts.append(text)

    def finish(self) -> None:
        if self.held_bs:  # a lone backslash at the end of the value is itself
            self.escaped, self.held_bs = False, ""
            self.write("\\")
        if self.stream:
            self.eng.args('"')
            return
        raw = "".join(self.parts)
        value: Any
        if self.raw_json:
            try:
                value = fit_json_value(json.loads(raw), raw, self.schema)
            except ValueError:
                value = coerce_text_value(raw, self.schema, self.python)
        else:
            value = coerce_text_value(raw, self.schema, self.python)
        if self.deferred:
            self.result = value
            return
        self.eng.args(dump_json(value))


def member(key: str, first: bool) -> str:
    """The JSON text that opens the member ``key`` of the arguments object."""
    return ("{" if first else ", ") + dump_json(key) + ": "
