"""Async iteration over the sync core: :func:`aparse` (anyio: runs under asyncio and trio).

Pull-based, so there is no queue: each chunk is pulled from the source, fed, and its events yielded
before the next chunk is pulled. The consumer's pace is the source's pace.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Generator, Iterable
from typing import Any, Protocol

import anyio

from .events import Event


class PushParser(Protocol):
    """What :func:`aparse` drives: a :class:`~streamparse.StreamParser`, or anything with the same
    ``feed``/``close`` pair (the provider streams in :mod:`streamparse.providers` are such objects)."""

    def feed(self, chunk: Any) -> list[Event]: ...

    def close(self) -> list[Event]: ...


def _make_parser(parser: PushParser | None, options: dict[str, Any]) -> PushParser:
    if parser is not None:
        if options:
            raise TypeError("pass either parser= or StreamParser options, not both")
        return parser
    from .parser import build_parser  # imported late: the async layer sits on the core, never under it

    return build_parser(options.pop("model", None), options.pop("formats", None), **options)


def _is_done(parser: PushParser) -> bool:
    # A provider stream sets ``done`` once the upstream said so ([DONE], message_stop, done: true):
    # pulling further would only wait on a connection that has nothing more to say.
    return bool(getattr(parser, "done", False))


async def aparse(
    chunks: AsyncIterable[str | bytes] | AsyncIterable[Any],
    *,
    parser: PushParser | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None]:
    """Parse an async stream of ``str``/``bytes`` chunks, yielding events as soon as each chunk is fed.

    ``options`` are :class:`~streamparse.StreamParser`'s keyword options, plus ``model=`` (a model id: its
    preset, as :meth:`~streamparse.StreamParser.for_model`); or pass a ready ``parser=``.

    - Normal end of the source: the parser is closed and the flushed events are yielded.
    - The source raises an ``Exception`` (or a provider stream's ``feed`` raises a
      :class:`~streamparse.providers.ProviderError`): text the parser was holding back is not lost: the
      events of ``close()`` are yielded first, then the exception is re-raised unchanged.
    - Cancellation, or the consumer stopping early (``break`` / ``aclose()``): nothing more is yielded,
      and the source iterator is closed (its ``aclose()`` is awaited, shielded, so its own cleanup runs).
    """
    p = _make_parser(parser, options)
    source = aiter(chunks)
    exhausted = False
    try:
        try:
            while True:
                try:
                    chunk = await anext(source)
                except StopAsyncIteration:
                    exhausted = True
                    break
                except Exception:
                    exhausted = True  # a generator that raised is finished: nothing to close
                    raise
                for ev in p.feed(chunk):
                    yield ev
                if _is_done(p):
                    break
        except Exception:
            # The source (or a provider stream's decoding) failed: flush what the parser held, then
            # let the error through unchanged.
            for ev in _drain(p)[0]:
                yield ev
            raise
        final, error = _drain(p)
        for ev in final:
            yield ev
        if error is not None:
            raise error
    finally:
        if not exhausted:
            await _aclose_quietly(source)


def _drain(p: PushParser) -> tuple[list[Event], Exception | None]:
    """``close()`` the parser; a provider stream may raise from ``close()`` (an error payload in its
    last bytes) and then returns the flushed events from a second ``close()``."""
    try:
        return p.close(), None
    except Exception as exc:
        return p.close(), exc


async def _aclose_quietly(source: AsyncIterator[Any]) -> None:
    aclose = getattr(source, "aclose", None)
    if aclose is None:
        return
    with anyio.CancelScope(shield=True):
        await aclose()


def iter_parse(
    chunks: Iterable[Any], *, parser: PushParser | None = None, **options: Any
) -> Generator[Event, None, None]:
    """The sync twin of :func:`aparse` (same end-of-stream and error rules) for plain iterables."""
    p = _make_parser(parser, options)
    source = iter(chunks)
    exhausted = False
    try:
        try:
            while True:
                try:
                    chunk = next(source)
                except StopIteration:
                    exhausted = True
                    break
                except Exception:
                    exhausted = True
                    raise
                yield from p.feed(chunk)
                if _is_done(p):
                    break
        except Exception:
            yield from _drain(p)[0]
            raise
        final, error = _drain(p)
        yield from final
        if error is not None:
            raise error
    finally:
        if not exhausted:
            close = getattr(source, "close", None)
            if close is not None:
                close()
