"""The session list as plain rows: the same fields and order as the facade's records."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.log.records import SessionRecord, SessionSummary
from agent_tui.core.log.session_row import SESSION_FIELDS, SessionRow
from agent_tui.core.settings import paths
from agent_tui.core.store.session_list import session_rows


def test_rows_have_the_records_fields() -> None:
    assert list(SESSION_FIELDS) == list(SessionRecord.model_fields) == list(SessionSummary.model_fields)


async def test_plain_rows_match_the_facade_listing(workdir: Path) -> None:
    import sqlite3

    from agent_tui.core.sessions import open_sessions

    sessions = await open_sessions()
    try:
        for n in range(3):
            record = await sessions.create(location=str(workdir / str(n % 2)))
            await sessions.rename(record.id, f"title {n}")
        listed = list(await sessions.list(location=str(workdir / "0"), limit=10))
    finally:
        await sessions.close()
    with sqlite3.connect(paths.database_path()) as conn:
        rows = [SessionRow.of(row) for row in session_rows(conn, str(workdir / "0"), None, 10, 0)]
    assert [row.as_dict() for row in rows] == [summary.model_dump() for summary in listed]
    assert len(rows) == 2


async def test_the_peek_reads_the_same_statement_without_aiosqlite_or_pydantic(workdir: Path) -> None:
    import subprocess
    import sys

    from agent_tui.core.sessions import open_sessions

    sessions = await open_sessions()
    try:
        created = await sessions.create(location=str(workdir))
    finally:
        await sessions.close()
    code = (
        "import sys\nfrom agent_tui.core.store.peek import peek_sessions\n"
        f"rows = peek_sessions({str(workdir)!r}, 5)\n"
        "print([r.id for r in rows], sorted(m for m in ('aiosqlite', 'pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"[{created.id!r}] []"
