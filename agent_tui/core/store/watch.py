"""Notice commits made by *other* processes and wake this process's tails.

Chosen: poll ``PRAGMA data_version`` on a private connection, every
:data:`POLL_INTERVAL` seconds, and only while the bus has subscribers.
``data_version`` changes exactly when another connection committed, whatever
happened to the ``-wal`` file meanwhile (checkpoint resets, truncation,
deletion when the last connection closes, recreation) — the cases where a
file watcher on ``-wal`` misses or double-fires. It needs no inotify watch,
works on any filesystem, and a poll costs one tiny query. A hit still needs a
SQL read to learn *which* sessions moved, which a file event could not tell.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
from pathlib import Path

from agent_tui.core.errors import StoreError
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store.bus import Bus
from agent_tui.core.store.db import connect

POLL_INTERVAL = 0.05
RECENT_SESSIONS = 50
log = logging.getLogger(__name__)


class WatcherTask:
    """A commit watcher's task: started with the store, cancelled (then ``_release``) when it closes."""

    name = "agent-tui-commit-watcher"

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._release()

    async def _run(self) -> None:
        raise NotImplementedError

    async def _release(self) -> None:
        """Close what the watcher holds open."""


class CommitWatcher(WatcherTask):
    def __init__(self, path: Path, settings: StorageSettings, bus: Bus, interval: float = POLL_INTERVAL) -> None:
        super().__init__()
        self._path = path
        self._settings = settings
        self._bus = bus
        self._interval = interval
        self._conn: sqlite3.Connection | None = None
        self._version: int | None = None
        self._lock = threading.Lock()  # a cancelled poll may still be running in its thread

    async def _release(self) -> None:
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    async def _run(self) -> None:
        while True:
            await self._bus.watching.wait()
            try:
                heads = await asyncio.to_thread(self._poll, self._bus.watched_sessions())
            except (sqlite3.Error, StoreError) as error:  # busy or replaced file: try again next tick
                log.debug("commit watcher poll failed: %s", error)
                heads = []
            for session_id, head in heads:
                self._bus.notify_head(session_id, head)
            await asyncio.sleep(self._interval)

    def _poll(self, watched: set[str] | None) -> list[tuple[str, int]]:
        with self._lock:
            return self._poll_locked(watched)

    def _poll_locked(self, watched: set[str] | None) -> list[tuple[str, int]]:
        if self._conn is None:
            self._conn = connect(self._path, self._settings, reader=True)
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if version == self._version:
            return []
        self._version = version
        if watched is None:
            sql = "SELECT id, head_seq FROM session ORDER BY updated DESC LIMIT ?"
            rows = self._conn.execute(sql, (RECENT_SESSIONS,)).fetchall()
        elif watched:
            marks = ",".join("?" * len(watched))
            rows = self._conn.execute(
                f"SELECT session_id, max(seq) FROM event WHERE session_id IN ({marks}) GROUP BY session_id",
                tuple(watched),
            ).fetchall()
        else:
            rows = []
        return [(sid, head) for sid, head in rows if head > self._bus.last_head(sid)]
