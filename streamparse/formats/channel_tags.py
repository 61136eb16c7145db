"""The structural tag of harmony (gpt-oss), whose calls are channel messages the declaration vocabulary cannot
say: a writer of xgrammar's format node (plain JSON data), attached to harmony's ``FormatSpec.tag_writer``
and read by :mod:`streamparse.integrations.structural`.

The output is a stream of messages joined by ``<|start|>assistant`` (the prompt wrote the first one's): an
``analysis`` message is reasoning, a ``final`` message the answer, a call a ``commentary`` message addressed
``to=functions.NAME`` whose body is the arguments' JSON, ended by ``<|call|>``. The three header spellings
are those xgrammar's own harmony tag (which SGLang's gpt-oss detector hands on) allows, and harmony's parser
reads each of them (tests/integrations/test_structural_tags.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

SEPARATOR: Final = "<|start|>assistant"
CALL_END: Final = "<|call|>"
MESSAGE_END: Final = ["<|end|>", "<|return|>"]
HEADERS: Final = (
    "<|channel|>commentary to=functions.{} <|constrain|>json<|message|>",
    " to=functions.{}<|channel|>commentary <|constrain|>json<|message|>",
    " to=functions.{}<|channel|>commentary json<|message|>",
)


def _tag(begin: str, content: dict[str, Any], end: str | list[str]) -> dict[str, Any]:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def _joined(tags: list[dict[str, Any]], at_least_one: bool, one: bool = False) -> dict[str, Any]:
    return {
        "type": "tags_with_separator",
        "tags": tags,
        "separator": SEPARATOR,
        "at_least_one": at_least_one,
        "stop_after_first": one,
    }


def harmony_tag(tools: Sequence[tuple[str, Any]], choice: str, parallel: bool) -> dict[str, Any] | None:
    """``auto``: any messages, calls among them; ``required``: reasoning messages, then one or more calls
    (``parallel=False``: one); ``forced``: reasoning, then one call of the one tool given."""
    if not tools:
        return None
    calls = [
        _tag(header.format(name), {"type": "json_schema", "json_schema": schema}, CALL_END)
        for name, schema in tools
        for header in HEADERS
    ]
    analysis = _tag("<|channel|>analysis<|message|>", {"type": "any_text"}, MESSAGE_END)
    messages = [analysis]
    if choice == "auto":
        messages.append(_tag("<|channel|>final<|message|>", {"type": "any_text"}, MESSAGE_END))
    one = choice == "forced" or not parallel
    if choice == "auto" and not one:
        return _joined([*calls, *messages], at_least_one=False)
    # Calls capped (or required) alone: any reasoning messages may come first, as the model writes them.
    then_calls = _joined(calls, at_least_one=True, one=one)
    after_messages = {
        "type": "sequence",
        "elements": [_joined(messages, at_least_one=True), {"type": "const_string", "value": SEPARATOR}, then_calls],
    }
    options = [then_calls, after_messages]
    if choice == "auto":
        options.insert(0, _joined(messages, at_least_one=False))  # no call at all
    return {"type": "or", "elements": options}
