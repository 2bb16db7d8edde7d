"""The durable event store: one SQLite file, one writer thread, reader pool.

``publish`` runs one function on the writer thread — ``BEGIN IMMEDIATE``,
next seq, insert, project, ``COMMIT`` — and only after the commit tells the
bus ``{session_id, head_seq}``. Reads go to separate aiosqlite connections
(``reader.py``), each running one async query of ``queries.py``. Every
projection can be rebuilt from the ``event`` table alone.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from agent_tui.core.errors import StaleFence, StoreError
from agent_tui.core.log import events as ev
from agent_tui.core.log.records import (
    ApprovalRecord,
    CheckpointRecord,
    InboxRecord,
    MessageRecord,
    PermissionRecord,
    PlanRecord,
    SessionRecord,
    SessionSummary,
    ToolCallRecord,
)
from agent_tui.core.log.usage_records import SessionUsage, UsageGrouping, UsageRow
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store import fence as fences
from agent_tui.core.store import queries as q
from agent_tui.core.store import usage_queries
from agent_tui.core.store.bus import Bus
from agent_tui.core.store.db import connect_raw, translate
from agent_tui.core.store.fence import Fence
from agent_tui.core.store.reader import ReaderPool, ReadJob
from agent_tui.core.store.replay import LOG_IN_ORDER, replay
from agent_tui.core.store.schema import CURRENT_VERSION, PROJECTION_TABLES, check_version, migrate
from agent_tui.core.store.watch import CommitWatcher
from agent_tui.core.store.writer import TransactionThread, Tx, Writer
from agent_tui.vocab.clock import Clock, SystemClock

T = TypeVar("T")
DEFAULT_PAGE = 500


def _open_writer(path: Path, settings: StorageSettings) -> sqlite3.Connection:
    """Open (and create or migrate) the file; refuses anything it must not touch.

    SQLite answers some lock conflicts at open at once, without its busy
    handler: switching a fresh file to WAL while another process reads it, or
    opening while the last connection of another process checkpoints and
    removes its WAL. Opening is idempotent (``migrate`` re-reads the version
    under the write lock), so the whole attempt is retried until the busy
    timeout is spent, and only then reported as locked.
    """
    deadline = time.monotonic() + settings.busy_timeout_ms / 1000
    pause = 0.005
    while True:
        try:
            return _open_writer_once(path, settings)
        except sqlite3.OperationalError as error:
            if not _is_busy(error) or time.monotonic() + pause > deadline:
                raise translate(error, path, settings) from None
        except sqlite3.Error as error:
            raise translate(error, path, settings) from None
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def _is_busy(error: sqlite3.OperationalError) -> bool:
    return error.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _open_writer_once(path: Path, settings: StorageSettings) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = not path.exists()
    conn = connect_raw(path, settings)
    if fresh:  # transcripts are private; -wal and -shm inherit the file's mode
        os.chmod(path, 0o600)
    try:
        version = check_version(conn, path)
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        if version < CURRENT_VERSION:
            migrate(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


class Readers(Protocol):
    """Where reads run: SQLite's :class:`ReaderPool`, or PostgreSQL's (``pg/store_readers.py``)."""

    async def read(self, job: ReadJob[T], *args: Any) -> T: ...

    async def close(self) -> None: ...


class Watcher(Protocol):
    """What tells the bus of other processes' commits: SQLite's :class:`CommitWatcher` polls
    ``data_version``; PostgreSQL's listens for ``NOTIFY`` (``pg/head_watcher.py``)."""

    def start(self) -> None: ...

    async def stop(self) -> None: ...


