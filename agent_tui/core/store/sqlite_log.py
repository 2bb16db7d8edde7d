"""A SQLite store as one end of ``db copy``: raw rows out, raw rows in with their projections.

Copied rows go in through the store's writer, one transaction per batch: each row is inserted as
stored and projected in the same transaction, exactly as ``rebuild`` replays it, so an interrupted
copy leaves a destination whose projections match its events, and the next run resumes after the
last committed batch. The batch names the session's head so other processes' tails wake up (and
the kill-after-commit test seam counts it as a commit).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_tui.core.errors import CopyConflict, DatabaseUnavailable, EventRejected
from agent_tui.core.projections.projectors import project
from agent_tui.core.settings.config import StorageSettings
from agent_tui.core.store.log_rows import FirstRow, LogRow
from agent_tui.core.store.queries import stored_event
from agent_tui.core.store.store import Store
from agent_tui.core.store.writer import Tx


class SqliteLog:
    """The event log of one SQLite file, through its :class:`Store`."""

    projections_note: str | None = None

    def __init__(self, store: Store) -> None:
        self._store = store
        self.location = store.where

    @classmethod
    async def open(cls, path: Path, settings: StorageSettings | None = None, *, create: bool) -> SqliteLog:
        """Open the file; a source must exist (opening never creates one to copy from)."""
        if not create and not path.is_file():
            raise DatabaseUnavailable(path, "no such file")
        return cls(await Store.open(path, settings))

    async def close(self) -> None:
        await self._store.close()

    async def done(self, session_id: str) -> None:
        """Nothing to give back: each batch was its own transaction."""

    async def first_rows(self) -> list[FirstRow]:
        return [
            FirstRow(sid, LogRow(seq, type_, at, data))
            for sid, seq, type_, at, data in await self._store.first_event_rows()
        ]

    async def head(self, session_id: str) -> int:
        return await self._store.head_seq(session_id)

    async def rows(self, session_id: str, after: int, limit: int) -> list[LogRow]:
        return [LogRow(*row) for row in await self._store.event_rows(session_id, after, limit)]

    async def write(self, session_id: str, after: int, rows: Sequence[LogRow]) -> None:
        def job(tx: Tx) -> None:
            head = tx.head(session_id) or 0
            if head != after:
                raise CopyConflict(
                    session_id, f"{self.location} gained events during the copy (head {head}, not {after})"
                )
            for row in rows:
                tx.conn.execute(
                    "INSERT INTO event (session_id, seq, type, created_ms, data_json) VALUES (?, ?, ?, ?, ?)",
                    (session_id, *row),
                )
                stored = stored_event(session_id, *row)
                try:
                    project(tx.conn, session_id, row.seq, row.created_ms, stored.event)
                except EventRejected as error:
                    raise EventRejected(f"copying {session_id}#{row.seq} ({row.type}): {error}") from None
            tx.heads[session_id] = rows[-1].seq

        if rows:
            await self._store.transact(job)
