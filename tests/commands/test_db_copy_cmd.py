"""``agent-tui db copy`` as a person runs it: real processes, real files, a real PostgreSQL server;
killed mid-copy, it resumes where it stopped."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from agent_tui.core.api import copy_log
from agent_tui.core.store.crash_seam import ENV as KILL_AFTER_COMMIT
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.store import Store
from tests.commands.test_store_commands import agent_tui
from tests.core.projections.engines import Snapshot, pg_snapshot, sqlite_snapshot
from tests.core.store.pg.helpers import created, renamed
from tests.core.store.test_copy import pg_rows, sqlite_rows
from tests.core.store.test_copy_forks import parent_rewound_after_its_fork

EVENTS = 10


async def ten_events(path: Path, session_id: str = "ses_a") -> Path:
    async with await Store.open(path) as store:
        await store.publish_many(session_id, [created(), *(renamed(f"title {n}") for n in range(EVENTS - 1))])
    return path


def killed_after_two_batches(source: str, destination: str) -> subprocess.CompletedProcess[str]:
    return agent_tui("db", "copy", source, destination, "--batch", "3", env={KILL_AFTER_COMMIT: "2"})


async def postgres_rebuilt(url: str) -> Snapshot:
    """What the projections of ``url`` would be if replayed from its events alone."""
    async with await PgEventLog.open(url) as log:
        await log.rebuild()
    return pg_snapshot(url)


async def test_sqlite_to_postgres_killed_mid_copy_keeps_projections_with_their_events(
    pg_url: str, tmp_path: Path
) -> None:
    source = await ten_events(tmp_path / "src.db")
    killed = killed_after_two_batches(str(source), pg_url)
    assert killed.returncode == -signal.SIGKILL
    assert [row[1] for row in pg_rows(pg_url)] == [1, 2, 3, 4, 5, 6]  # two whole batches, nothing torn
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT head_seq, title FROM session").fetchone() == (6, "title 4")
    interrupted = pg_snapshot(pg_url)
    assert await postgres_rebuilt(pg_url) == interrupted  # the projections are exactly their events'
    resumed = agent_tui("db", "copy", str(source), pg_url, "--batch", "3")  # the lease left behind is taken back
    assert resumed.returncode == 0, resumed.stderr
    assert "ses_a  resumed 4 of 10 events" in resumed.stdout
    assert "verified 1 of 1" in resumed.stdout and "note:" not in resumed.stdout
    assert pg_rows(pg_url) == sqlite_rows(source)
    assert pg_snapshot(pg_url) == sqlite_snapshot(source)
    again = agent_tui("db", "copy", str(source), pg_url)
    assert again.returncode == 0 and "(0 events); 1 already there; verified 1 of 1" in again.stdout


@pytest.mark.parametrize("kill_after", [2, 5, 7])
async def test_forks_killed_mid_copy_resume_in_commit_order(pg_url: str, tmp_path: Path, kill_after: int) -> None:
    """Batches of 3: the parent to its fork point (commits 1-3), the fork to its own fork's (4-6), the
    fork's fork (7), the rest. Killed anywhere, the projections are their events'; resumed, the source's."""
    source = await parent_rewound_after_its_fork(tmp_path / "src.db")
    killed = agent_tui("db", "copy", str(source), pg_url, "--batch", "3", env={KILL_AFTER_COMMIT: str(kill_after)})
    assert killed.returncode == -signal.SIGKILL
    interrupted = pg_snapshot(pg_url)
    assert await postgres_rebuilt(pg_url) == interrupted
    resumed = agent_tui("db", "copy", str(source), pg_url, "--batch", "3")
    assert resumed.returncode == 0, resumed.stderr
    assert pg_rows(pg_url) == sqlite_rows(source)
    assert pg_snapshot(pg_url) == sqlite_snapshot(source)