class Store:
    """Async facade over the writer thread and the reader pool, on either engine.

    SQLite (the default, :meth:`open`) or PostgreSQL (``open_store`` with a URL,
    ``pg/store_engine.py``): the same writes, reads and bus; only the parts differ.
    """

    def __init__(
        self,
        where: str,
        settings: StorageSettings,
        writer: TransactionThread,
        readers: Readers,
        bus: Bus,
        watcher: Callable[[Bus], Watcher],
        path: Path | None = None,
        rebuild: Callable[[Tx], int] | None = None,
    ) -> None:
        self.where = where
        """The database for messages: the file, or the server's URL without its password."""
        self.path = path
        """The SQLite file; None on a server."""
        self.settings = settings
        self.bus = bus
        self._writer = writer
        self._readers = readers
        self._watcher = watcher(bus)
        self._rebuild_job = rebuild or _rebuild
        """The engine's rebuild, run as one write transaction."""
        self.running_fence: Callable[[str], Fence | None] = _no_fence
        """The fence of the period this host runs a session in (``Coordinator.fence``, set by the
        runtime): what a write to a running session made outside the period's tasks carries."""
        self._closed = False

    @classmethod
    async def open(
        cls,
        path: Path | str,
        storage_settings: StorageSettings | None = None,
        *,
        bus: Bus | None = None,
        clock: Clock | None = None,
    ) -> Store:
        path = Path(path)
        settings = storage_settings or StorageSettings()
        conn = await asyncio.to_thread(_open_writer, path, settings)
        writer = Writer(conn, clock or SystemClock(), lambda error: translate(error, path, settings))
        readers = ReaderPool(path, settings)
        store = cls(
            str(path), settings, writer, readers, bus or Bus(), lambda b: CommitWatcher(path, settings, b), path
        )
        store.start()
        return store

    def start(self) -> None:
        """Start telling the bus of other processes' commits (the engine's watcher)."""
        self._watcher.start()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._watcher.stop()
        await asyncio.to_thread(self._writer.close)
        await self._readers.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    # -- writes ---------------------------------------------------------------
    def _notify(self, heads: dict[str, int]) -> None:
        for session_id, head in heads.items():
            self.bus.notify_head(session_id, head)

    async def transact(self, job: Callable[[Tx], T]) -> T:
        """Run ``job(tx)`` as one write transaction; ``tx.append`` publishes events.

        All or nothing: if ``job`` raises, nothing it appended is kept. Heads are
        announced on the bus after the commit.
        """
        if self._closed:
            raise StoreError(f"database {self.where} is closed")
        if self.path is not None:  # SQLite checks no token: the hot path pays nothing for fences
            return await self._writer.submit(job, self._notify)
        fence_for = self._fence_resolver()

        def fenced_job(tx: Tx) -> T:
            tx.fence_for = fence_for
            return job(tx)

        try:
            return await self._writer.submit(fenced_job, self._notify)
        except StaleFence as error:
            refused = fence_for(error.session_id)
            if refused is not None and refused.token == error.token:
                refused.refused()  # the holder lost the session: its drain stops
            raise

    def _fence_resolver(self) -> Callable[[str], Fence | None]:
        """Which fence a write of this context carries to a session: the period's own (``fence.fencing``:
        the drain and the tasks it started, an old period's task keeping its retired token), else the
        fence of the period this host runs the session in (a permission reply, a rename made here
        while it runs), else none (nobody here runs it: the database decides, ``pg/schema.py``)."""
        context = fences.current()
        running = self.running_fence

        def fence_for(session_id: str) -> Fence | None:
            if context is not None and context.session_id == session_id:
                return context
            return running(session_id)

        return fence_for

    async def publish(self, session_id: str, event: ev.DurableEvent) -> ev.StoredEvent:
        return await self.transact(lambda tx: tx.append(session_id, event))

    async def publish_many(self, session_id: str, events: Sequence[ev.DurableEvent]) -> list[ev.StoredEvent]:
        return await self.transact(lambda tx: [tx.append(session_id, event) for event in events])

    async def rebuild(self) -> int:
        """Recreate every projection from ``event`` alone; returns events replayed."""
        count = await self.transact(self._rebuild_job)
        self._notify(await self._readers.read(q.heads))
        return count

    # -- reads ----------------------------------------------------------------
    async def events(
        self, session_id: str, after: int | None = None, limit: int | None = DEFAULT_PAGE
    ) -> list[ev.StoredEvent]:
        return await self._readers.read(q.events, session_id, after, limit)

    async def head_seq(self, session_id: str) -> int:
        return await self._readers.read(q.head_seq, session_id)

    async def event_rows(self, session_id: str, after: int, limit: int) -> list[tuple[int, str, int, str]]:
        """Rows as stored, undecoded (``db copy`` moves them byte for byte)."""
        return await self._readers.read(q.event_rows, session_id, after, limit)

    async def first_event_rows(self) -> list[tuple[str, int, str, int, str]]:
        return await self._readers.read(q.first_event_rows)

    async def session(self, session_id: str) -> SessionRecord | None:
        return await self._readers.read(q.session, session_id)

    async def most_recent_session(self, location: str | Path) -> SessionRecord | None:
        return await self._readers.read(q.most_recent_session, str(location))

    async def list_sessions(
        self,
        location: str | Path | None = None,
        search: str | None = None,
        limit: int = 50,
        offset: int = 0,
        top_level: bool = False,
    ) -> list[SessionSummary]:
        where = None if location is None else str(location)
        return await self._readers.read(q.list_sessions, where, search, limit, offset, top_level)

    async def children(self, session_ids: Sequence[str]) -> list[SessionSummary]:
        return await self._readers.read(q.children, list(session_ids))

    async def messages(
        self, session_id: str, after: int | None = None, before: int | None = None, limit: int | None = None
    ) -> list[MessageRecord]:
        return await self._readers.read(q.messages, session_id, after, before, limit)

    async def tool_calls(
        self, session_id: str, states: Sequence[str] | None = None, name: str | None = None
    ) -> list[ToolCallRecord]:
        """The session's tool calls in log order; only those in ``states`` and of tool ``name`` when given."""
        return await self._readers.read(q.tool_calls, session_id, list(states) if states else None, name)

    async def pending_inputs(self, session_id: str) -> list[InboxRecord]:
        return await self._readers.read(q.pending_inputs, session_id)

    async def queue_paused(self, session_id: str) -> bool:
        return await self._readers.read(q.queue_paused, session_id)

    async def input(self, input_id: str) -> InboxRecord | None:
        return await self._readers.read(q.input_row, input_id)

    async def checkpoint(self, session_id: str) -> CheckpointRecord | None:
        return await self._readers.read(q.checkpoint, session_id)

    async def plan(self, session_id: str) -> PlanRecord:
        return await self._readers.read(q.plan, session_id)

    async def session_usage(self, session_id: str, subagents: bool = True) -> SessionUsage:
        return await self._readers.read(usage_queries.session_usage, session_id, subagents)

    async def usage_report(self, by: UsageGrouping, since_ms: int | None, until_ms: int | None) -> list[UsageRow]:
        return await self._readers.read(usage_queries.usage_report, by, since_ms, until_ms)

    async def context_entries(self, session_id: str) -> dict[str, Any]:
        return await self._readers.read(q.context_entries, session_id)

    async def approvals(self, project_root: str | Path) -> list[ApprovalRecord]:
        return await self._readers.read(q.approvals, str(project_root))

    async def revoke_approvals(self, project_root: str | Path, approvals: list[ApprovalRecord], at_ms: int) -> None:
        """Hide these saved approvals of ``project_root`` from now on (see ``permission_revocation``)."""
        rows = [(str(project_root), a.action, a.pattern, at_ms) for a in approvals]

        def job(tx: Tx) -> None:
            tx.conn.executemany(
                "INSERT INTO permission_revocation (project_root, action, pattern, revoked) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (project_root, action, pattern) DO UPDATE SET revoked = excluded.revoked",
                rows,
            )

        await self.transact(job)

    async def pending_permissions(self, session_id: str) -> list[PermissionRecord]:
        return await self._readers.read(q.pending_permissions, session_id)

    async def permission(self, request_id: str) -> PermissionRecord | None:
        return await self._readers.read(q.permission, request_id)

    async def running_compactions(self, session_id: str) -> tuple[list[tuple[str, str]], str | None]:
        """``[(message_id, reason)]`` of compactions still running, and the started manual barrier."""
        return await self._readers.read(q.running_compactions, session_id)

    async def message_anywhere(self, message_id: str) -> MessageRecord | None:
        return await self._readers.read(q.message_anywhere, message_id)

    async def events_of_type(
        self,
        session_id: str,
        types: Sequence[str],
        after: int = 0,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[ev.StoredEvent]:
        return await self._readers.read(q.events_of_type, session_id, list(types), after, limit, newest_first)

    async def compaction_failed_before(self, session_id: str, error_type: str, message: str) -> bool:
        return await self._readers.read(q.compaction_failed_before, session_id, error_type, message)


def _no_fence(session_id: str) -> Fence | None:
    return None


def _rebuild(tx: Tx) -> int:
    conn = cast(sqlite3.Connection, tx.conn)
    for table in PROJECTION_TABLES:
        conn.execute(f"DELETE FROM {table}")
    return replay(conn, conn.cursor().execute(LOG_IN_ORDER.format(order="rowid")))
