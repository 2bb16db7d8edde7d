"""Server-Sent Events framing over an aiohttp ``StreamResponse``."""

from __future__ import annotations

import asyncio

from aiohttp import web

HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",  # proxies must not buffer a live tail
}


def frame(data: str, event: str | None = None, id: int | None = None) -> bytes:
    """One event; ``id`` is set only for durable events so reconnects resume after them."""
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    if event is not None:
        lines.append(f"event: {event}")
    lines.extend(f"data: {line}" for line in data.split("\n"))
    return ("\n".join(lines) + "\n\n").encode()


class EventStream:
    """Serialises writes from several producers (log, deltas, keepalive) onto one response."""

    def __init__(self, response: web.StreamResponse) -> None:
        self._response = response
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, request: web.Request) -> EventStream:
        response = web.StreamResponse(headers=HEADERS)
        await response.prepare(request)
        return cls(response)

    @property
    def response(self) -> web.StreamResponse:
        return self._response

    async def send(self, data: str, event: str | None = None, id: int | None = None) -> None:
        await self._write(frame(data, event, id))

    async def comment(self, text: str) -> None:
        await self._write(f": {text}\n\n".encode())

    async def _write(self, chunk: bytes) -> None:
        async with self._lock:
            await self._response.write(chunk)
