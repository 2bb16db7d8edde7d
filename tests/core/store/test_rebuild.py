"""Projections rebuilt from ``event`` alone equal the live ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.store.store import Store


@pytest.fixture
def store(sqlite_store: Store) -> Store:
    """SQLite's own parts (PostgreSQL's: tests/core/projections/test_both_engines.py, tests/core/store/pg/)."""
    return sqlite_store


async def test_script_exercises_every_durable_event_type(publish_every_event, store: Store, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = await publish_every_event(store, str(tmp_path))
    used = {type(event) for events in script.values() for event in events}
    missing = sorted(cls.__name__ for cls in set(ev.DURABLE_EVENTS) - used)
    assert missing == [], f"extend tests/core/conftest.py every_event_script with: {missing}"


async def test_rebuild_equals_live_projection(  # type: ignore[no-untyped-def]
    publish_every_event, projection_snapshot, store: Store, tmp_path: Path
) -> None:
    await publish_every_event(store, str(tmp_path))
    live = projection_snapshot(store.path)
    assert all(live[table] for table in live), {t: len(rows) for t, rows in live.items()}
    replayed = await store.rebuild()
    assert replayed == sum(
        [len(await store.events(sid, limit=None)) for sid in ("ses_main", "ses_child", "ses_spawned")]
    )
    assert projection_snapshot(store.path) == live


async def test_rebuild_survives_reopen_and_skips_unknown_types(  # type: ignore[no-untyped-def]
    publish_every_event, projection_snapshot, tmp_path: Path
) -> None:
    path = tmp_path / "db.sqlite"
    store = await Store.open(path)
    await publish_every_event(store, str(tmp_path))
    live = projection_snapshot(path)
    await store.close()
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO event (session_id, seq, type, created_ms, data_json)"
        " SELECT 'ses_main', max(seq) + 1, 'session.hologram.projected.3', 1, '{\"beam\": 1}' FROM event"
        " WHERE session_id = 'ses_main'"
    )
    conn.commit()
    conn.close()
    reopened = await Store.open(path)
    try:
        await reopened.rebuild()
        rebuilt = projection_snapshot(path)
        head = await reopened.head_seq("ses_main")
    finally:
        await reopened.close()
    main_before = next(r for r in live["session"] if r[0] == "ses_main")
    main_after = next(r for r in rebuilt["session"] if r[0] == "ses_main")
    head_seq = 15  # the session table's column
    assert main_after[head_seq] == head == main_before[head_seq] + 1  # head_seq moved to the unknown event
    assert {k: v for k, v in rebuilt.items() if k != "session"} == {k: v for k, v in live.items() if k != "session"}
