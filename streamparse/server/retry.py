"""``--on-reject retry[:N]``: a call whose arguments break its tool's schema is not shown to the client;
the upstream is asked again with that call and the validation error appended to the conversation (an
assistant message with the call, a tool message with the error), at most N times per reply. Only the
corrected call is sent on: the correction's text and reasoning are dropped (the client already has the
reply's own). Each retry is a full upstream request (the whole conversation again: prompt processing,
latency); after N failed attempts the rejection is noted as without retries.

Only ``schema_violation`` is retried: the call named a tool the client offered and its arguments parsed.
An ``unknown_tool`` call (a tool the client did not offer) never is, nor are malformed, truncated or
oversized calls (there are no arguments to quote back).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from ..events import ToolCallRejected
from ..parser import StreamParser
from .limits import ChatBody
from .stream import ChatRewriter, id_mapper
from .toolprompt import rewrite_for_prompted_tools

__all__ = ["correction_messages", "complete_retries", "retry_body"]

log = logging.getLogger("streamparse.server")

Again = Callable[[ToolCallRejected], Awaitable[tuple[httpx.Response, StreamParser] | str]]


def correction_messages(ev: ToolCallRejected) -> list[dict[str, Any]]:
    """The two messages appended to the conversation for a retry: the rejected call, and its error."""
    mapper = id_mapper("alnum9")  # nine alphanumerics: the one id shape every template accepts back
    assert mapper is not None
    call_id = mapper(str(ev.index))
    name = ev.name or ""
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": ev.arguments or "{}"}}
    error = (
        f"Error: these arguments do not match the parameters schema of {name}: {ev.detail}. "
        f"Call {name} again with corrected arguments."
    )
    return [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": error},
    ]


def retry_body(payload: ChatBody, added: list[dict[str, Any]], taught: str | None) -> bytes:
    """The request with ``added`` appended to its messages: spliced into the body as sent, or (tools in
    the prompt, ``taught``) the rewritten request rebuilt."""
    if taught is None:
        return payload.with_messages(added)
    sent = payload.payload()
    before = sent.get("messages")
    sent["messages"] = [*(before if isinstance(before, list) else []), *added]
    return json.dumps(rewrite_for_prompted_tools(sent, taught), ensure_ascii=False).encode()


def _merge(completion: dict[str, Any], second: Any, notes: list[Any]) -> None:
    try:
        message = completion["choices"][0]["message"]
        more = second["choices"][0]["message"].get("tool_calls") or []
    except (KeyError, IndexError, TypeError, AttributeError):
        return
    if more:
        message["tool_calls"] = [*(message.get("tool_calls") or []), *more]
        completion["choices"][0]["finish_reason"] = "tool_calls"
    notes += second.get("streamparse_rejections") or [] if isinstance(second, dict) else []


def _give_up(rw: ChatRewriter, completion: dict[str, Any], why: str, notes: list[Any]) -> None:
    for chunk in rw.give_up(why):
        delta = chunk["choices"][0]["delta"]
        message = completion["choices"][0]["message"]
        message["content"] = (message.get("content") or "") + (delta.get("content") or "")
        if "streamparse_rejection" in chunk:
            notes.append(chunk["streamparse_rejection"])


async def complete_retries(rw: ChatRewriter, completion: Any, again: Again) -> None:
    """The non-streaming form: while ``rw`` holds a rejected call, ask again and merge the corrected
    calls into ``completion`` (in place)."""
    notes: list[Any] = []
    while rw.retry is not None:
        outcome = await again(rw.retry)
        if isinstance(outcome, str):
            _give_up(rw, completion, outcome, notes)
            break
        resp, parser = outcome
        try:
            second = json.loads(await resp.aread())
        except (httpx.HTTPError, ValueError) as exc:
            _give_up(rw, completion, f"the retry's reply is unusable ({type(exc).__name__})", notes)
            break
        finally:
            await resp.aclose()
        rw.restart(parser)
        _merge(completion, rw.complete(second), notes)
    if notes:
        completion.setdefault("streamparse_rejections", []).extend(notes)