async def test_postgres_to_sqlite_killed_mid_copy_keeps_projections_with_their_events(
    pg_url: str, tmp_path: Path
) -> None:
    await copy_log(str(await ten_events(tmp_path / "seed.db")), pg_url)
    target = tmp_path / "dst.db"
    killed = killed_after_two_batches(pg_url, str(target))
    assert killed.returncode == -signal.SIGKILL
    conn = sqlite3.connect(target)
    try:
        assert conn.execute("SELECT max(seq) FROM event").fetchone() == (6,)
        assert conn.execute("SELECT head_seq, title FROM session").fetchone() == (6, "title 4")
    finally:
        conn.close()
    resumed = agent_tui("db", "copy", pg_url, str(target), "--batch", "3")
    assert resumed.returncode == 0, resumed.stderr
    assert "ses_a  resumed 4 of 10 events" in resumed.stdout and "note:" not in resumed.stdout
    assert sqlite_rows(target) == pg_rows(pg_url)
    async with await Store.open(target) as store:
        record = await store.session("ses_a")
    assert record is not None and (record.head_seq, record.title) == (EVENTS, "title 8")


async def test_the_default_store_is_named_default(pg_url: str) -> None:
    from agent_tui.core.api import paths

    await ten_events(paths.database_path())
    out = agent_tui("db", "copy", "default", pg_url, "--session", "ses_a", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert f"would copy {paths.database_path()} -> " in out.stdout
    assert "1 of 1 sessions to copy (10 events)" in out.stdout
    with psycopg.connect(pg_url) as conn:  # nothing written, not even the schema
        assert conn.execute("SELECT to_regclass('event')").fetchone() == (None,)


async def test_a_mismatch_or_conflict_exits_non_zero_naming_the_session(pg_url: str, tmp_path: Path) -> None:
    source = await ten_events(tmp_path / "src.db")
    target = await ten_events(tmp_path / "dst.db")  # the same id, another session (other times, other titles)
    async with await Store.open(target) as store:
        await store.publish(("ses_a"), renamed("only here"))
    out = agent_tui("db", "copy", str(source), str(target))
    assert out.returncode == 1
    assert "ses_a  CONFLICT: session ses_a:" in out.stdout
    assert out.stderr.startswith("agent-tui: 1 of 1 sessions were not copied: session ses_a: ")


def test_a_bad_location_is_one_line(tmp_path: Path) -> None:
    missing = agent_tui("db", "copy", str(tmp_path / "nothing.db"), str(tmp_path / "out.db"))
    assert (
        missing.returncode == 1
        and missing.stderr == f"agent-tui: cannot open database {tmp_path / 'nothing.db'}: no such file\n"
    )
    assert not (tmp_path / "out.db").exists()
    foreign = agent_tui("db", "copy", "mysql://db/x", str(tmp_path / "out.db"))
    assert foreign.returncode == 1 and "not a SQLite file or a postgresql:// URL" in foreign.stderr
    same = agent_tui("db", "copy", str(tmp_path / "a.db"), str(tmp_path / "a.db"))
    assert same.returncode == 1 and "the same database" in same.stderr


async def test_an_unreachable_server_is_one_line_without_the_password(tmp_path: Path) -> None:
    source = await ten_events(tmp_path / "src.db")
    url = f"postgresql://me:s3cret@/agent?host={tmp_path / 'no-server'}"
    out = agent_tui("db", "copy", str(source), url)
    assert out.returncode == 1 and out.stderr.count("\n") == 1
    assert "agent-tui: cannot open database postgresql://me:***@" in out.stderr and "s3cret" not in out.stderr


async def test_a_missing_driver_says_which_extra_to_install(tmp_path: Path) -> None:
    source = await ten_events(tmp_path / "src.db")
    without_psycopg = (
        "import sys; sys.modules['psycopg'] = None; from agent_tui.cli import main; raise SystemExit(main())"
    )
    out = subprocess.run(
        [sys.executable, "-c", without_psycopg, "db", "copy", str(source), "postgresql:///agent"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
    )
    assert out.returncode == 1, out.stderr
    assert "pip install 'agent-tui[postgres]'" in out.stderr
