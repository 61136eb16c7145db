"""Early tool dispatch: run each tool the moment its ``ToolCallEnd`` arrives, while the model goes on.

::

    runner = ToolRunner([get_weather, search], max_concurrency=4, timeout=30.0)
    async with runner.run(aparse(chunks, formats=["hermes"], tools=TOOLS)) as run:
        async for item in run:          # events and ToolResults, as they happen
            ...
    run.results                         # every dispatched call's ToolResult, in call order

The run is a context manager rather than a bare async generator because it owns a task group: leaving
the ``async with`` block (normally, by ``break``, by an exception or by cancellation) cancels every tool
still running and closes the event source, so no task outlives the block. Iterating to the end waits for
the source to end *and* every started tool to finish.

Only calls that arrive as ``ToolCallEnd`` are run (the parser emits it only for complete calls that
passed validation); rejected candidates never run; a name with no registered function gives an error
result without running anything. Tool failures, timeouts and cancellations are results, never raised.
Sync tools run in worker threads (``anyio.to_thread``); a thread cannot be killed, so on timeout or
cancellation a sync tool is abandoned (its result is discarded) and finishes in the background.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeAlias

import anyio
from anyio import to_thread
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from .events import Event, ToolCall, ToolCallEnd

__all__ = [
    "ToolCancelledError",
    "ToolResult",
    "ToolRun",
    "ToolRunner",
    "ToolTimeoutError",
    "UnknownToolError",
]


class UnknownToolError(LookupError):
    """The call names a tool the runner has no function for."""


class ToolTimeoutError(TimeoutError):
    """The tool ran longer than the runner's ``timeout``."""


class ToolCancelledError(Exception):
    """The run was left (or cancelled) before the tool finished."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one dispatched call. ``index`` is the call's event index (``ToolCallEnd.index``);
    ``elapsed`` is seconds of running time (not time spent waiting for a concurrency slot)."""

    index: int
    call: ToolCall
    ok: bool
    value: Any = None
    error: BaseException | None = None
    elapsed: float = 0.0

    def content(self) -> str:
        """The result as text for the model: the value (JSON unless it is a string) or the error."""
        if not self.ok:
            return f"error: {type(self.error).__name__}: {self.error}"
        if isinstance(self.value, str):
            return self.value
        return json.dumps(self.value, ensure_ascii=False, default=str)

    def to_message(self) -> dict[str, Any]:
        """An OpenAI ``role: "tool"`` message answering the call."""
        return {"role": "tool", "tool_call_id": self.call.id, "content": self.content()}


Item: TypeAlias = Event | ToolResult


@dataclass(frozen=True, slots=True)
class _SourceFailed:
    error: Exception


def _tool_name(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"cannot tell the name of tool {fn!r}: pass a mapping of name to callable")
    return name


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004


@dataclass
class ToolRun:
    """One run: iterate it for ``Event`` and :class:`ToolResult` items in the order they happen (results
    as each tool completes: the as-completed view for UIs); ``results`` lists finished (and cancelled)
    calls in call order. If the event source raises, the exception is raised from the iteration at the
    point it happened; the tools already started keep running until the block is left."""

    _recv: MemoryObjectReceiveStream[Item | _SourceFailed]
    _results: dict[int, ToolResult] = field(default_factory=dict)
    calls: list[ToolCall] = field(default_factory=list)  # dispatched calls, in call order

    @property
    def results(self) -> list[ToolResult]:
        return [self._results[seq] for seq in sorted(self._results)]

    def __aiter__(self) -> AsyncIterator[Item]:
        return self

    async def __anext__(self) -> Item:
        try:
            item = await self._recv.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None
        if isinstance(item, _SourceFailed):
            raise item.error
        return item


