"""Rename and delete through the facade: the log, every projection and the snapshot store."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.errors import SessionBusy, UnknownSession
from agent_tui.core.run import lease
from agent_tui.core.run.lease import SessionOwnedElsewhere
from agent_tui.core.runtime import Runtime
from agent_tui.core.sessions import InvalidRequest
from agent_tui.core.store.schema import PROJECTION_TABLES
from agent_tui.testing.fake_provider import FakeProvider

from .test_rewind import _turn


@pytest.fixture
async def runtime(open_runtime: Any):  # type: ignore[no-untyped-def]
    async with await open_runtime(policy="allow", tools="all") as opened:
        yield opened


async def test_rename_keeps_one_trimmed_line_and_refuses_nothing(runtime: Runtime, workdir: Path) -> None:
    sid = (await runtime.sessions.create(location=workdir)).id
    assert (await runtime.sessions.rename(sid, "  Parser\n bug   hunt ")).title == "Parser bug hunt"
    assert [s.title for s in await runtime.sessions.list(search="hunt")] == ["Parser bug hunt"]
    with pytest.raises(InvalidRequest, match="cannot be empty"):
        await runtime.sessions.rename(sid, " \n ")
    with pytest.raises(InvalidRequest, match="at most 200 characters"):
        await runtime.sessions.rename(sid, "x" * 201)
    with pytest.raises(UnknownSession):
        await runtime.sessions.rename("ses_nope", "t")


def _rows_of(database: Path, sid: str) -> dict[str, int]:
    conn = sqlite3.connect(database)
    try:
        counts = {"event": conn.execute("SELECT count(*) FROM event WHERE session_id = ?", (sid,)).fetchone()[0]}
        for table in PROJECTION_TABLES:
            if table in ("search", "permission_approval"):
                continue
            column = "id" if table == "session" else "session_id"
            counts[table] = conn.execute(f"SELECT count(*) FROM {table} WHERE {column} = ?", (sid,)).fetchone()[0]
        return counts
    finally:
        conn.close()


async def test_delete_removes_events_projections_and_snapshots_but_not_the_neighbours(
    runtime: Runtime, fake: FakeProvider, workdir: Path, projection_snapshot: Any
) -> None:
    import subprocess

    fake.add(
        {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "echo a > a.txt"}}]},
        {"text": "a"},
        {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": "echo b > b.txt"}}]},
        {"text": "b"},
    )
    (workdir / "seed.txt").write_text("seed\n")
    doomed = (await runtime.sessions.create(location=workdir)).id
    await _turn(runtime, doomed, "make a")
    kept = (await runtime.sessions.create(location=workdir)).id
    await _turn(runtime, kept, "make b")
    git_dir = runtime.sessions.snapshots.git_dir(workdir)

    def tree_exists(tree: str) -> bool:
        return subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "-e", tree]).returncode == 0

    events = {
        sid: [e.event for e in await runtime._store.events_of_type(sid, ["session.snapshot.taken.1"])]
        for sid in (doomed, kept)
    }
    doomed_tree, kept_tree = events[doomed][0].snapshot_id, events[kept][0].snapshot_id
    assert doomed_tree != kept_tree and tree_exists(doomed_tree)

    assert await runtime.sessions.delete(doomed) > 0
    assert set(_rows_of(runtime.sessions.database, doomed).values()) == {0}
    assert not tree_exists(doomed_tree), "the deleted session's snapshots are gone"
    assert tree_exists(kept_tree), "another session's snapshots at the same place stay"
    assert [s.id for s in await runtime.sessions.list(location=workdir)] == [kept]
    with pytest.raises(UnknownSession):
        await runtime.sessions.delete(doomed)
    live = projection_snapshot(runtime.sessions.database)
    await runtime.sessions.rebuild()
    assert projection_snapshot(runtime.sessions.database) == live


async def test_delete_is_refused_while_running_elsewhere_or_with_forks(
    runtime: Runtime, fake: FakeProvider, workdir: Path
) -> None:
    fake.add({"text": "x"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await _turn(runtime, sid, "hello")
    before = _rows_of(runtime.sessions.database, sid)
    held = await lease.acquire(sid)
    try:
        with pytest.raises(SessionOwnedElsewhere):
            await runtime.sessions.delete(sid)
    finally:
        held.release()
    child = await runtime.sessions.fork(sid)
    with pytest.raises(SessionBusy, match=f"has forks \\({child.id}\\); delete them first"):
        await runtime.sessions.delete(sid)
    assert _rows_of(runtime.sessions.database, sid) == before
    await runtime.sessions.delete(child.id)
    await runtime.sessions.delete(sid)
    assert set(_rows_of(runtime.sessions.database, sid).values()) == {0}
