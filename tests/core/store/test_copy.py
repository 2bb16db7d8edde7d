"""``db copy`` between real SQLite files and a real PostgreSQL server: both ways, idempotent,
verified, refusing what it must not overwrite."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.log import events as ev
from agent_tui.core.store.copy import copy_log
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.schema import MIGRATIONS
from agent_tui.core.store.store import Store
from tests.core.projections.engines import pg_snapshot, sqlite_snapshot
from tests.core.store.pg.helpers import created, prompt, renamed

Publish = Callable[[Store, str], Awaitable[dict[str, list[ev.DurableEvent]]]]
Snapshot = Callable[[Path], dict[str, list[tuple[object, ...]]]]
SCRIPT_SESSIONS = ["ses_main", "ses_child", "ses_spawned"]
SEARCHES = ["parser", "PARS", "bug hunt", "zanz", "nothing-like-this"]


def sqlite_rows(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT session_id, seq, type, created_ms, data_json FROM event ORDER BY 1, 2").fetchall()
    finally:
        conn.close()


def pg_rows(url: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT session_id, seq, type, created_ms, data_json FROM event ORDER BY 1, 2").fetchall()


async def seeded(path: Path, publish_every_event: Publish, location: Path) -> Path:
    async with await Store.open(path) as store:
        await publish_every_event(store, str(location))
    return path


async def test_round_trip_sqlite_postgres_sqlite_projects_the_same_rows_on_every_side(
    publish_every_event: Publish, projection_snapshot: Snapshot, pg_url: str, tmp_path: Path
) -> None:
    source = await seeded(tmp_path / "src.db", publish_every_event, tmp_path)
    there = await copy_log(str(source), pg_url)
    assert [(s.session_id, s.state) for s in there.sessions] == [(sid, "copied") for sid in SCRIPT_SESSIONS]
    assert there.verified == 3 and there.problems == []
    assert there.events_copied == len(sqlite_rows(source)) == len(pg_rows(pg_url))
    assert pg_rows(pg_url) == sqlite_rows(source)  # every row byte for byte, times included
    on_postgres = pg_snapshot(pg_url)
    assert all(on_postgres.values()), {table: len(rows) for table, rows in on_postgres.items()}
    assert on_postgres == sqlite_snapshot(source)  # sessions, messages, tool calls, inbox, search ...

    back = tmp_path / "back.db"
    returned = await copy_log(pg_url, str(back))
    assert [s.state for s in returned.sessions] == ["copied"] * 3
    assert [s.checksum for s in returned.sessions] == [s.checksum for s in there.sessions]
    assert sqlite_rows(back) == sqlite_rows(source)
    assert projection_snapshot(back) == projection_snapshot(source)  # messages, tool calls, inbox, search ...
    async with await Store.open(back) as store:
        rebuilt = await store.rebuild()
    assert rebuilt == len(sqlite_rows(source)) and projection_snapshot(back) == projection_snapshot(source)


async def test_sessions_copied_into_postgres_are_found_by_its_search(
    publish_every_event: Publish, pg_url: str, tmp_path: Path
) -> None:
    source = await seeded(tmp_path / "src.db", publish_every_event, tmp_path)
    async with await Store.open(source) as store:
        await store.publish("ses_spawned", renamed("zanzibar trip"))
        expected = {text: sorted(s.id for s in await store.list_sessions(search=text)) for text in SEARCHES}
    await copy_log(str(source), pg_url, batch=5)
    async with await PgEventLog.open(pg_url) as log:
        found = {text: sorted(await log.search(text)) for text in SEARCHES}
    assert found == expected
    assert found["parser"] == ["ses_child", "ses_main"] and found["zanz"] == ["ses_spawned"]
    assert found["nothing-like-this"] == []


async def test_a_copy_into_a_log_only_database_resumes_onto_projections_rebuilt_from_its_log(
    pg_url: str, tmp_path: Path
) -> None:
    """A PostgreSQL database of the log-only first step (schema version 1), half-filled by a copy then."""
    source = tmp_path / "src.db"
    async with await Store.open(source) as store:
        await store.publish_many("ses_a", [created(), prompt("msg_1", "hello"), ev.PromptPromoted(input_id="msg_1")])
        await store.publish_many("ses_a", [renamed("Greeting"), renamed("Greeting again")])
    copied_then = sqlite_rows(source)[:3]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE agent_tui_schema (version INTEGER NOT NULL)")
        conn.execute(MIGRATIONS[0].encode())
        conn.execute("INSERT INTO agent_tui_schema VALUES (1)")
        conn.execute("INSERT INTO session_head VALUES ('ses_a', 3)")
        conn.execute("INSERT INTO session_lease VALUES ('ses_a', 'agent-tui db copy', 1, now())")
        with conn.cursor() as cursor:
            cursor.executemany("INSERT INTO event VALUES (%s, %s, %s, %s, %s, 1)", copied_then)
    report = await copy_log(str(source), pg_url)
    assert [(s.state, s.copied) for s in report.sessions] == [("resumed", 2)]
    assert pg_snapshot(pg_url) == sqlite_snapshot(source)


async def test_a_second_run_copies_nothing_and_verifies_everything(
    publish_every_event: Publish, pg_url: str, tmp_path: Path
) -> None:
    source = await seeded(tmp_path / "src.db", publish_every_event, tmp_path)
    first = await copy_log(str(source), pg_url, batch=7)
    again = await copy_log(str(source), pg_url, batch=7)
    assert [s.state for s in again.sessions] == ["present"] * 3
    assert again.events_copied == 0 and again.verified == 3
    assert [s.checksum for s in again.sessions] == [s.checksum for s in first.sessions]
    back = tmp_path / "back.db"
    await copy_log(pg_url, str(back))
    assert (await copy_log(pg_url, str(back))).events_copied == 0
    assert len(pg_rows(pg_url)) == len(sqlite_rows(back)) == len(sqlite_rows(source))


async def test_new_events_at_the_source_are_appended_on_the_next_run(pg_url: str, tmp_path: Path) -> None:
    source = tmp_path / "src.db"
    async with await Store.open(source) as store:
        await store.publish_many("ses_a", [created(), renamed("one")])
        await copy_log(str(source), pg_url)
        await store.publish_many("ses_a", [renamed("two"), prompt("msg_1", "hi")])
    report = await copy_log(str(source), pg_url)
    assert [(s.state, s.copied, s.events) for s in report.sessions] == [("resumed", 2, 4)]
    assert pg_rows(pg_url) == sqlite_rows(source)


async def test_sessions_written_on_postgres_copy_to_sqlite_with_projections(pg_url: str, tmp_path: Path) -> None:
    async with await PgEventLog.open(pg_url) as log:
        lease = await log.acquire("ses_pg", "host-a", 30_000)
        await log.append("ses_pg", [created()], lease.token)
        await log.admit("ses_pg", prompt("msg_1", "written on postgres"))
        await log.append("ses_pg", [ev.PromptPromoted(input_id="msg_1"), renamed("from pg")], lease.token)
        await log.release(lease)
    target = tmp_path / "dst.db"
    report = await copy_log(pg_url, str(target))
    assert [(s.state, s.events) for s in report.sessions] == [("copied", 4)]
    async with await Store.open(target) as store:
        record = await store.session("ses_pg")
        messages = await store.messages("ses_pg")
    assert record is not None and record.title == "from pg" and record.head_seq == 4
    assert [m.id for m in messages] == ["msg_1"]


async def test_the_admission_key_survives_the_copy_so_a_retried_prompt_is_not_admitted_twice(
    pg_url: str, tmp_path: Path
) -> None:
    source = tmp_path / "src.db"
    async with await Store.open(source) as store:
        await store.publish_many("ses_a", [created(), prompt("msg_1", "hello")])
    await copy_log(str(source), pg_url)
    async with await PgEventLog.open(pg_url) as log:
        stored, fresh = await log.admit("ses_a", prompt("msg_1", "hello"))
        assert (stored.seq, fresh) == (2, False)
        lease = await log.acquire("ses_a", "host-a", 30_000)  # the copy gave its lease back
        assert [s.seq for s in await log.append("ses_a", [renamed("later")], lease.token)] == [3]


async def test_a_different_session_under_the_same_id_is_refused_and_kept(pg_url: str, tmp_path: Path) -> None:
    source, target = tmp_path / "src.db", tmp_path / "dst.db"
    async with await Store.open(source) as store:
        await store.publish_many("ses_a", [created(), renamed("source")])
        await store.publish_many("ses_b", [created()])
    async with await Store.open(target) as store:
        await store.publish_many("ses_a", [ev.SessionCreated(location="/elsewhere", project_root="/elsewhere")])
    before = sqlite_rows(target)
    report = await copy_log(str(source), str(target))
    assert [(s.session_id, s.state) for s in report.sessions] == [("ses_a", "conflict"), ("ses_b", "copied")]
    assert "holds a different session under this id" in str(report.problems[0].problem)
    assert [row for row in sqlite_rows(target) if row[0] == "ses_a"] == before


async def test_a_session_that_went_on_at_the_destination_is_refused(pg_url: str, tmp_path: Path) -> None:
    source = tmp_path / "src.db"
    async with await Store.open(source) as store:
        await store.publish_many("ses_a", [created()])
    await copy_log(str(source), pg_url)
    async with await PgEventLog.open(pg_url) as log:
        lease = await log.acquire("ses_a", "host-a", 30_000)
        await log.append("ses_a", [renamed("on postgres")], lease.token)
        await log.release(lease)
    report = await copy_log(str(source), pg_url)
    assert report.sessions[0].state == "conflict"
    assert "up to seq 2, the source only up to 1" in str(report.sessions[0].problem)


async def test_a_checksum_mismatch_after_copying_is_reported(pg_url: str, tmp_path: Path) -> None:
    async with await PgEventLog.open(pg_url):
        pass  # the schema, so the damaging trigger has a table to sit on
    with psycopg.connect(pg_url, autocommit=True) as conn:  # a destination that alters what it stores
        conn.execute(
            "CREATE FUNCTION damage() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            " IF NEW.type = 'session.renamed.1' THEN NEW.data_json := '{\"title\": \"damaged\"}'; END IF;"
            " RETURN NEW; END $$"
        )
        conn.execute("CREATE TRIGGER a_damage BEFORE INSERT ON event FOR EACH ROW EXECUTE FUNCTION damage()")
    source = tmp_path / "src.db"
    async with await Store.open(source) as store:
        await store.publish_many("ses_a", [created(), renamed("kept"), prompt("msg_1", "hi")])
    report = await copy_log(str(source), pg_url)
    assert [(s.state, s.checksum) for s in report.sessions] == [("mismatch", None)]
    assert "checksum" in str(report.sessions[0].problem) and report.verified == 0
    again = await copy_log(str(source), pg_url)  # what is there now is not the source's
    assert again.sessions[0].state == "conflict" and "event #2" in str(again.sessions[0].problem)


async def test_a_session_run_by_another_host_is_not_written(pg_url: str, tmp_path: Path) -> None:
    source = tmp_path / "src.db"
    async with await Store.open(source) as store:
        await store.publish_many("ses_a", [created()])
    async with await PgEventLog.open(pg_url) as log:
        await log.acquire("ses_a", "host-a", 30_000)
        report = await copy_log(str(source), pg_url)
        assert await log.head_seq("ses_a") == 0
    assert report.sessions[0].state == "conflict" and "run by host-a" in str(report.sessions[0].problem)


async def test_chosen_sessions_bring_their_fork_parent(
    publish_every_event: Publish, pg_url: str, tmp_path: Path
) -> None:
    source = await seeded(tmp_path / "src.db", publish_every_event, tmp_path)
    report = await copy_log(str(source), pg_url, session_ids=["ses_child"])
    assert [s.session_id for s in report.sessions] == ["ses_main", "ses_child"]
    assert report.parents_added == ["ses_main"]
    assert {row[0] for row in pg_rows(pg_url)} == {"ses_main", "ses_child"}
    with pytest.raises(Exception, match="ses_nope"):
        await copy_log(str(source), pg_url, session_ids=["ses_nope"])


async def test_a_dry_run_writes_nothing(publish_every_event: Publish, pg_url: str, tmp_path: Path) -> None:
    source = await seeded(tmp_path / "src.db", publish_every_event, tmp_path)
    target = tmp_path / "dst.db"
    report = await copy_log(str(source), str(target), dry_run=True)
    assert [s.state for s in report.sessions] == ["would copy"] * 3
    assert report.events_copied == len(sqlite_rows(source)) and not target.exists()
    to_pg = await copy_log(str(source), pg_url, dry_run=True)
    assert to_pg.events_copied == report.events_copied
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('event')").fetchone() == (None,)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(max_size=40).filter(lambda t: "\x00" not in t), min_size=1, max_size=6))
async def test_any_text_survives_both_ways_byte_for_byte(pg_url: str, tmp_path: Path, texts: list[str]) -> None:
    sid = f"ses_{secrets.token_hex(6)}"
    source, back = tmp_path / f"{sid}.db", tmp_path / f"{sid}.back.db"
    async with await Store.open(source) as store:
        await store.publish_many(sid, [created(), *(renamed(text) for text in texts)])
    there = await copy_log(str(source), pg_url, session_ids=[sid], batch=2)
    returned = await copy_log(pg_url, str(back), session_ids=[sid], batch=3)
    assert there.sessions[0].checksum == returned.sessions[0].checksum is not None
    assert sqlite_rows(back) == sqlite_rows(source)


async def test_a_fork_whose_log_starts_after_its_parents_seq_keeps_its_seqs(pg_url: str, tmp_path: Path) -> None:
    source, back = tmp_path / "src.db", tmp_path / "back.db"
    fork = ev.SessionCreated(location="/work/project", project_root="/work/project", parent_id="ses_a")
    async with await Store.open(source) as store:
        await store.publish_many("ses_a", [created(), renamed("one"), renamed("two")])
        await store.transact(lambda tx: tx.append("ses_f", fork, first_seq=3))
        await store.publish_many("ses_f", [ev.SessionForked(parent_id="ses_a", parent_seq=2), renamed("fork")])
    await copy_log(str(source), pg_url, batch=2)
    async with await PgEventLog.open(pg_url) as log:
        assert [s.seq for s in await log.events("ses_f")] == [3, 4, 5] and await log.head_seq("ses_f") == 5
        lease = await log.acquire("ses_f", "host-a", 30_000)
        assert [s.seq for s in await log.append("ses_f", [renamed("on pg")], lease.token)] == [6]
        await log.release(lease)
    report = await copy_log(pg_url, str(back))
    assert [(s.session_id, s.state) for s in report.sessions] == [("ses_a", "copied"), ("ses_f", "copied")]
    assert [row for row in sqlite_rows(back) if row[1] <= 5] == sqlite_rows(source)
