"""``GET /api/session/{id}/log``: replay, one ``log.synced`` marker, then the live tail, as SSE.

Durable events carry ``id: <seq>``, so a client reconnecting with
``Last-Event-ID`` resumes right after the last event it saw (the header wins
over ``?after=``). With ``?deltas=1`` live deltas are interleaved after the
marker as ``event: delta`` without an id: they never move the cursor and are
not replayed. A closed client, a failed write or server shutdown ends the
stream and closes its subscriptions.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable
from typing import Any

from aiohttp import web

from agent_tui.core.api import HISTORY_MAX, Sessions, Subscription, Synced
from agent_tui.core.api import events as ev
from agent_tui.server.bodies import SQLITE_INT_MAX, LogQuery
from agent_tui.server.errors import bad_request
from agent_tui.server.parse import query
from agent_tui.server.sse import EventStream
from agent_tui.server.state import sessions, state
from agent_tui.server.table import RouteTable

routes = RouteTable()


def _resume_after(request: web.Request, after: int | None) -> int | None:
    header = request.headers.get("Last-Event-ID")
    if header is None or not header.strip():
        return after
    try:
        value = int(header)
    except ValueError:
        raise bad_request(f"Last-Event-ID must be an event seq, not {header!r}") from None
    if not 0 <= value <= SQLITE_INT_MAX:
        raise bad_request(f"Last-Event-ID must be an event seq, not {header!r}")
    return value


@routes.get("/api/session/{id}/log", query=LogQuery, stream=True)
async def log(request: web.Request) -> web.StreamResponse:
    q = query(request, LogQuery)
    after = _resume_after(request, q.after)
    sid = request.match_info["id"]
    facade = sessions(request)
    await facade.get(sid)  # an unknown session is a JSON 404, before the stream starts
    server = state(request)
    task = asyncio.current_task()
    assert task is not None
    server.streams.add(task)
    deltas = facade.subscribe(sid, deltas=True) if q.follow and q.deltas else None
    try:
        out = await EventStream.open(request)
        synced, cursor = asyncio.Event(), _Cursor(after or 0)
        jobs: list[Awaitable[Any]] = [_replay_and_tail(out, facade, sid, cursor, q.follow, synced)]
        if q.follow:
            jobs += [_keepalive(out, server.keepalive_s), server.closing.wait()]
        if deltas is not None:
            jobs.append(_deltas(out, deltas, synced))
        await _first_to_end(jobs)
        if server.closing.is_set() and synced.is_set():
            await _catch_up(out, facade, sid, cursor)  # e.g. the shutdown's own interrupted events
        return out.response
    finally:
        if deltas is not None:
            deltas.close()
        server.streams.discard(task)


async def _first_to_end(jobs: list[Awaitable[Any]]) -> None:
    """Run the producers until one ends; a client that went away is a normal end."""
    tasks = [asyncio.ensure_future(job) for job in jobs]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in done:
        error = task.exception()
        if error is not None and not isinstance(error, ConnectionError):
            raise error


class _Cursor:
    """The seq of the last durable event sent."""

    def __init__(self, seq: int) -> None:
        self.seq = seq


async def _send_event(out: EventStream, cursor: _Cursor, stored: ev.StoredEvent) -> None:
    await out.send(stored.to_json_line(), event=stored.type, id=stored.seq)
    cursor.seq = stored.seq


async def _replay_and_tail(
    out: EventStream, facade: Sessions, sid: str, cursor: _Cursor, follow: bool, synced: asyncio.Event
) -> None:
    async with contextlib.aclosing(facade.log(sid, after=cursor.seq or None, follow=follow)) as items:
        async for item in items:
            match item:
                case Synced(seq=seq):
                    await out.send(json.dumps({} if seq is None else {"seq": seq}), event="log.synced")
                    synced.set()
                case ev.StoredEvent():
                    await _send_event(out, cursor, item)


async def _catch_up(out: EventStream, facade: Sessions, sid: str, cursor: _Cursor) -> None:
    """Send what was committed but not yet tailed, then end (server shutdown)."""
    with contextlib.suppress(ConnectionError):
        while True:
            page = await facade.history(sid, after=cursor.seq, limit=HISTORY_MAX)
            for stored in page.data:
                await _send_event(out, cursor, stored)
            if not page.has_more:
                return


async def _deltas(out: EventStream, subscription: Subscription, synced: asyncio.Event) -> None:
    """Deltas buffered during replay are sent after the marker, in order, then live ones."""
    await synced.wait()
    async for item in subscription:
        if not isinstance(item, ev.HeadAdvanced):
            await out.send(item.model_dump_json(), event="delta")


async def _keepalive(out: EventStream, interval: float) -> None:
    while True:
        await asyncio.sleep(interval)
        await out.comment("keepalive")
