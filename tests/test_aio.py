"""aparse: async iteration over the sync core, under asyncio and trio."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any

import anyio
import pytest

from streamparse import StreamParser, TextDelta, ToolCallEnd, merge_events, parse
from streamparse.aio import aparse, iter_parse

TEXT = (
    "Let me check.\n<tool_call>\n"
    '{"name": "lookup_order", "arguments": {"order_id": "A-1001"}}\n'
    "</tool_call>\nDone \u00e9."
)


@pytest.fixture(params=["asyncio", "trio"])
def run(request: pytest.FixtureRequest) -> Callable[[Callable[[], Awaitable[Any]]], Any]:
    def runner(fn: Callable[[], Awaitable[Any]]) -> Any:
        return anyio.run(fn, backend=request.param)

    return runner


async def chunks_of(data: str | bytes, size: int) -> AsyncIterator[str | bytes]:
    for i in range(0, len(data), size):
        await anyio.lowlevel.checkpoint()
        yield data[i : i + size]


def test_aparse_matches_one_shot_parse_for_any_chunk_size(run: Any) -> None:
    expected = merge_events(parse(TEXT, formats=["hermes"]).events)

    async def main() -> None:
        for size in (1, 3, 7, len(TEXT)):
            got = [ev async for ev in aparse(chunks_of(TEXT, size), formats=["hermes"])]
            assert merge_events(got) == expected, size

    run(main)


def test_aparse_decodes_bytes_split_inside_a_character(run: Any) -> None:
    data = TEXT.encode("utf-8")
    expected = merge_events(parse(TEXT, formats=["hermes"]).events)

    async def main() -> list[Any]:
        return [ev async for ev in aparse(chunks_of(data, 1), formats=["hermes"])]

    assert merge_events(run(main)) == expected


def test_aparse_accepts_a_ready_parser_and_refuses_parser_plus_options(run: Any) -> None:
    parser = StreamParser(formats=["hermes"])

    async def main() -> list[Any]:
        return [ev async for ev in aparse(chunks_of(TEXT, 5), parser=parser)]

    events = run(main)
    assert [e.call.name for e in events if isinstance(e, ToolCallEnd)] == ["lookup_order"]
    assert parser.finish_reason == "tool_calls"

    async def both() -> None:
        async for _ in aparse(chunks_of(TEXT, 5), parser=StreamParser(), formats=["hermes"]):
            pass

    with pytest.raises(TypeError):
        run(both)


def test_source_error_flushes_held_text_then_reraises(run: Any) -> None:
    async def failing() -> AsyncIterator[str]:
        yield "Hello <tool"  # "<tool" may still become "<tool_call>": the parser holds it back
        raise ConnectionError("upstream went away")

    seen: list[Any] = []

    async def main() -> None:
        async for ev in aparse(failing(), formats=["hermes"]):
            seen.append(ev)

    with pytest.raises(ConnectionError, match="went away"):
        run(main)
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "Hello <tool"


def test_aclose_closes_the_source_generator(run: Any) -> None:
    closed: list[bool] = []

    async def source() -> AsyncIterator[str]:
        try:
            while True:
                yield "text "
                await anyio.lowlevel.checkpoint()
        finally:
            closed.append(True)

    async def main() -> None:
        async with aclosing(aparse(source(), formats=["hermes"])) as events:
            async for _ in events:
                break
        assert closed == [True]

    run(main)


def test_cancellation_while_waiting_on_the_source_closes_it_and_yields_nothing_more(run: Any) -> None:
    closed: list[bool] = []
    seen: list[Any] = []

    async def slow() -> AsyncIterator[str]:
        try:
            yield "first "
            await anyio.sleep(3600)
            yield "never"
        finally:
            closed.append(True)

    async def main() -> None:
        with anyio.move_on_after(0.05):
            async with aclosing(aparse(slow(), formats=["hermes"])) as events:
                async for ev in events:
                    seen.append(ev)

    run(main)
    assert closed == [True]
    assert "never" not in "".join(e.text for e in seen if isinstance(e, TextDelta))


def test_source_is_pulled_only_as_the_consumer_asks(run: Any) -> None:
    pulled: list[int] = []

    async def source() -> AsyncIterator[str]:
        for i in range(5):
            pulled.append(i)
            yield f"word{i} "

    async def main() -> None:
        async with aclosing(aparse(source(), formats=["hermes"])) as events:
            async for _ in events:
                # Pull-based: when the first event arrives, only the first chunk has been read.
                assert pulled == [0]
                break

    run(main)


def test_iter_parse_is_the_sync_twin_with_the_same_error_rule() -> None:
    def failing() -> Any:
        yield "Hi <tool"
        raise ConnectionError("boom")

    seen: list[Any] = []
    with pytest.raises(ConnectionError):
        for ev in iter_parse(failing(), formats=["hermes"]):
            seen.append(ev)
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "Hi <tool"
    whole = list(iter_parse([TEXT[:10], TEXT[10:]], formats=["hermes"]))
    assert merge_events(whole) == merge_events(parse(TEXT, formats=["hermes"]).events)


def test_aparse_is_exported_from_the_package() -> None:
    import streamparse

    assert streamparse.aparse is aparse
