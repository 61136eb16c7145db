"""streamparse as an SGLang function-call detector (SGLang 0.5.23 ``BaseFormatDetector``).

Importing this module adds ``streamparse`` (every format, ``auto``) and ``streamparse_<format>`` for
every canonical format to ``FunctionCallParser.ToolCallParserEnum``, the map SGLang selects a
detector from by its ``--tool-call-parser`` name (the CLI takes its choices from that map once the
module is loaded). SGLang has no plugin entry point, so the server is started through this module::

    python -m streamparse.integrations.sglang --model-path ... --tool-call-parser streamparse_hermes

which registers the names and then runs ``sglang.launch_server`` with the same arguments.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from collections.abc import Callable
from typing import Any, Literal

from sglang.srt.entrypoints.openai.protocol import ToolChoice
from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, StructureInfo, ToolCallItem
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from xgrammar import StructuralTag

from streamparse import StreamParser, formats
from streamparse.formats import Declaration
from streamparse.formats.declaration import HeaderName, JsonArgs, JsonName

from .session import Piece, RequestSession, split, tool_specs
from .structural import Choice, Tool, declaration_for, format_tag, has_tag
from .templates import TEMPLATE_ENV, template_from_argv, template_options

__all__ = ["StreamparseDetector", "register", "DETECTORS", "detector_for", "main"]

PREFIX = "streamparse"


def _result(piece: Piece | None) -> StreamingParseResult:
    if piece is None:
        return StreamingParseResult()
    calls: list[ToolCallItem] = []
    for c in piece.calls:
        # SGLang's shape: a call's first item carries its name and no parameters; fragments follow, nameless.
        if c.name is not None:
            calls.append(ToolCallItem(tool_index=c.index, name=c.name, parameters=""))
        if c.arguments:
            calls.append(ToolCallItem(tool_index=c.index, name=None, parameters=c.arguments))
    return StreamingParseResult(normal_text=_text(piece), calls=calls)


def _text(piece: Piece) -> str:
    # SGLang's StreamingParseResult has no reasoning field: reasoning is SGLang's reasoning parser's job,
    # and text that reaches a detector is content.
    return piece.reasoning + piece.content


# Formats whose SGLang detectors send nothing of a call until it is complete, not a name item and argument
# fragments: Python-style calls and MiniCPM's XML as one item (name and all its parameters), DeepSeek V3's
# and Mistral's as a name item and one item of whole arguments.
WHOLE_CALLS = frozenset({"pythonic", "minicpm5"})
WHOLE_ARGUMENTS = frozenset({"deepseek_v3", "mistral"})
KEEPS_SPACE = frozenset({"llama3_json", "gemma4"})
# SGLang's API has no rejection: its detectors hand a rejected call's markup back as text (never executed),
# except Mistral's, which drops it.
DROPS_REJECTED = frozenset({"mistral"})
# Formats whose SGLang detectors drop a call whose arguments are not an object (GigaChat's templates write only
# objects): stricter than the adapters' policy of handing them on, so the engine's way is kept.
REJECTS_NON_OBJECT = frozenset({"gigachat3"})
# Formats whose SGLang detectors reject a parameter name the tool does not declare (names are case-sensitive).
CLOSED_PARAMETERS = frozenset({"minicpm5"})


def _openers(fmt: str) -> tuple[str, ...]:
    """The markers that begin this format's calls (its section's, if it has one), from its declaration; the
    layout after a line break is left out (a writer's ``<tool_call>\n<function=`` begins at ``<tool_call>``)."""
    decl = declaration_for(fmt)
    if decl is None:
        return ()
    found = (decl.section.open, *decl.section.also_open) if decl.section else (decl.call.open, *decl.call.also_open)
    return tuple(o.split("\n")[0] for o in found if o.split("\n")[0])


class StreamparseDetector(BaseFormatDetector):
    """A ``BaseFormatDetector`` backed by one StreamParser per detector (SGLang makes one per request)."""

    format_names: tuple[str, ...] | None = None
    """The formats to parse; ``None``: every format (``auto``)."""

    def __init__(self) -> None:
        super().__init__()
        self._session: RequestSession | None = None
        self._whole_sent = 0  # whole-call formats: how many accepted calls were sent

    def _parser(self, tools: Any) -> StreamParser:
        names: Any = list(self.format_names) if self.format_names else "auto"
        # Same engine policy as the vLLM adapter (docs/integrations.md).
        # The request's parameter schemas go with the names: they type the values of string-valued formats.
        options: dict[str, Any] = {
            "tools": _closed(tool_specs(tools))
            if CLOSED_PARAMETERS.intersection(self.format_names or ())
            else tool_specs(tools),
            "calls_in_reasoning": "promote",
            "non_object_args": "reject" if REJECTS_NON_OBJECT.intersection(self.format_names or ()) else "pass",
            "separators": "keep",  # the engine's contract: content as its own detectors hand it on
        }
        if names == "auto" and os.environ.get(TEMPLATE_ENV):  # the served template (see main): zero-config
            return StreamParser.for_model("", **template_options(), **options)
        return StreamParser(names, **options)

    def has_tool_call(self, text: str) -> bool:
        """Whether ``text`` holds this format's call markup, as SGLang's detectors answer it (SGLang then
        parses it with :meth:`detect_and_parse`): the opener of its calls (of its section, where calls sit in
        one) as its declaration has it, or a call the parser reads (a bare Llama JSON call has no opener); for
        formats without a declaration, also a candidate the parser rejected."""
        openers = [o for fmt in self.format_names or () for o in _openers(fmt)]
        if any(o in text for o in openers):
            return True
        session = RequestSession(self._parser(None))
        session.push(text)
        session.finish()
        return bool(session.accepted or (session.rejected and not openers))

    def detect_and_parse(self, text: str, tools: Any) -> StreamingParseResult:
        session = RequestSession(self._parser(tools), rejected_text=self._rejected_text("all"))
        pieces = [session.push(text), session.finish()]
        positions = {getattr(t.function, "name", None): i for i, t in enumerate(tools or ())}
        calls = [
            # One-shot ``tool_index`` is the tool's position in the request (SGLang's contract), -1 if unknown.
            ToolCallItem(tool_index=positions.get(c.name, -1), name=c.name, parameters=c.arguments_json)
            for c in session.accepted
        ]
        content, reasoning = split(p for p in pieces if p is not None)
        text_out = reasoning + content
        # SGLang's detectors hand on the text around calls trimmed (``text[:start].strip()``), except Llama's
        # and Gemma 4's.
        trim = calls and not KEEPS_SPACE.intersection(self.format_names or ())
        return StreamingParseResult(normal_text=text_out.strip() if trim else text_out, calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: Any) -> StreamingParseResult:
        if self._session is None:
            # A rejected call's markup goes on as text where nothing of the call was sent (held formats
            # send nothing before a call is accepted); after its name, only the rejection is left.
            held = self._held() is not None
            self._session = RequestSession(
                self._parser(tools), rejected_text=self._rejected_text("all" if held else "unsent")
            )
        return self._streamed(self._session, self._session.push(new_text))

    def finish(self, tools: Any) -> StreamingParseResult:
        """End of stream: release held text, finish or reject an open call."""
        if self._session is None:
            return StreamingParseResult()
        return self._streamed(self._session, self._session.finish())

    def _streamed(self, session: RequestSession, piece: Piece | None) -> StreamingParseResult:
        done = len(session.accepted) + len(session.rejected_after_name)
        # BaseFormatDetector's public counter: the open call's index, or the number of calls done (-1: none yet).
        self.current_tool_id = session.calls_sent - 1 if session.calls_sent > done else (done or -1)
        held = self._held()
        if held is None:
            return _result(piece)
        # Held calls: each newly accepted call whole, in the engine's index order.
        new = session.accepted[self._whole_sent :]
        start, self._whole_sent = self._whole_sent, len(session.accepted)
        calls: list[ToolCallItem] = []
        for k, c in enumerate(new):
            if held == "call":
                calls.append(ToolCallItem(tool_index=start + k, name=c.name, parameters=c.arguments_json))
            else:
                calls.append(ToolCallItem(tool_index=start + k, name=c.name, parameters=""))
                calls.append(ToolCallItem(tool_index=start + k, name=None, parameters=c.arguments_json))
        return StreamingParseResult(normal_text=_text(piece) if piece is not None else "", calls=calls)

    def _rejected_text(self, which: Literal["all", "unsent"]) -> Literal["none", "all", "unsent"]:
        return "none" if DROPS_REJECTED.intersection(self.format_names or ()) else which

    def _held(self) -> Literal["call", "arguments"] | None:
        """How this detector's SGLang counterpart holds a call until it is complete (None: it streams)."""
        names = set(self.format_names or ())
        return "call" if names & WHOLE_CALLS else "arguments" if names & WHOLE_ARGUMENTS else None

    def _tag_format(self) -> str | None:
        """The one format a tag is built for (its declaration, layout or tag writer). A detector of several
        formats has none: a tag built from one of several spellings (HY3's suffixed and bare tokens) would forbid
        the others."""
        names = self.format_names or ()
        return names[0] if len(names) == 1 and has_tag(names[0]) else None

    def supports_structural_tag(self) -> bool:
        """A single format with a declaration, a layout or a tag writer (harmony) has a tag; then SGLang also
        parses ``required`` and named calls with this detector. The multi-format ``streamparse`` has none."""
        return self._tag_format() is not None

    def parses_required_natively(self) -> bool:
        """A detector of several declared formats has no tag, yet reads the model's own calls: SGLang then
        parses ``required`` and named calls with it, unconstrained, instead of forcing a plain JSON list the
        model was not trained to write (as SGLang's Hunyuan detector does)."""
        names = self.format_names or ()
        return len(names) > 1 and all(declaration_for(n) is not None for n in names)

    def get_structural_tag(
        self,
        tools: Any = None,
        tool_choice: Any = "auto",
        thinking_mode: bool = False,
        parallel_tool_calls: bool = True,
    ) -> Any:
        """The structural tag built from the format's declaration (:mod:`.structural`): what constrained
        decoding lets the model write is what this detector reads."""
        fmt = self._tag_format()
        if fmt is None or not tools:
            return None
        forced = tool_choice.function.name if isinstance(tool_choice, ToolChoice) else None
        specs = [
            Tool(t.function.name, t.function.parameters, t.function.strict is True)
            for t in tools
            if forced is None or t.function.name == forced
        ]
        choice: Choice = "forced" if forced else "required" if tool_choice == "required" else "auto"
        tag = format_tag(fmt, specs, choice, parallel=parallel_tool_calls)
        return None if tag is None else StructuralTag.model_validate(tag)

    def structure_info(self) -> Any:
        """SGLang's legacy pair (``begin`` + the arguments + ``end``, ``trigger``) from the first format's
        declaration. SGLang builds a grammar from it only for a detector that supports structural tags and gives
        none, which these never do: it describes the format (SGLang's own tests read it)."""
        pair = _legacy_pair(declaration_for(self.format_names[0])) if self.format_names else None
        if pair is None:
            raise NotImplementedError(f"no begin/end pair for {self.format_names}")
        return pair


def _closed(specs: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """The tools with no parameter beyond their schema's properties (where the schema lists them)."""
    for spec in specs or ():
        params = spec["function"]["parameters"]
        if isinstance(params.get("properties"), dict) and "additionalProperties" not in params:
            spec["function"]["parameters"] = {**params, "additionalProperties": False}
    return specs


def _legacy_pair(decl: Declaration | None) -> Callable[[str], StructureInfo] | None:
    """The literal text around one call's arguments, as the declaration writes it (a call alone in its
    section, where calls sit in one); ``None`` where a call has no such fixed text (no declaration, a call id
    or a name suffix in the header)."""
    if decl is None:
        return None
    call, spec, args = decl.call, decl.call.name, decl.call.arguments
    before = decl.section.open if decl.section else ""
    after = (call.close or "") + ((decl.section.close or "") if decl.section else "")
    trigger = before or call.open
    if isinstance(spec, JsonName) and not (spec.nested or spec.list or spec.name_is_key):
        field, args_field = json.dumps(spec.field), json.dumps(spec.arguments_field)
        return lambda name: StructureInfo(
            begin=f"{before}{call.open}{{{field}: {json.dumps(name)}, {args_field}: ",
            end="}" + after,
            trigger=trigger,
        )
    if not isinstance(spec, HeaderName) or spec.attribute or spec.suffix_pattern or call.id is not None:
        return None
    lead, tail = "", ""
    if isinstance(args, JsonArgs):
        lead, tail = ("```json\n", "\n```") if args.fenced else (args.open, args.close)
    return lambda name: StructureInfo(
        begin=f"{before}{call.open}{spec.prefix}{name}{spec.end}{lead}", end=tail + after, trigger=trigger
    )


def _subclass(fmt: str) -> type[StreamparseDetector]:
    return detector_for((fmt,))


def detector_for(names: tuple[str, ...], label: str = "") -> type[StreamparseDetector]:
    """A detector class for these formats (one family written several ways, e.g. HY3's suffixed and bare
    tokens): what stands in for one of SGLang's detectors. ``label`` names the class."""
    name = label or "Streamparse" + "".join(part.title() for part in "_".join(names).split("_")) + "Detector"
    attrs = {"format_names": names, "__module__": __name__, "__qualname__": name}
    return type(name, (StreamparseDetector,), attrs)


DETECTORS: dict[str, type[StreamparseDetector]] = {PREFIX: StreamparseDetector}
for _fmt in formats.names():
    DETECTORS[f"{PREFIX}_{_fmt}"] = _subclass(_fmt)


def register() -> None:
    """Add every name to SGLang's detector map (idempotent)."""
    FunctionCallParser.ToolCallParserEnum.update(DETECTORS)


register()


def main(argv: list[str] | None = None) -> None:
    """``python -m streamparse.integrations.sglang ARGS``: SGLang's server with these detectors registered."""
    sys.argv = ["sglang.launch_server", *(sys.argv[1:] if argv is None else argv)]
    served = template_from_argv(sys.argv)
    if served and not os.environ.get(TEMPLATE_ENV):  # the detector has no tokenizer: hand the template over
        os.environ[TEMPLATE_ENV] = served
    runpy.run_module("sglang.launch_server", run_name="__main__")


if __name__ == "__main__":
    main()
