"""Bad files and bad input: one specific line each, and nothing overwritten."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_tui.core.errors import CorruptEvent, DatabaseCorrupt, DatabaseLocked, DatabaseTooNew
from agent_tui.core.log import events as ev
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store.schema import CURRENT_VERSION, check_version, migrate
from agent_tui.core.store.store import Store


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_corrupt_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "agent-tui.db"
    path.write_bytes(b"this is not sqlite at all" * 200)
    before = _digest(path)
    with pytest.raises(DatabaseCorrupt, match=rf"database {path} is corrupt"):
        await Store.open(path)
    assert _digest(path) == before
    assert not Path(f"{path}-wal").exists()


async def test_foreign_sqlite_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(DatabaseCorrupt, match="no agent-tui schema version"):
        await Store.open(path)
    assert _digest(path) == before


async def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "agent-tui.db"
    store = await Store.open(path)
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    await store.close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {CURRENT_VERSION + 1}")
    conn.close()
    before = _digest(path)
    with pytest.raises(DatabaseTooNew, match=rf"schema version {CURRENT_VERSION + 1}, newer"):
        await Store.open(path)
    assert _digest(path) == before


HOLD_LOCK = textwrap.dedent(
    """
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("UPDATE session SET title = 'held'")
    print("locked", flush=True)
    sys.stdin.readline()
    conn.execute("ROLLBACK")
    """
)


async def test_locked_database_gives_a_specific_error_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "agent-tui.db"
    store = await Store.open(path, StorageSettings(busy_timeout_ms=100))
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(DatabaseLocked, match=r"is locked by another process \(waited 100 ms\)"):
            await store.publish("ses_1", ev.ModelSelected(model="m"))
        assert await store.head_seq("ses_1") == 1  # reads do not wait for the writer
    finally:
        holder.communicate("go\n", timeout=10)
    assert (await store.publish("ses_1", ev.ModelSelected(model="m"))).seq == 2
    await store.close()


async def _store_with_raw_rows(path: Path, rows: list[tuple[int, str, str]]) -> Store:
    """A store whose session ``ses_1`` has extra rows written by raw SQL (another build)."""
    store = await Store.open(path)
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    conn = sqlite3.connect(path)
    conn.executemany("INSERT INTO event VALUES ('ses_1', ?, ?, 1, ?)", rows)
    conn.commit()
    conn.close()
    return store


async def test_malformed_stored_payload_names_the_row(tmp_path: Path) -> None:
    store = await _store_with_raw_rows(tmp_path / "a.db", [(2, "session.step.started.1", '{"agent": "build"}')])
    try:
        with pytest.raises(CorruptEvent, match=r"ses_1#2 is unreadable: malformed session.step.started.1"):
            await store.events("ses_1")
        with pytest.raises(CorruptEvent, match="ses_1#2"):
            await store.rebuild()
        assert (await store.session("ses_1")) is not None  # the failed rebuild rolled back
    finally:
        await store.close()


async def test_forward_compatible_reads(tmp_path: Path) -> None:
    store = await _store_with_raw_rows(
        tmp_path / "a.db",
        [
            (2, "session.model.selected.1", '{"model": "m2", "added_in_v9": {"x": 1}}'),
            (3, "session.hologram.projected.3", '{"beam": 1}'),
        ],
    )
    try:
        events = await store.events("ses_1")
        assert events[1].event == ev.ModelSelected(model="m2")
        assert isinstance(events[2].event, ev.UnknownEvent)
        assert '"type": "session.hologram.projected.3"' in events[2].to_json_line()
        assert (await store.publish("ses_1", ev.ModelSelected(model="m3"))).seq == 4
    finally:
        await store.close()


async def test_two_processes_opening_a_fresh_file_migrate_once(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    code = (
        "import asyncio,sys; from agent_tui.core.store.store import Store\n"
        "async def m():\n    s = await Store.open(sys.argv[1]); await s.close()\nasyncio.run(m())"
    )
    procs = [await asyncio.create_subprocess_exec(sys.executable, "-c", code, str(path)) for _ in range(3)]
    assert [await p.wait() for p in procs] == [0, 0, 0]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_a_migration_committed_while_the_version_is_read_is_not_a_foreign_database(tmp_path: Path) -> None:
    """Another process may finish migrating between any two statements this one runs."""
    path = tmp_path / "fresh.db"
    sqlite3.connect(path).close()
    reader = sqlite3.connect(path, isolation_level=None)
    migrated = False

    def other_process_migrates(statement: str) -> None:
        nonlocal migrated
        if not migrated and "sqlite_master" in statement:
            migrated = True
            other = sqlite3.connect(path, isolation_level=None)
            migrate(other, path)
            other.close()

    reader.set_trace_callback(other_process_migrates)
    try:
        assert check_version(reader, path) in (0, CURRENT_VERSION)
    finally:
        reader.close()
    assert migrated


def test_open_retries_a_lock_conflict_sqlite_reports_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite answers some conflicts at open without its busy handler; the open tries again."""
    from agent_tui.core.store import store as store_module

    real = store_module.check_version
    conflicts = iter([True, True])

    def busy_twice(conn: sqlite3.Connection, path: Path) -> int:
        if next(conflicts, False):
            busy = sqlite3.OperationalError("database is locked")
            busy.sqlite_errorcode = sqlite3.SQLITE_BUSY  # as sqlite3 sets it
            raise busy
        return real(conn, path)

    monkeypatch.setattr(store_module, "check_version", busy_twice)
    conn = store_module._open_writer(tmp_path / "a.db", StorageSettings())
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == CURRENT_VERSION
    finally:
        conn.close()


async def test_pragmas_follow_storage_settings(tmp_path: Path) -> None:
    from agent_tui.core.store.db import connect

    full = StorageSettings(synchronous="full", busy_timeout_ms=1234)
    conn = connect(tmp_path / "p.db", full)
    try:
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 1234
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    finally:
        conn.close()
    conn = connect(tmp_path / "p.db", StorageSettings())
    try:
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    finally:
        conn.close()


async def test_a_new_database_is_private_to_its_user(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "new.db")
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    try:
        assert (tmp_path / "new.db").stat().st_mode & 0o777 == 0o600
        assert Path(f"{tmp_path / 'new.db'}-wal").stat().st_mode & 0o077 == 0
    finally:
        await store.close()
