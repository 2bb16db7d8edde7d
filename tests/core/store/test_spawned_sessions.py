"""Subagents' sessions in the store: the ``spawned_by`` link (schema V4), top-level lists, children."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_tui.core.log import events as ev
from agent_tui.core.store import schema
from agent_tui.core.store.peek import peek_sessions
from agent_tui.core.store.store import Store


def _link(parent: str, call_id: str) -> ev.SpawnedBy:
    return ev.SpawnedBy(session_id=parent, assistant_message_id="msg_a", call_id=call_id)


async def test_children_are_listed_under_their_parent_not_at_the_top(store: Store) -> None:
    await store.publish("ses_p", ev.SessionCreated(location="/w", project_root="/w", title="parent"))
    await store.publish("ses_c1", ev.SessionCreated(location="/w", project_root="/w", spawned_by=_link("ses_p", "c1")))
    await store.publish("ses_c2", ev.SessionCreated(location="/w", project_root="/w", spawned_by=_link("ses_p", "c2")))
    await store.publish("ses_f", ev.SessionCreated(location="/w", project_root="/w", parent_id="ses_p"))  # a fork

    assert {s.id for s in await store.list_sessions("/w")} == {"ses_p", "ses_c1", "ses_c2", "ses_f"}
    assert {s.id for s in await store.list_sessions("/w", top_level=True)} == {"ses_p", "ses_f"}
    children = await store.children(["ses_p"])
    assert [(c.id, c.spawned_by, c.spawned_message_id, c.spawned_call_id) for c in children] == [
        ("ses_c1", "ses_p", "msg_a", "c1"),
        ("ses_c2", "ses_p", "msg_a", "c2"),
    ]
    assert await store.children(["ses_f"]) == []
    assert await store.children([]) == []
    assert (await store.most_recent_session("/w")).id in {"ses_p", "ses_f"}  # type: ignore[union-attr]


async def test_peek_lists_top_level_sessions_only(sqlite_store: Store, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    await sqlite_store.publish("ses_p", ev.SessionCreated(location="/w", project_root="/w"))
    await sqlite_store.publish(
        "ses_c", ev.SessionCreated(location="/w", project_root="/w", spawned_by=_link("ses_p", "c"))
    )
    monkeypatch.setattr("agent_tui.core.settings.paths.database_path", lambda: sqlite_store.path)
    assert [row.id for row in peek_sessions("/w", 10)] == ["ses_p"]


async def test_a_v3_file_migrates_and_keeps_its_sessions(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for script in schema.MIGRATIONS[:3]:
        for statement in schema._statements(script):
            conn.execute(statement)
    conn.execute(
        "INSERT INTO session (id, location, project_root, agent, created, updated) VALUES ('ses_old', '/w', '/w', 'build', 1, 1)"
    )
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    store = await Store.open(path)
    try:
        old = await store.session("ses_old")
        assert old is not None and old.spawned_by is None
        await store.publish(
            "ses_new", ev.SessionCreated(location="/w", project_root="/w", spawned_by=_link("ses_old", "x"))
        )
        assert [c.id for c in await store.children(["ses_old"])] == ["ses_new"]
    finally:
        await store.close()
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == schema.CURRENT_VERSION >= 4
    check.close()
