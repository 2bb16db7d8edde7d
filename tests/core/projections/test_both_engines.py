"""The same projectors on SQLite and PostgreSQL: same events in, same rows out.

Each test runs on both engines (the ``engine`` fixture); the cross-engine test appends the script
that covers every durable event type to both and compares every projected row, column for column.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.errors import EventRejected
from agent_tui.core.log import events as ev
from tests.core.conftest import every_event_script
from tests.core.projections.engines import Engine, Snapshot, close_engine, open_engine

ENGINES = ["sqlite", "postgresql"]
SEARCHES = ["parser", "PARS", "bug hunt", "look around", "tried", "AGENTS", "nothing-like-this", "child"]


@pytest.fixture(params=ENGINES)
async def engine(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Engine]:
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
    opened = await open_engine(request.param, tmp_path, url)
    try:
        yield opened
    finally:
        await close_engine(opened)


async def _append_script(engine: Engine, location: str) -> int:
    count = 0
    for session_id, events in every_event_script(location, location).items():
        for event in events:
            await engine.append(session_id, event)
            count += 1
    return count


async def test_rebuild_equals_the_incremental_projection(engine: Engine, tmp_path: Path) -> None:
    appended = await _append_script(engine, str(tmp_path))
    live = await engine.snapshot()
    assert all(live.values()), {table: len(rows) for table, rows in live.items()}
    assert await engine.rebuild() == appended
    assert await engine.snapshot() == live


async def test_a_refused_event_leaves_neither_the_event_nor_its_projection(engine: Engine, tmp_path: Path) -> None:
    await engine.append("ses_1", ev.SessionCreated(location=str(tmp_path), project_root=str(tmp_path)))
    await engine.append("ses_1", ev.PromptAdmitted(input_id="msg_1", prompt=ev.text_prompt("hello")))
    before = await engine.snapshot()
    with pytest.raises(EventRejected, match="unknown input msg_404"):
        await engine.append("ses_1", ev.PromptPromoted(input_id="msg_404"))
    with pytest.raises(EventRejected, match="already has a pending compaction"):
        await engine.append("ses_1", ev.CompactionAdmitted(input_id="msg_c1"))
        await engine.append("ses_1", ev.CompactionAdmitted(input_id="msg_c2"))
    assert await engine.head("ses_1") == 3  # the first compaction only
    after = await engine.snapshot()
    assert [r for r in after["session_input"] if r[0] != "msg_c1"] == before["session_input"]
    assert len(after["message"]) == len(before["message"]) + 1  # msg_c1's queued divider


async def test_both_engines_project_the_same_rows_and_find_the_same_sessions(
    tmp_path: Path, pg_url: str, request: pytest.FixtureRequest
) -> None:
    snapshots: dict[str, Snapshot] = {}
    found: dict[str, dict[str, list[str]]] = {}
    for name in ENGINES:
        engine = await open_engine(name, tmp_path, pg_url)
        try:
            await _append_script(engine, "/work/project")
            snapshots[name] = await engine.snapshot()
            found[name] = {text: sorted(await engine.search(text)) for text in SEARCHES}
        finally:
            await close_engine(engine)
    sqlite, postgres = snapshots["sqlite"], snapshots["postgresql"]
    assert sqlite.keys() == postgres.keys()
    for table in sqlite:
        assert postgres[table] == sqlite[table], table
    assert found["postgresql"] == found["sqlite"]
    assert found["sqlite"]["parser"] == ["ses_child", "ses_main"]  # the fork copied the parent's text
    assert found["sqlite"]["nothing-like-this"] == []
