"""Projections on PostgreSQL: written in the append's transaction, fenced with it, rebuilt from the log."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

from agent_tui.core.errors import StaleFence
from agent_tui.core.log import events as ev
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.schema import MIGRATIONS
from tests.core.store.pg.helpers import created, prompt, renamed, take_over

SHORT_MS = 300
LONG_MS = 30_000


def _rows(url: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql.encode(), params).fetchall()


async def test_a_stale_token_append_leaves_neither_the_event_nor_its_projection(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as a, await PgEventLog.open(pg_url) as b:
        old = await a.acquire("ses_1", "host-a", SHORT_MS)
        await a.append("ses_1", [created(), prompt("msg_1", "hello there")], old.token)
        session_before = _rows(pg_url, "SELECT * FROM session")
        new = await take_over(b, "ses_1", "host-b", LONG_MS)
        with pytest.raises(StaleFence):
            await a.append("ses_1", [ev.PromptPromoted(input_id="msg_1"), renamed("a wakes up")], old.token)
        assert await b.head_seq("ses_1") == 2
        assert _rows(pg_url, "SELECT * FROM session") == session_before
        assert _rows(pg_url, "SELECT id FROM message") == []
        assert _rows(pg_url, "SELECT promoted_seq FROM session_input WHERE id = 'msg_1'") == [(None,)]
        assert await b.search("wakes") == []
        await b.append("ses_1", [ev.PromptPromoted(input_id="msg_1")], new.token)  # the new owner's write projects
        assert _rows(pg_url, "SELECT id, seq FROM message") == [("msg_1", 3)]
        assert _rows(pg_url, "SELECT head_seq, message_count, last_message FROM session") == [(3, 1, "hello there")]
        assert await b.search("hello") == ["ses_1"]


async def test_two_hosts_writing_one_session_project_every_write_in_seq_order(pg_url: str) -> None:
    async with await PgEventLog.open(pg_url) as a, await PgEventLog.open(pg_url) as b:
        lease = await a.acquire("ses_1", "host-a", LONG_MS)
        await a.append("ses_1", [created()], lease.token)
        hosts = (("a", a), ("b", b))
        await asyncio.gather(
            *(log.admit("ses_1", prompt(f"msg_{name}{i}", f"prompt {i}")) for i in range(15) for name, log in hosts),
            *(
                log.append("ses_1", [renamed(f"title {name}{i}")], lease.token)
                for i in range(15)
                for name, log in hosts
            ),
        )
        events = await a.events("ses_1", limit=None)
    admitted = {s.event.input_id: s.seq for s in events if isinstance(s.event, ev.PromptAdmitted)}
    assert dict(_rows(pg_url, "SELECT id, admitted_seq FROM session_input")) == admitted
    last_title = [s.event.title for s in events if isinstance(s.event, ev.SessionRenamed)][-1]
    assert _rows(pg_url, "SELECT title, head_seq FROM session") == [(last_title, len(events))]
    assert _rows(pg_url, "SELECT text FROM search_doc WHERE message_id = ''") == [(last_title,)]


async def test_a_log_only_database_is_projected_when_opened(pg_url: str) -> None:
    """A database of the first step (the log alone, schema version 1) gets its projections from its log."""
    events = [created(), prompt("msg_1", "hello"), ev.PromptPromoted(input_id="msg_1"), renamed("Greeting")]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE agent_tui_schema (version INTEGER NOT NULL)")
        conn.execute(MIGRATIONS[0].encode())
        conn.execute("INSERT INTO agent_tui_schema VALUES (1)")
        conn.execute("INSERT INTO session_lease VALUES ('ses_1', 'host-a', 1, now() + interval '1 minute')")
        conn.execute("INSERT INTO session_head VALUES ('ses_1', %s)", (len(events),))
        for seq, event in enumerate(events, start=1):
            conn.execute(
                "INSERT INTO event (session_id, seq, type, created_ms, data_json, fence) VALUES ('ses_1', %s, %s, %s, %s, 1)",
                (seq, *ev.encode(event)[:1], 1_000 + seq, ev.encode(event)[1]),
            )
    async with await PgEventLog.open(pg_url) as log:
        assert await log.search("greet") == ["ses_1"]
    assert _rows(pg_url, "SELECT title, head_seq, message_count, updated FROM session") == [("Greeting", 4, 1, 1_004)]
    assert _rows(pg_url, "SELECT max(version) FROM agent_tui_schema") == [(len(MIGRATIONS),)]
