"""Early tool dispatch: ToolRunner under asyncio and trio."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import pytest

from streamparse import ToolCall, ToolCallEnd, ToolCallRejected, ToolCallStart
from streamparse.aio import aparse
from streamparse.dispatch import (
    ToolCancelledError,
    ToolResult,
    ToolRunner,
    ToolTimeoutError,
    UnknownToolError,
)

GUARD = 10  # seconds: turns a would-be deadlock into a failure; never asserted on


@pytest.fixture(params=["asyncio", "trio"])
def run(request: pytest.FixtureRequest) -> Callable[[Callable[[], Awaitable[Any]]], Any]:
    def runner(fn: Callable[[], Awaitable[Any]]) -> Any:
        async def guarded() -> Any:
            with anyio.fail_after(GUARD):
                return await fn()

        return anyio.run(guarded, backend=request.param)

    return runner


def end(index: int, name: str, **arguments: Any) -> ToolCallEnd:
    import json

    args = json.dumps(arguments)
    return ToolCallEnd(index, ToolCall(f"call_{index}", name, arguments, args, "hermes", "raw"))


async def from_list(events: list[Any]) -> AsyncIterator[Any]:
    for ev in events:
        await anyio.lowlevel.checkpoint()
        yield ev


def test_a_tool_runs_while_the_stream_is_still_going(run: Any) -> None:
    finished = anyio.Event()
    order: list[str] = []

    async def lookup(order_id: str) -> str:
        order.append("tool ran")
        finished.set()
        return f"order {order_id}: shipped"

    async def model() -> AsyncIterator[Any]:
        yield end(0, "lookup", order_id="A-1")
        await finished.wait()  # the model keeps "generating" until the tool is done: deadlocks if not early
        order.append("model resumed")
        yield end(1, "lookup", order_id="A-2")

    async def main() -> list[ToolResult]:
        return await ToolRunner([lookup]).run_all(model())

    results = run(main)
    assert order[:2] == ["tool ran", "model resumed"]
    assert [(r.index, r.ok, r.value) for r in results] == [
        (0, True, "order A-1: shipped"),
        (1, True, "order A-2: shipped"),
    ]


def test_concurrency_is_bounded_for_async_tools(run: Any) -> None:
    state = {"running": 0, "peak": 0}

    async def work(n: int) -> int:
        state["running"] += 1
        state["peak"] = max(state["peak"], state["running"])
        # Stay in until the bound has been reached once, so overlap does not depend on timing.
        while state["peak"] < 2:
            await anyio.sleep(0.001)
        await anyio.sleep(0.001)
        state["running"] -= 1
        return n

    async def main() -> list[ToolResult]:
        return await ToolRunner({"work": work}, max_concurrency=2).run_all(
            from_list([end(i, "work", n=i) for i in range(6)])
        )

    results = run(main)
    assert state["peak"] == 2
    assert [r.value for r in results] == list(range(6))


def test_concurrency_is_bounded_for_sync_tools_in_threads(run: Any) -> None:
    cond = threading.Condition()
    state = {"running": 0, "peak": 0}

    def work(n: int) -> int:
        with cond:
            state["running"] += 1
            state["peak"] = max(state["peak"], state["running"])
            cond.notify_all()
            # Stay in until the bound has been reached once (the guard timeout only avoids a hang).
            cond.wait_for(lambda: state["peak"] >= 3, timeout=GUARD / 2)
        time.sleep(0.001)
        with cond:
            state["running"] -= 1
        return n * 10

    async def main() -> list[ToolResult]:
        return await ToolRunner([work], max_concurrency=3).run_all(from_list([end(i, "work", n=i) for i in range(8)]))

    results = run(main)
    assert state["peak"] == 3
    assert [r.value for r in results] == [i * 10 for i in range(8)]


def test_timeouts_become_error_results(run: Any) -> None:
    async def stuck() -> None:
        await anyio.sleep(3600)

    def stuck_sync() -> None:
        time.sleep(0.5)  # abandoned on timeout; finishes in its thread later

    async def main() -> list[ToolResult]:
        runner = ToolRunner([stuck, stuck_sync], timeout=0.05)
        return await runner.run_all(from_list([end(0, "stuck"), end(1, "stuck_sync")]))

    results = run(main)
    assert [(r.ok, type(r.error)) for r in results] == [(False, ToolTimeoutError), (False, ToolTimeoutError)]
    assert "within 0.05" in results[0].content()


def test_exceptions_are_captured_and_other_calls_go_on(run: Any) -> None:
    def boom(x: int) -> int:
        raise ValueError(f"bad x {x}")

    def ok(x: int) -> int:
        return x + 1

    async def main() -> list[ToolResult]:
        return await ToolRunner([boom, ok]).run_all(from_list([end(0, "boom", x=1), end(1, "ok", x=1)]))

    a, b = run(main)
    assert (a.ok, type(a.error), str(a.error)) == (False, ValueError, "bad x 1")
    assert (b.ok, b.value) == (True, 2)
    assert a.to_message() == {
        "role": "tool",
        "tool_call_id": "call_0",
        "content": "error: ValueError: bad x 1",
    }


def test_bad_arguments_for_the_function_are_an_error_result(run: Any) -> None:
    def f(x: int) -> int:
        return x

    async def main() -> list[ToolResult]:
        return await ToolRunner([f]).run_all(from_list([end(0, "f", y=1)]))

    (r,) = run(main)
    assert not r.ok and isinstance(r.error, TypeError)


def test_results_arrive_as_completed_but_are_listed_in_call_order(run: Any) -> None:
    release_slow = anyio.Event()

    async def slow() -> str:
        await release_slow.wait()
        return "slow"

    async def fast() -> str:
        return "fast"

    async def main() -> tuple[list[Any], list[ToolResult]]:
        arrived: list[Any] = []
        async with ToolRunner([slow, fast]).run(from_list([end(0, "slow"), end(1, "fast")])) as r:
            async for item in r:
                if isinstance(item, ToolResult):
                    arrived.append(item.value)
                    release_slow.set()
        return arrived, r.results

    arrived, results = run(main)
    assert arrived == ["fast", "slow"]
    assert [x.value for x in results] == ["slow", "fast"]


def test_rejected_calls_never_run_and_unknown_names_are_refused(run: Any) -> None:
    calls: list[str] = []

    def secret(**kw: Any) -> None:
        calls.append("ran")

    events = [
        ToolCallStart(0, "call_0", "secret"),
        ToolCallRejected(0, "schema_violation", "raw", "secret"),
        end(1, "not_registered", a=1),
    ]

    async def main() -> list[ToolResult]:
        return await ToolRunner({"secret": secret}).run_all(from_list(events))

    (r,) = run(main)
    assert calls == []
    assert (r.index, r.ok, type(r.error)) == (1, False, UnknownToolError)


def test_leaving_the_block_cancels_running_tools_and_records_them(run: Any) -> None:
    started = anyio.Event()
    cleaned: list[bool] = []

    async def forever() -> None:
        started.set()
        try:
            await anyio.sleep(3600)
        finally:
            cleaned.append(True)

    async def model() -> AsyncIterator[Any]:
        yield end(0, "forever")
        await anyio.sleep(3600)  # the model never finishes either

    async def main() -> list[ToolResult]:
        async with ToolRunner([forever]).run(model()) as r:
            async for item in r:
                if isinstance(item, ToolCallEnd):
                    await started.wait()
                    break
        return r.results

    (res,) = run(main)
    assert cleaned == [True]
    assert isinstance(res.error, ToolCancelledError) and not res.ok


def test_outer_cancellation_cancels_tools_and_closes_the_source(run: Any) -> None:
    closed: list[bool] = []
    tool_started = anyio.Event()

    async def forever() -> None:
        tool_started.set()
        await anyio.sleep(3600)

    async def model() -> AsyncIterator[Any]:
        try:
            yield end(0, "forever")
            await anyio.sleep(3600)
        finally:
            closed.append(True)

    async def main() -> None:
        async with anyio.create_task_group() as tg:

            async def consume() -> None:
                async with ToolRunner([forever]).run(model()) as r:
                    async for _ in r:
                        pass

            tg.start_soon(consume)
            await tool_started.wait()
            tg.cancel_scope.cancel()

    run(main)
    assert closed == [True]


def test_source_error_is_raised_from_iteration_unwrapped(run: Any) -> None:
    async def model() -> AsyncIterator[Any]:
        yield end(0, "f")
        raise ConnectionError("stream broke")

    async def f() -> str:
        return "done"

    async def main() -> None:
        async with ToolRunner([f]).run(model()) as r:
            async for _ in r:
                pass

    with pytest.raises(ConnectionError, match="stream broke"):
        run(main)


def test_an_exception_in_the_block_propagates_unwrapped(run: Any) -> None:
    async def main() -> None:
        async with ToolRunner([]).run(from_list([end(0, "x")])) as r:
            async for _ in r:
                raise KeyError("consumer bug")

    with pytest.raises(KeyError):
        run(main)


def test_with_the_real_parser_only_valid_calls_run(run: Any) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "add",
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"],
                },
            },
        }
    ]
    text = (
        'Sum: <tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>'
        '<tool_call>{"name": "add", "arguments": {"a": "one", "b": 2}}</tool_call>'
    )
    seen: list[tuple[int, int]] = []

    def add(a: int, b: int) -> int:
        seen.append((a, b))
        return a + b

    async def chunks() -> AsyncIterator[str]:
        for i in range(0, len(text), 4):
            yield text[i : i + 4]

    async def main() -> list[ToolResult]:
        return await ToolRunner([add]).run_all(aparse(chunks(), formats=["hermes"], tools=tools))

    (r,) = run(main)
    assert (r.value, seen) == (3, [(1, 2)])
    assert r.to_message()["content"] == "3"


def test_tools_need_a_name_and_concurrency_must_be_positive() -> None:
    with pytest.raises(ValueError):
        ToolRunner([], max_concurrency=0)
    with pytest.raises(TypeError):
        ToolRunner([object()])  # type: ignore[list-item]
