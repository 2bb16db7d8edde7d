"""Reader connections: a small pool of aiosqlite connections, one read job each at a time.

WAL lets readers run while the writer commits, so reads never queue behind
the writer thread; two connections let two reads run at once. A read job
borrows one connection for its whole run: a single statement in autocommit
mode is its own snapshot (:func:`fetch`), and a job of several statements
wraps them in :func:`consistent_read` (``BEGIN`` ... ``COMMIT``) to see one snapshot.

Why aiosqlite here and not for the writer (``writer.py``): a read is a
statement or two, and aiosqlite's public API runs each statement as one hop
to the connection's thread. The writer's commit budget needs *our* function —
seq allocation, insert, projection, ``COMMIT`` — to run as one hop on the
connection's thread, which aiosqlite offers only through private API
(``_execute``/``_conn``), so the writer keeps its own thread and stdlib
``sqlite3``.

Records are built as rows are fetched, by a per-statement ``row_factory``
that runs on the connection's thread (as the old thread pool did), so
decoding a long history never stalls the event loop.

A job runs to its end even if its caller is cancelled (its ``COMMIT`` must
run before the connection is lent again); a job that fails leaves its
connection in an unknown state (an unfinished statement, an open
transaction), so that connection is closed, not reused.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, cast, overload

import aiosqlite

from agent_tui.core.errors import StoreError
from agent_tui.core.log import waits
from agent_tui.core.projections.sql import SQLITE, Dialect
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store.db import connect, translate

T = TypeVar("T")
R = TypeVar("R")
C = TypeVar("C")
READERS = 2
RowFactory = Callable[[sqlite3.Cursor, tuple[Any, ...]], R]
"""Builds one row's value (a record) from the cursor and the row's values."""
ReadJob = Callable[..., Awaitable[T]]


class ServerReadConn(Protocol):
    """A reader connection of a database server (PostgreSQL's, ``pg/store_readers.py``).

    The queries are written once with ``?`` parameters; this connection translates them, builds
    each row's value with ``row(None, values)``, and opens a snapshot for :func:`consistent_read`.
    """

    dialect: Dialect

    async def fetch(self, sql: str, params: tuple[Any, ...], row: RowFactory[Any] | None) -> list[Any]: ...

    def snapshot(self) -> contextlib.AbstractAsyncContextManager[None]: ...


ReadConn = aiosqlite.Connection | ServerReadConn
"""What a read query runs on: an aiosqlite connection (the default engine, unwrapped) or a server's."""


def dialect(conn: ReadConn) -> Dialect:
    """The SQL dialect of a reader connection, for the few statements that differ."""
    return SQLITE if isinstance(conn, aiosqlite.Connection) else conn.dialect


@overload
async def fetch(conn: ReadConn, sql: str, params: Iterable[Any] = (), row: None = None) -> list[Any]: ...
@overload
async def fetch(conn: ReadConn, sql: str, params: Iterable[Any], row: RowFactory[R]) -> list[R]: ...
@overload
async def fetch(conn: ReadConn, sql: str, params: Iterable[Any] = (), *, row: RowFactory[R]) -> list[R]: ...


async def fetch(conn: ReadConn, sql: str, params: Iterable[Any] = (), row: RowFactory[Any] | None = None) -> list[Any]:
    """Every row of one statement, in one hop; ``row(cursor, values)`` builds each on the connection's thread.

    Without ``row``, each row is the driver's tuple of values (typed ``Any``, as sqlite3's own rows are).
    A server's connection gets the statement as it is (``ServerReadConn.fetch``).
    """
    if not isinstance(conn, aiosqlite.Connection):
        return await conn.fetch(sql, tuple(params), row)
    # aiosqlite annotates row_factory as a class; sqlite3 takes any callable of (cursor, row).
    conn.row_factory = cast("type | None", row)  # the connection is lent to this job alone, so this statement gets it
    try:
        return list(await conn.execute_fetchall(sql, tuple(params)))
    finally:
        conn.row_factory = None


@overload
async def fetch_one(conn: ReadConn, sql: str, params: Iterable[Any] = (), row: None = None) -> Any: ...
@overload
async def fetch_one(conn: ReadConn, sql: str, params: Iterable[Any], row: RowFactory[R]) -> R | None: ...
@overload
async def fetch_one(conn: ReadConn, sql: str, params: Iterable[Any] = (), *, row: RowFactory[R]) -> R | None: ...


async def fetch_one(conn: ReadConn, sql: str, params: Iterable[Any] = (), row: RowFactory[Any] | None = None) -> Any:
    """The first row of one statement, or ``None``; the statement still runs to its end (no open snapshot)."""
    rows = await fetch(conn, sql, params, row)
    return rows[0] if rows else None


@contextlib.asynccontextmanager
async def consistent_read(conn: ReadConn) -> AsyncIterator[None]:
    """Several statements that must see one snapshot: ``BEGIN`` (deferred) ... ``COMMIT``."""
    if not isinstance(conn, aiosqlite.Connection):
        async with conn.snapshot():
            yield
        return
    await conn.execute_fetchall("BEGIN")
    try:
        yield
    finally:
        await conn.execute_fetchall("COMMIT")


def _connector(path: Path, settings: StorageSettings) -> sqlite3.Connection:
    """Runs on the connection's aiosqlite thread: the store's PRAGMAs, and a name to find the thread by."""
    threading.current_thread().name = "agent-tui-read"
    return connect(path, settings, reader=True)


async def _open(path: Path, settings: StorageSettings) -> aiosqlite.Connection:
    """A connection opened by ``db.connect(..., reader=True)`` on its own aiosqlite thread.

    aiosqlite's worker thread is not a daemon and lives until ``close()``; a
    store a caller forgot to close must not keep the process alive (the writer
    thread is a daemon for the same reason; a reader has no write to finish).
    A new thread inherits the daemon flag of the thread that creates it, so the
    proxy (which creates its worker thread) is built on a short daemon thread.
    """
    built: concurrent.futures.Future[aiosqlite.Connection] = concurrent.futures.Future()

    def build() -> None:
        try:
            built.set_result(aiosqlite.Connection(partial(_connector, path, settings), 64))
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting opener
            built.set_exception(error)

    threading.Thread(target=build, name="agent-tui-read-open", daemon=True).start()
    proxy = await asyncio.wrap_future(built)
    return await proxy  # starts the worker thread, which runs the connector (errors already translated)


class ConnectionPool(Generic[C]):
    """Up to ``size`` connections, opened on first need, each lent to one read job at a time.

    The engines differ in how a connection is opened and closed and which driver errors become
    store errors (``_open_connection``, ``_close_connection``, ``_translate``); the lending is shared.
    """

    def __init__(self, where: str, size: int = READERS) -> None:
        self._where = where
        self._slots = asyncio.Semaphore(size)  # one per connection, open or not yet opened
        self._idle: list[C] = []
        self._jobs: set[asyncio.Future[Any]] = set()
        self._closed = False

    async def _open_connection(self) -> C:
        raise NotImplementedError

    async def _close_connection(self, conn: C) -> None:
        raise NotImplementedError

    def _translate(self, error: BaseException) -> Exception | None:
        """The store error for a driver error (None: let it through as it is)."""
        raise NotImplementedError

    async def read(self, job: ReadJob[T], *args: Any) -> T:
        """Run ``await job(conn, *args)`` on a borrowed reader connection."""
        if self._closed:
            raise StoreError(f"database {self._where} is closed")
        gave_up = asyncio.Event()
        task = asyncio.ensure_future(self._lend(job, args, gave_up))
        self._jobs.add(task)
        task.add_done_callback(self._finished)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            gave_up.set()
            raise

    async def _lend(self, job: ReadJob[T], args: tuple[Any, ...], gave_up: asyncio.Event) -> T:
        conn = await self._acquire()
        if gave_up.is_set():  # the caller left while this waited for a connection: nothing to run
            self._release(conn)
            raise asyncio.CancelledError
        try:
            result = await job(conn, *args)
        except BaseException as error:
            await self._retire(conn)
            translated = self._translate(error)
            if translated is not None:
                raise translated from None
            raise
        self._release(conn)
        return result

    def _finished(self, task: asyncio.Future[Any]) -> None:
        self._jobs.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a caller that gave up never sees it

    async def _acquire(self) -> C:
        queued, ledger = time.perf_counter(), waits.current()
        await self._slots.acquire()
        if ledger is not None:
            ledger.add(waits.READER, time.perf_counter() - queued)
        if self._idle:
            return self._idle.pop()
        try:
            return await self._open_connection()
        except BaseException:
            self._slots.release()
            raise

    def _release(self, conn: C) -> None:
        self._idle.append(conn)
        self._slots.release()

    async def _retire(self, conn: C) -> None:
        self._slots.release()  # a waiting job may open a fresh connection in this slot
        with contextlib.suppress(Exception):
            await self._close_connection(conn)

    async def close(self) -> None:
        """Refuse new reads, let lent jobs finish, then close every connection (and its thread)."""
        self._closed = True
        while self._jobs:
            await asyncio.gather(*self._jobs, return_exceptions=True)
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                await self._close_connection(conn)


class ReaderPool(ConnectionPool[aiosqlite.Connection]):
    """SQLite's readers: aiosqlite connections with the store's PRAGMAs, ``query_only``."""

    def __init__(self, path: Path, settings: StorageSettings, size: int = READERS) -> None:
        super().__init__(str(path), size)
        self._path = path
        self._settings = settings

    async def _open_connection(self) -> aiosqlite.Connection:
        return await _open(self._path, self._settings)

    async def _close_connection(self, conn: aiosqlite.Connection) -> None:
        await conn.close()

    def _translate(self, error: BaseException) -> Exception | None:
        return translate(error, self._path, self._settings) if isinstance(error, sqlite3.Error) else None
