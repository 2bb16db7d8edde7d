"""The ``Store`` facade on PostgreSQL, where it differs from SQLite: two hosts on one database (the
bus woken by ``NOTIFY``, a lost notification costing one poll, never an event), a concurrent
admission of one input id, a lease held by a runner, and the selection by URL."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from agent_tui.core.errors import StaleFence, StoreError
from agent_tui.core.inbox.admission import admit_prompt
from agent_tui.core.log import events as ev
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store import fence
from agent_tui.core.store.fence import Fence
from agent_tui.core.store.open import open_store
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.head_watcher import PURPOSE
from agent_tui.core.store.pg.schema import STEERING_TYPES
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


async def test_the_facade_cannot_write_a_runners_events_into_a_session_a_runner_holds(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as runner, await open_pg_store(pg_url) as store:
        await store.publish("ses_1", created())
        held = await runner.acquire("ses_1", "host-a", 60_000)
        with pytest.raises(StoreError, match="another host runs this session"):
            await store.publish("ses_1", ev.ExecutionStarted())
        await store.publish("ses_1", renamed("a steering event goes in"))  # schema.STEERING_TYPES
        await runner.release(held)
        await store.publish("ses_1", ev.ExecutionStarted())
        assert [(s.seq, s.type) for s in await store.events("ses_1")] == [
            (1, ev.SessionCreated.TYPE),
            (2, ev.SessionRenamed.TYPE),
            (3, ev.ExecutionStarted.TYPE),
        ]


async def test_a_url_selects_postgresql_and_no_url_the_sqlite_file(pg_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "store.db"
    async with await open_store(StorageSettings(url=pg_url), path) as on_server:
        assert on_server.path is None and on_server.where.startswith("postgresql://")
        await on_server.publish("ses_1", created())
    assert not path.exists()
    async with await open_store(StorageSettings(), path) as on_file:
        assert on_file.path == path and await on_file.session("ses_1") is None
    assert isinstance(on_file, Store)


async def test_a_write_carries_its_periods_token_and_a_stale_one_raises_stale_fence(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as other, await open_pg_store(pg_url) as store:
        await store.publish("ses_1", created())
        first = await other.acquire("ses_1", "host-a", 60_000)
        refusals: list[int] = []
        old = Fence("ses_1", first.token, refused=lambda: refusals.append(first.token))
        with fence.fencing(old):
            await store.publish("ses_1", ev.ExecutionStarted())
        await other.release(first)
        second = await other.acquire("ses_1", "host-b", 60_000)  # a takeover: the token grows
        with fence.fencing(old), pytest.raises(StaleFence) as refused:
            await store.publish("ses_1", ev.ExecutionSucceeded())
        assert (refused.value.session_id, refused.value.token, refusals) == ("ses_1", first.token, [first.token])
        with fence.fencing(Fence("ses_1", second.token)):
            await store.publish("ses_1", ev.ExecutionStarted())
        cursor = await other._reader.execute(  # noqa: SLF001 - the column no read of the log returns
            "SELECT seq, fence FROM event WHERE session_id = %s ORDER BY seq", ("ses_1",)
        )
        assert await cursor.fetchall() == [(1, None), (2, first.token), (3, second.token)]


async def test_a_write_made_here_outside_the_period_carries_the_running_periods_token(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as other, await open_pg_store(pg_url) as store:
        await store.publish("ses_1", created())
        held = await other.acquire("ses_1", "host-a", 60_000)
        store.running_fence = lambda sid: Fence(sid, held.token) if sid == "ses_1" else None
        await store.publish("ses_1", ev.ExecutionStarted())  # not a steering event: refused unfenced
        assert [s.type for s in await store.events("ses_1")][-1] == ev.ExecutionStarted.TYPE


def test_every_steering_type_names_an_event_and_none_is_a_runners() -> None:
    assert set(STEERING_TYPES) <= set(ev.EVENT_TYPES)
    runners = {ev.ExecutionStarted, ev.StepStarted, ev.ToolCalled, ev.PermissionAsked, ev.SessionRewound}
    assert not {cls.TYPE for cls in runners} & set(STEERING_TYPES)
