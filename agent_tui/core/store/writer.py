"""The single writer: one connection on one thread, one hop per transaction.

A dedicated thread with stdlib ``sqlite3``, not aiosqlite (which the readers
use, ``reader.py``): the commit budget (DESIGN §13, >= 5 000 commits/s) needs
*our* function — ``BEGIN IMMEDIATE``, allocate seq, insert, project,
``COMMIT`` — to run as one hop on the thread that owns the connection.
aiosqlite's public API is one hop per statement (DESIGN §13: ~1 400 commits/s);
running a whole function on its thread takes its private ``_execute``/``_conn``.
A thread we own gives that directly, with no private API to pin.

Results come back with ``loop.call_soon_threadsafe``; the store's post-commit
hook (bus notifications) runs on the loop *before* the caller's future
resolves, and runs even if the caller was cancelled meanwhile — a commit is a
commit.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agent_tui.core.errors import SessionExists, UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.log import waits
from agent_tui.core.projections.projectors import project
from agent_tui.core.projections.sql import Conn, Dialect, dialect_of
from agent_tui.core.store.crash_seam import kill_after_commit
from agent_tui.core.store.fence import Fence
from agent_tui.vocab.clock import Clock

T = TypeVar("T")
log = logging.getLogger(__name__)


@dataclass
class Tx:
    """What a write job sees: the connection plus the append primitive, on either engine.

    ``conn`` speaks the projectors' portable SQL (``?`` parameters, ``ON CONFLICT`` upserts,
    ``projections/sql.py``): a ``sqlite3.Connection`` as it is, or PostgreSQL's adapter, whose
    ``Tx`` (``pg/store_writer.py``) appends through the head row instead. ``dialect`` says which,
    for the few statements that must differ.
    """

    conn: Conn
    clock: Clock
    heads: dict[str, int] = field(default_factory=dict)
    fence_for: Callable[[str], Fence | None] = field(default=lambda session_id: None)
    """The fence a write to a session carries (``Store.transact`` sets it from the caller's context).
    PostgreSQL's appends send its token; SQLite checks none (the ``flock`` keeps other processes out)."""

    @property
    def dialect(self) -> Dialect:
        return dialect_of(self.conn)

    def head(self, session_id: str) -> int | None:
        """The session's last seq, or ``None`` if no event exists for it."""
        row = self.conn.execute("SELECT max(seq) FROM event WHERE session_id = ?", (session_id,)).fetchone()
        seq: int | None = row[0]
        return seq

    def forget_log(self, session_id: str) -> int:
        """Delete the session's events (``history.delete``; the projections are the caller's); returns how many."""
        count: int = self.conn.execute("DELETE FROM event WHERE session_id = ?", (session_id,)).rowcount
        self.heads.pop(session_id, None)
        return count

    def append(
        self, session_id: str, event: ev.DurableEvent, first_seq: int = 1, at_ms: int | None = None
    ) -> ev.StoredEvent:
        """Next seq = head + 1, insert, project: all inside this transaction.

        ``first_seq`` numbers a new session's first event (a fork continues its parent's seqs);
        ``at_ms`` stamps it with a time other than now (an imported session keeps its source's times).
        """
        head = self.heads.get(session_id)
        if head is None:
            head = self.head(session_id)
        created = isinstance(event, ev.SessionCreated)
        if head is None and not created:
            raise UnknownSession(session_id)
        if head is not None and created:
            raise SessionExists(session_id)
        seq = head + 1 if head is not None else first_seq
        at = self.clock.now_ms() if at_ms is None else at_ms
        type_, data = ev.encode(event)
        self.conn.execute(
            "INSERT INTO event (session_id, seq, type, created_ms, data_json) VALUES (?, ?, ?, ?, ?)",
            (session_id, seq, type_, at, data),
        )
        project(self.conn, session_id, seq, at, event)
        self.heads[session_id] = seq
        return ev.StoredEvent.model_construct(session_id=session_id, seq=seq, type=type_, created=at, event=event)


Job = Callable[[Tx], Any]
Done = Callable[[dict[str, int]], None]


@dataclass(frozen=True)
class _Queued:
    job: Job
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    on_commit: Done
    waits: waits.WaitLedger | None
    """Where the submitter records how long this job queued (``waits.ledger``), if it asked."""
    at: float


class TransactionThread:
    """One connection on one thread; jobs queue and run one transaction each (``_transact``).

    The engines differ in how a transaction is run (``Writer``: SQLite's ``BEGIN IMMEDIATE``;
    ``pg/store_writer.py``: psycopg's); queueing, waits and delivery to the caller are shared.
    """

    driver_error: type[Exception] = sqlite3.Error
    """The driver's exception base: these are handed to ``translate``, others pass as they are."""

    def __init__(self, translate: Callable[[Any], Exception], name: str = "agent-tui-writer") -> None:
        self._translate = translate
        self._after_commit = kill_after_commit()  # a test seam; None unless the environment sets it
        self._jobs: queue.SimpleQueue[_Queued | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[Tx], T], on_commit: Done) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put(_Queued(job, loop, future, on_commit, waits.current(), time.perf_counter()))
        return future

    def _transact(self, job: Job) -> tuple[Any, dict[str, int]]:
        """Run ``job`` as one committed transaction; its result and the heads it moved."""
        raise NotImplementedError

    def _close_connection(self) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        while (item := self._jobs.get()) is not None:
            loop, future = item.loop, item.future
            if item.waits is not None:
                item.waits.add(waits.WRITER, time.perf_counter() - item.at)
            try:
                result, heads = self._transact(item.job)
            except self.driver_error as error:
                _deliver(loop, _fail, future, self._translate(error))
            except Exception as error:  # noqa: BLE001 - handed to the awaiting caller
                _deliver(loop, _fail, future, error)
            else:
                _deliver(loop, _succeed, future, result, item.on_commit, heads)
        self._close_connection()

    def close(self) -> None:
        """Finish queued jobs, close the connection, join the thread."""
        self._jobs.put(None)
        self._thread.join()


class Writer(TransactionThread):
    """SQLite's: owns the write connection and the thread that uses it."""

    def __init__(self, conn: sqlite3.Connection, clock: Clock, translate: Callable[[sqlite3.Error], Exception]) -> None:
        self._conn = conn
        self._clock = clock
        super().__init__(translate)

    def _transact(self, job: Job) -> tuple[Any, dict[str, int]]:
        tx = Tx(self._conn, self._clock)
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            result = job(tx)
            self._conn.execute("COMMIT")
            if tx.heads and self._after_commit is not None:
                self._after_commit()
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        return result, tx.heads

    def _close_connection(self) -> None:
        self._conn.close()


def _deliver(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
    """Hand a result to the caller's loop; a loop that is already gone is not our crash."""
    try:
        loop.call_soon_threadsafe(callback, *args)
    except RuntimeError:  # the loop closed while the job ran: the commit stands
        log.warning("agent-tui writer: caller's event loop closed before a result was delivered")


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _succeed(future: asyncio.Future[Any], result: Any, on_commit: Done, heads: dict[str, int]) -> None:
    try:
        if heads:
            on_commit(heads)
    except Exception:  # a failing subscriber never undoes or hides a commit
        log.exception("agent-tui: post-commit notification failed")
    finally:
        if not future.done():
            future.set_result(result)
