"""Wake this process's tails when any host commits on PostgreSQL: ``LISTEN`` as a hint, then re-query.

SQLite's ``CommitWatcher`` polls ``data_version``; here ``event_notify`` signals ``<session> <head>``
on :data:`~agent_tui.core.store.pg.schema.CHANNEL` for every commit, from any host, and this
watcher hands it to the bus (``notify_head``), whose subscribers re-read the store by seq. The
notification is only a hint: after every poll interval (and after every reconnect) the watched
sessions' heads are read again, so a lost notification (a dropped connection, a server restart)
costs one interval, never an event. It runs only while the bus has subscribers, as SQLite's does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import StoreError
from agent_tui.core.store.bus import Bus
from agent_tui.core.store.pg.connect import connect
from agent_tui.core.store.pg.schema import CHANNEL
from agent_tui.core.store.watch import WatcherTask

if TYPE_CHECKING:
    from psycopg import AsyncConnection

PURPOSE = "agent-tui head watcher"
"""The watcher's ``application_name`` (``pg_stat_activity`` shows whose connection it is)."""
POLL_S = 1.0
RECENT_SESSIONS = 50
log = logging.getLogger(__name__)


class PgHeadWatcher(WatcherTask):
    name = "agent-tui-pg-head-watcher"

    def __init__(self, url: str, bus: Bus, poll_s: float = POLL_S) -> None:
        super().__init__()
        self._url = url
        self._bus = bus
        self._poll_s = poll_s
        self._conn: AsyncConnection[tuple[Any, ...]] | None = None

    async def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    async def _run(self) -> None:
        import psycopg

        while True:
            await self._bus.watching.wait()
            try:
                await self._watch()
            except (psycopg.Error, StoreError, OSError) as error:  # the server went away: reconnect later
                log.debug("pg head watcher: %s", error)
                await self._release()
                await asyncio.sleep(self._poll_s)

    async def _watch(self) -> None:
        """Listen while someone subscribes: forward notifications, re-read the heads every interval."""
        from psycopg import sql

        if self._conn is None:
            self._conn = await connect(self._url, PURPOSE)
            await self._conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
        conn = self._conn
        while self._bus.watching.is_set():
            await self._requery(conn)
            async for notice in conn.notifies(timeout=self._poll_s):
                self._heard(notice.payload)
        await self._release()  # nobody listens: no notifications pile up meanwhile

    def _heard(self, payload: str) -> None:
        session_id, _, head = payload.rpartition(" ")
        watched = self._bus.watched_sessions()
        if head.isdigit() and (watched is None or session_id in watched):
            self._bus.notify_head(session_id, int(head))

    async def _requery(self, conn: AsyncConnection[tuple[Any, ...]]) -> None:
        watched = self._bus.watched_sessions()
        if watched is None:
            cursor = await conn.execute(
                "SELECT id, head_seq FROM session ORDER BY updated DESC LIMIT %s", (RECENT_SESSIONS,)
            )
        elif watched:
            cursor = await conn.execute(
                "SELECT session_id, head FROM session_head WHERE session_id = ANY(%s)", (sorted(watched),)
            )
        else:
            return
        for session_id, head in await cursor.fetchall():
            self._bus.notify_head(session_id, int(head))
