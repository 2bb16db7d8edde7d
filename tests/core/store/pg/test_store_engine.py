"""The ``Store`` facade on PostgreSQL, where it differs from SQLite: two hosts on one database (the
bus woken by ``NOTIFY``, a lost notification costing one poll, never an event), a concurrent
admission of one input id, a lease held by a runner, and the selection by URL."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from agent_tui.core.errors import StoreError
from agent_tui.core.inbox.admission import admit_prompt
from agent_tui.core.log import events as ev
from agent_tui.core.settings.config import StorageSettings
from agent_tui.core.store.open import open_store
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.head_watcher import PURPOSE
from agent_tui.core.store.pg.store_engine import open_pg_store
from agent_tui.core.store.store import Store
from agent_tui.core.store.tail import log
from agent_tui.vocab.kinds import Delivery
from tests.core.store.pg.helpers import WAIT_S, created, renamed

WATCHERS = f"WHERE application_name = '{PURPOSE}' AND datname = current_database()"


async def test_a_tail_on_one_host_follows_commits_made_on_another(pg_url: str) -> None:
    async with await open_pg_store(pg_url) as a, await open_pg_store(pg_url) as b:
        await a.publish("ses_1", created())
        stream = log(b, "ses_1", follow=True)
        assert [(await anext(stream)).seq for _ in range(2)] == [1, 1]  # the event, then Synced(1)
        await a.publish_many("ses_1", [renamed("one"), renamed("two")])
        tailed = [await asyncio.wait_for(anext(stream), WAIT_S) for _ in range(2)]
        assert [(t.seq, t.event.title) for t in tailed] == [(2, "one"), (3, "two")]  # type: ignore[union-attr]
        await stream.aclose()


async def test_a_lost_notification_costs_one_poll_never_an_event(pg_url: str) -> None:
    async with await open_pg_store(pg_url) as a, await open_pg_store(pg_url) as b:
        await a.publish("ses_1", created())
        with b.bus.subscribe("ses_1", deltas=False) as heads:
            await _listening(pg_url)
            with psycopg.connect(pg_url, autocommit=True) as admin:  # the listener's connection drops
                admin.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity {WATCHERS}")
            await a.publish("ses_1", renamed("while nobody listened"))
            async with asyncio.timeout(WAIT_S):
                while (woke := await heads.get()).head_seq < 2:  # the head before, from the watcher's first read
                    assert woke.head_seq == 1
            assert (woke.session_id, woke.head_seq) == ("ses_1", 2)
        assert (await b.session("ses_1")).title == "while nobody listened"  # type: ignore[union-attr]


async def _listening(url: str) -> None:
    """Wait until the watcher's connection is open (it listens before its first read)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            with psycopg.connect(url, autocommit=True) as conn:
                if conn.execute(f"SELECT 1 FROM pg_stat_activity {WATCHERS}").fetchone():
                    return
            await asyncio.sleep(0.05)


async def test_two_hosts_admitting_one_input_id_admit_it_once(pg_url: str) -> None:
    async with await open_pg_store(pg_url) as a, await open_pg_store(pg_url) as b:
        await a.publish("ses_1", created())
        parts = ev.text_prompt("hello")

        def admit(tx):  # type: ignore[no-untyped-def]
            return admit_prompt(tx, "ses_1", "msg_once", parts, Delivery.STEER)

        results = await asyncio.gather(*(store.transact(admit) for store in (a, b, a, b)))
        assert sorted(fresh for _, fresh in results) == [False, False, False, True]
        assert {receipt.admitted_seq for receipt, _ in results} == {2}
        assert await a.head_seq("ses_1") == 2


async def test_the_facade_cannot_write_into_a_session_a_runner_holds(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as runner, await open_pg_store(pg_url) as store:
        await store.publish("ses_1", created())
        held = await runner.acquire("ses_1", "host-a", 60_000)
        with pytest.raises(StoreError, match="another host runs this session"):
            await store.publish("ses_1", renamed("unfenced"))
        await runner.release(held)
        await store.publish("ses_1", renamed("after the release"))
        assert [s.seq for s in await store.events("ses_1")] == [1, 2]


async def test_a_url_selects_postgresql_and_no_url_the_sqlite_file(pg_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "store.db"
    async with await open_store(StorageSettings(url=pg_url), path) as on_server:
        assert on_server.path is None and on_server.where.startswith("postgresql://")
        await on_server.publish("ses_1", created())
    assert not path.exists()
    async with await open_store(StorageSettings(), path) as on_file:
        assert on_file.path == path and await on_file.session("ses_1") is None
    assert isinstance(on_file, Store)
