"""Notice a stdio server's death while it is idle: its stdout ends.

The SDK reports the end of a server's output only to requests in flight; with
none, a dead server would look ready until the next call. ``EndWatch`` wraps
the transport's read stream (the SDK's ``ReadStream`` protocol) and calls
``on_end`` once when it ends; ``watched`` wraps a whole transport.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any


class EndWatch:
    """The transport's read stream, unchanged, except that its end is reported."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's context from a context-carrying stream
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> EndWatch:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> EndWatch:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


@asynccontextmanager
async def watched(transport: Any, on_end: Callable[[], None]) -> AsyncIterator[tuple[Any, Any]]:
    """``transport`` (an SDK transport context) whose read stream reports its end to ``on_end``."""
    async with transport as (read, write):
        yield EndWatch(read, on_end), write
