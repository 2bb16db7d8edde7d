"""Contention ledgers (``core.log.waits``): the store's writer and readers and the thread pool add the
time a job queued behind others to the ledger open where the job was started, and only there."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from aiosqlite import Connection

from agent_tui.core.log import events as ev
from agent_tui.core.log import waits
from agent_tui.core.store import queries as q
from agent_tui.core.store.reader import ReaderPool
from agent_tui.core.store.store import Store
from agent_tui.core.store.writer import Tx


async def test_a_commit_queued_behind_another_records_how_long_it_waited_for_the_writer(store: Store) -> None:
    running, release = threading.Event(), threading.Event()

    def hold(_: Tx) -> None:  # another session's long transaction, on the writer's thread
        running.set()
        release.wait(10)

    holder = asyncio.ensure_future(store.transact(hold))
    await asyncio.to_thread(running.wait, 10)
    with waits.ledger() as ledger:
        queued = asyncio.ensure_future(store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w")))
        for _ in range(3):  # the publish reaches the writer's queue before the hold is timed
            await asyncio.sleep(0)
        submitted = time.perf_counter()
    while time.perf_counter() - submitted < 0.05:  # the other transaction goes on for a known while
        await asyncio.sleep(0.01)
    held = time.perf_counter() - submitted
    release.set()
    await asyncio.gather(holder, queued)
    assert ledger.seconds()[waits.WRITER] >= held


async def test_a_read_waiting_for_a_free_connection_records_the_wait(store: Store) -> None:
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    pool = ReaderPool(store.path, store.settings, size=1)
    holding, go = asyncio.Event(), asyncio.Event()

    async def hold(_: Connection) -> None:
        holding.set()
        await go.wait()

    try:
        first = asyncio.ensure_future(pool.read(hold))  # outside any ledger: records nowhere
        await holding.wait()
        with waits.ledger() as ledger:
            second = asyncio.ensure_future(pool.read(q.head_seq, "ses_1"))
        for _ in range(3):  # the read starts and queues for the connection before the hold is timed
            await asyncio.sleep(0)
        started = time.perf_counter()
        while time.perf_counter() - started < 0.05:
            await asyncio.sleep(0.01)
        held = time.perf_counter() - started
        go.set()
        await first
        assert await second == 1
        assert ledger.seconds()[waits.READER] >= held
    finally:
        await pool.close()


async def test_a_file_read_waiting_for_a_worker_thread_records_the_wait() -> None:
    loop = asyncio.get_running_loop()
    busy, release = threading.Event(), threading.Event()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=1))

    def occupy() -> None:
        busy.set()
        release.wait(10)

    occupier = asyncio.ensure_future(asyncio.to_thread(occupy))
    while not busy.is_set():
        await asyncio.sleep(0.005)
    with waits.ledger() as ledger:
        read = asyncio.ensure_future(waits.in_thread(sum, [1, 2, 3]))
    started = time.perf_counter()
    while time.perf_counter() - started < 0.05:
        await asyncio.sleep(0.01)
    held = time.perf_counter() - started
    release.set()
    assert await read == 6
    await occupier
    assert ledger.seconds()[waits.THREADS] >= held


async def test_work_outside_a_ledger_records_nothing(store: Store) -> None:
    outer = waits.WaitLedger()
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    assert waits.current() is None and outer.seconds() == {}
    with waits.ledger() as first:
        with waits.ledger() as inner:
            await store.publish("ses_1", ev.ModelSelected(model="m"))
        assert waits.current() is first
    assert set(inner.seconds()) == {waits.WRITER} and first.seconds() == {}
