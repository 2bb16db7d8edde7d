"""The aiosqlite reader pool: concurrency, snapshots, cancellation, errors and threads."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiosqlite import Connection

from agent_tui.core.errors import DatabaseLocked, StoreError
from agent_tui.core.log import events as ev
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store import queries as q
from agent_tui.core.store.reader import ReaderPool, consistent_read, fetch, fetch_one
from agent_tui.core.store.store import Store


@pytest.fixture
def store(sqlite_store: Store) -> Store:
    """SQLite's own parts (PostgreSQL's: tests/core/projections/test_both_engines.py, tests/core/store/pg/)."""
    return sqlite_store


@pytest.fixture
async def pool(store: Store) -> AsyncIterator[ReaderPool]:
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    readers = ReaderPool(store.path, StorageSettings(busy_timeout_ms=250))
    try:
        yield readers
    finally:
        await readers.close()


def _reader_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "agent-tui-read"}


async def test_two_reads_run_at_once_and_a_third_waits(pool: ReaderPool) -> None:
    inside: list[int] = []
    release = asyncio.Event()

    async def hold(conn: Connection) -> int:
        inside.append(id(conn))
        await release.wait()
        return await q.head_seq(conn, "ses_1")

    jobs = [asyncio.ensure_future(pool.read(hold)) for _ in range(3)]
    for _ in range(200):
        if len(inside) == 2:
            break
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.02)
    assert len(inside) == 2 and len(set(inside)) == 2  # two connections, the third job waits for one
    release.set()
    assert await asyncio.gather(*jobs) == [1, 1, 1]
    assert len(inside) == 3


async def test_a_snapshot_sees_one_state_across_statements(store: Store, pool: ReaderPool) -> None:
    async def twice(conn: Connection) -> tuple[int, int]:
        async with consistent_read(conn):
            first = await q.head_seq(conn, "ses_1")
            await store.publish("ses_1", ev.ModelSelected(model="m"))  # commits between the two reads
            return first, await q.head_seq(conn, "ses_1")

    assert await pool.read(twice) == (1, 1)
    assert await pool.read(q.head_seq, "ses_1") == 2


async def test_a_cancelled_caller_does_not_leave_its_snapshot_open(store: Store) -> None:
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    pool = ReaderPool(store.path, store.settings, size=1)  # the next read gets the same connection
    started, go = asyncio.Event(), asyncio.Event()
    seen: list[int] = []

    async def slow(conn: Connection) -> None:
        async with consistent_read(conn):
            seen.append(await q.head_seq(conn, "ses_1"))
            started.set()
            await go.wait()
            seen.append(await q.head_seq(conn, "ses_1"))

    try:
        caller = asyncio.ensure_future(pool.read(slow))
        await started.wait()
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        await store.publish("ses_1", ev.ModelSelected(model="m"))
        go.set()  # the job runs on to its COMMIT before the connection is lent again
        assert await pool.read(q.head_seq, "ses_1") == 2
        assert seen == [1, 1]  # it ran to its end, in the snapshot it began
    finally:
        await pool.close()


async def test_a_caller_that_leaves_while_waiting_runs_nothing(store: Store) -> None:
    pool = ReaderPool(store.path, store.settings, size=1)
    ran: list[str] = []
    holding, go = asyncio.Event(), asyncio.Event()

    async def job(conn: Connection, name: str) -> None:
        ran.append(name)
        holding.set()
        await go.wait()

    try:
        first = asyncio.ensure_future(pool.read(job, "first"))
        second = asyncio.ensure_future(pool.read(job, "second"))
        await holding.wait()
        await asyncio.sleep(0.01)  # the second read is waiting for the one connection
        second.cancel()
        go.set()
        await first
        with pytest.raises(asyncio.CancelledError):
            await second
        await pool.read(job, "third")
        assert ran == ["first", "third"]
    finally:
        await pool.close()


async def test_sqlite_errors_become_store_errors_and_the_connection_is_replaced(pool: ReaderPool, store: Store) -> None:
    async def locked(conn: Connection) -> None:
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(DatabaseLocked, match=rf"database {store.path} is locked by another process \(waited 250 ms\)"):
        await pool.read(locked)
    with pytest.raises(StoreError, match=rf"^database {store.path}: no such table: nope$"):
        await pool.read(fetch, "SELECT * FROM nope")
    assert await pool.read(fetch_one, "SELECT count(*) FROM session") == (1,)


async def test_rows_are_built_on_the_connections_thread(pool: ReaderPool) -> None:
    def where(_cursor: Any, row: tuple[Any, ...]) -> str:
        return threading.current_thread().name

    assert await pool.read(fetch, "SELECT 1 UNION ALL SELECT 2", (), where) == ["agent-tui-read"] * 2
    assert await pool.read(fetch, "SELECT 1") == [(1,)]  # the factory was for that statement only


async def test_a_closed_pool_stops_its_threads(store: Store) -> None:
    before = _reader_threads()
    pool = ReaderPool(store.path, store.settings)
    await asyncio.gather(pool.read(fetch, "SELECT 1"), pool.read(fetch, "SELECT 2"))
    ours = _reader_threads() - before
    assert len(ours) == 2 and all(thread.daemon for thread in ours)
    await pool.close()
    deadline = time.monotonic() + 5
    while ours & _reader_threads() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert ours & _reader_threads() == set()
    with pytest.raises(StoreError, match="is closed"):
        await pool.read(fetch, "SELECT 1")


LEFT_OPEN = textwrap.dedent(
    """
    import asyncio, sys
    from agent_tui.core.log import events as ev
    from agent_tui.core.store.store import Store

    async def main(path):
        store = await Store.open(path)  # never closed
        await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
        await asyncio.gather(store.session("ses_1"), store.events("ses_1"))
        print("read", flush=True)

    asyncio.run(main(sys.argv[1]))
    """
)


def test_a_store_left_open_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LEFT_OPEN, str(tmp_path / "open.db")], capture_output=True, text=True, timeout=30
    )
    assert (done.returncode, done.stdout.strip()) == (0, "read"), done.stderr