class ToolRunner:
    """Runs tools for the calls of an event stream (see the module doc).

    ``tools``: a mapping of name to callable, or callables named by their ``__name__``. A tool receives
    the call's arguments as keyword arguments; it may be sync (run in a thread) or async (awaited).
    ``max_concurrency`` bounds tools running at once across all runs of this runner; ``timeout`` (seconds,
    ``None`` for none) bounds each call's running time. A runner's limiter belongs to the event loop it
    was first used in: use one runner per loop.
    """

    def __init__(
        self,
        tools: Mapping[str, Callable[..., Any]] | Sequence[Callable[..., Any]],
        *,
        max_concurrency: int = 4,
        timeout: float | None = 30.0,
    ) -> None:
        if isinstance(tools, Mapping):
            self.tools: dict[str, Callable[..., Any]] = dict(tools)
        else:
            self.tools = {_tool_name(fn): fn for fn in tools}
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self._limiter: anyio.CapacityLimiter | None = None

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        # Created lazily: a CapacityLimiter belongs to the event loop that is running when it is made.
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.max_concurrency)
        return self._limiter

    @asynccontextmanager
    async def run(self, events: AsyncIterable[Event]) -> AsyncIterator[ToolRun]:
        """Dispatch the calls of ``events``; see :class:`ToolRun` for what the block receives."""
        # Capacity 0: the source is pulled only as fast as the consumer reads; no unbounded buffering.
        send, recv = anyio.create_memory_object_stream[Item | _SourceFailed](0)
        run = ToolRun(recv)
        body_error: Exception | None = None
        with recv:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._pump, events, send, tg, run)
                try:
                    yield run
                except Exception as exc:  # re-raised below, outside the group, so it is not wrapped
                    body_error = exc
                finally:
                    tg.cancel_scope.cancel()
        if body_error is not None:
            raise body_error

    async def run_all(self, events: AsyncIterable[Event]) -> list[ToolResult]:
        """Consume ``events`` to the end, running every call; the results in call order."""
        async with self.run(events) as run:
            async for _ in run:
                pass
        return run.results

    async def _pump(
        self,
        events: AsyncIterable[Event],
        send: MemoryObjectSendStream[Item | _SourceFailed],
        tg: TaskGroup,
        run: ToolRun,
    ) -> None:
        source = aiter(events)
        exhausted = False
        async with send:
            try:
                while True:
                    try:
                        ev = await anext(source)
                    except StopAsyncIteration:
                        exhausted = True
                        break
                    except Exception as exc:
                        exhausted = True
                        await send.send(_SourceFailed(exc))
                        break
                    if isinstance(ev, ToolCallEnd):
                        seq = len(run.calls)
                        run.calls.append(ev.call)
                        tg.start_soon(self._dispatch, ev, seq, send.clone(), run)
                    await send.send(ev)
            finally:
                if not exhausted:
                    aclose = getattr(source, "aclose", None)
                    if aclose is not None:
                        with anyio.CancelScope(shield=True):
                            await aclose()

    async def _dispatch(
        self,
        ev: ToolCallEnd,
        seq: int,
        send: MemoryObjectSendStream[Item | _SourceFailed],
        run: ToolRun,
    ) -> None:
        async with send:
            try:
                result = await self._execute(ev)
            except anyio.get_cancelled_exc_class():
                cancelled = ToolCancelledError(f"{ev.call.name} was cancelled")
                run._results[seq] = ToolResult(ev.index, ev.call, False, error=cancelled)
                raise
            run._results[seq] = result
            await send.send(result)

    async def _execute(self, ev: ToolCallEnd) -> ToolResult:
        call = ev.call
        fn = self.tools.get(call.name)
        if fn is None:
            return ToolResult(ev.index, call, False, error=UnknownToolError(f"no tool named {call.name!r}"))
        async with self.limiter:
            started = time.monotonic()
            try:
                with anyio.move_on_after(self.timeout) as scope:
                    if _is_async(fn):
                        value = await fn(**call.arguments)
                    else:
                        value = await to_thread.run_sync(partial(fn, **call.arguments), abandon_on_cancel=True)
                    if inspect.isawaitable(value):  # a sync wrapper that returned a coroutine
                        value = await value
            except Exception as exc:
                return ToolResult(ev.index, call, False, error=exc, elapsed=time.monotonic() - started)
            elapsed = time.monotonic() - started
            if scope.cancelled_caught:
                err = ToolTimeoutError(f"{call.name} did not finish within {self.timeout} s")
                return ToolResult(ev.index, call, False, error=err, elapsed=elapsed)
            return ToolResult(ev.index, call, True, value=value, elapsed=elapsed)
