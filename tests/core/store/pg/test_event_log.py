"""The PostgreSQL event log against a real server: order, admission, concurrency, serialization."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.errors import AdmissionConflict, DatabaseUnavailable, SessionExists, UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.store import Store
from agent_tui.testing.postgres_server import PostgresServer
from tests.core.store.pg.helpers import created, prompt, renamed

OWNER = "host-a:1"
TTL_MS = 30_000


async def test_append_reads_back_in_order_as_the_sqlite_store_serializes(pg_url: str, tmp_path: Path) -> None:
    batch = [created(), renamed("one"), prompt("msg_1", "hello"), renamed("two")]
    async with await PgEventLog.open(pg_url) as log:
        lease = await log.acquire("ses_1", OWNER, TTL_MS)
        written = await log.append("ses_1", batch[:2], lease.token)
        written += await log.append("ses_1", batch[2:], lease.token)
        read = await log.events("ses_1")
        assert await log.head_seq("ses_1") == 4
        assert await log.events("ses_1", after=2, limit=1) == [read[2]]
    assert [s.seq for s in read] == [1, 2, 3, 4]
    assert [s.event for s in read] == batch
    assert [s.model_dump() for s in read] == [s.model_dump() for s in written]
    async with await Store.open(tmp_path / "s.db") as store:  # the same rows the SQLite store keeps
        await store.publish_many("ses_1", batch)
        sqlite_rows = [(s.seq, s.type, s.event) for s in await store.events("ses_1")]
    assert [(s.seq, s.type, s.event) for s in read] == sqlite_rows
    with psycopg.connect(pg_url) as conn:
        stored_json = [r[0] for r in conn.execute("SELECT data_json FROM event ORDER BY seq").fetchall()]
    assert stored_json == [ev.encode(e)[1] for e in batch]


async def test_session_must_exist_and_be_created_once(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as log:
        lease = await log.acquire("ses_1", OWNER, TTL_MS)
        with pytest.raises(UnknownSession):
            await log.append("ses_1", [renamed("x")], lease.token)
        await log.append("ses_1", [created()], lease.token)
        with pytest.raises(SessionExists):
            await log.append("ses_1", [created()], lease.token)
        with pytest.raises(SessionExists):
            await log.append("ses_1", [renamed("y"), created()], lease.token)
        assert [s.seq for s in await log.events("ses_1")] == [1]
        assert await log.head_seq("ses_1") == 1


async def test_admission_is_idempotent_and_conflicts_are_specific(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as log:
        for sid in ("ses_1", "ses_2"):
            lease = await log.acquire(sid, OWNER, TTL_MS)
            await log.append(sid, [created()], lease.token)
        first, wrote = await log.admit("ses_1", prompt("msg_1", "hello"))
        again, wrote_again = await log.admit("ses_1", prompt("msg_1", "hello"))
        assert (wrote, wrote_again) == (True, False)
        assert again.model_dump() == first.model_dump() and first.seq == 2
        with pytest.raises(AdmissionConflict, match="different prompt"):
            await log.admit("ses_1", prompt("msg_1", "something else"))
        with pytest.raises(AdmissionConflict, match="already admitted to session ses_1"):
            await log.admit("ses_2", prompt("msg_1", "hello"))
        with pytest.raises(AdmissionConflict, match="as a session.prompt.admitted.1"):
            await log.admit("ses_1", ev.CompactionAdmitted(input_id="msg_1"))
        with pytest.raises(UnknownSession):
            await log.admit("ses_404", prompt("msg_2", "hello"))
        assert [s.seq for s in await log.events("ses_1")] == [1, 2]
        assert [s.seq for s in await log.events("ses_2")] == [1]


async def test_one_input_admitted_from_two_hosts_at_once_is_written_once(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as a, await PgEventLog.open(pg_url) as b:
        lease = await a.acquire("ses_1", OWNER, TTL_MS)
        await a.append("ses_1", [created()], lease.token)
        results = await asyncio.gather(
            *(log.admit("ses_1", prompt(f"msg_{i}", "hi")) for i in range(20) for log in (a, b))
        )
        assert sorted(wrote for _, wrote in results) == [False] * 20 + [True] * 20
        assert [s.seq for s in await a.events("ses_1")] == list(range(1, 22))


async def test_two_concurrent_appenders_get_distinct_consecutive_seqs(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as a, await PgEventLog.open(pg_url) as b:
        lease = await a.acquire("ses_1", OWNER, TTL_MS)
        await a.append("ses_1", [created()], lease.token)
        titles = [f"{log_name}-{i}" for i in range(40) for log_name in ("a", "b")]
        written = await asyncio.gather(
            *(
                (a if title.startswith("a") else b).append("ses_1", [renamed(title), renamed(title + "'")], lease.token)
                for title in titles
            )
        )
        read = await b.events("ses_1", limit=None)
    assert [s.seq for s in read] == list(range(1, 2 + 2 * len(titles)))
    for pair in written:  # each batch is contiguous: one transaction, one range of seqs
        assert pair[1].seq == pair[0].seq + 1
    assert sorted(s.seq for pair in written for s in pair) == list(range(2, 2 + 2 * len(titles)))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=5), max_size=6))
async def test_any_batches_read_back_exactly(pg_url: str, batches: list[list[str]]) -> None:
    async with await PgEventLog.open(pg_url) as log:
        sid = f"ses_{secrets.token_hex(6)}"
        lease = await log.acquire(sid, OWNER, TTL_MS)
        await log.append(sid, [created()], lease.token)
        for batch in batches:
            await log.append(sid, [renamed(t) for t in batch], lease.token)
        read = await log.events(sid, limit=None)
    assert [s.event for s in read[1:]] == [renamed(t) for batch in batches for t in batch]
    assert [s.seq for s in read] == list(range(1, len(read) + 1))


async def test_an_unreachable_database_is_one_clear_error(pg_server: PostgresServer) -> None:
    with pytest.raises(DatabaseUnavailable, match="cannot open database postgresql://postgres@/no_such_db"):
        await PgEventLog.open(pg_server.url("no_such_db"))
