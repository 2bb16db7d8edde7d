"""``sessions list``, ``log`` and ``db rebuild`` as a person runs them: real processes, real files."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.core.api import Sessions, open_sessions, paths
from agent_tui.core.api import events as ev
from agent_tui.core.store.schema import CURRENT_VERSION


def agent_tui(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=60,
    )


async def _seed(sessions: Sessions, sid: str, location: Path, text: str) -> None:
    await sessions.create(sid, location=location)
    receipt = await sessions.prompt(sid, text, resume=False)
    await sessions._store.publish(sid, ev.PromptPromoted(input_id=receipt.input_id))


@pytest.fixture
async def seeded(workdir: Path, tmp_path: Path) -> Path:
    """Two sessions in ``workdir`` and one elsewhere; returns the other location."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sessions = await open_sessions()
    try:
        await _seed(sessions, "ses_a", workdir, "refactor the parser")
        await _seed(sessions, "ses_b", workdir, "write release notes")
        await _seed(sessions, "ses_c", elsewhere, "parser benchmarks")
    finally:
        await sessions.close()
    return elsewhere


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_sessions_list_defaults_to_this_directory(seeded: Path, workdir: Path) -> None:
    out = agent_tui("sessions", "list", cwd=workdir)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["ses_b", "ses_a"]
    assert "write release notes" in lines[0] and "1 msgs" in lines[0]


async def test_sessions_list_all_json_search_limit(seeded: Path, workdir: Path) -> None:
    everything = agent_tui("sessions", "list", "--all", "--json", cwd=workdir)
    rows = [json.loads(line) for line in everything.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["ses_c", "ses_b", "ses_a"]
    assert rows[0]["location"] == str(seeded) and rows[0]["message_count"] == 1
    found = agent_tui("sessions", "list", "--all", "--json", "--search", "pars", cwd=workdir)
    assert [json.loads(line)["id"] for line in found.stdout.splitlines()] == ["ses_c", "ses_a"]
    limited = agent_tui("sessions", "list", "--all", "--limit", "1", cwd=workdir)
    assert [line.split()[0] for line in limited.stdout.splitlines()] == ["ses_c"]


async def test_log_prints_one_json_object_per_durable_event(seeded: Path) -> None:
    out = agent_tui("log", "ses_a")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(line["seq"], line["type"]) for line in lines] == [
        (1, "session.created.1"),
        (2, "session.prompt.admitted.1"),
        (3, "session.prompt.promoted.1"),
    ]
    assert set(lines[1]) == {"seq", "type", "created", "data"}
    assert lines[1]["data"]["prompt"] == [{"type": "text", "text": "refactor the parser"}]
    after = agent_tui("log", "ses_a", "--after", "2")
    assert [json.loads(line)["seq"] for line in after.stdout.splitlines()] == [3]


async def test_log_follow_sees_commits_from_another_process(seeded: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_tui",
        "log",
        "ses_a",
        "--follow",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    try:
        replayed = [json.loads(await asyncio.wait_for(proc.stdout.readline(), 30)) for _ in range(3)]
        assert [r["seq"] for r in replayed] == [1, 2, 3]
        sessions = await open_sessions()  # this test process is the "other" writer
        try:
            await sessions.select_model("ses_a", "other/model")
            await sessions.rename("ses_a", "Renamed elsewhere")
        finally:
            await sessions.close()
        tailed = [json.loads(await asyncio.wait_for(proc.stdout.readline(), 30)) for _ in range(2)]
        assert [(t["seq"], t["type"]) for t in tailed] == [(4, "session.model.selected.1"), (5, "session.renamed.1")]
        assert proc.returncode is None  # still following
    finally:
        proc.terminate()
        await proc.wait()


async def test_db_rebuild_restores_damaged_projections(seeded: Path) -> None:
    db = paths.database_path()
    conn = sqlite3.connect(db)
    before = conn.execute("SELECT * FROM message ORDER BY id").fetchall()
    conn.execute("DELETE FROM message")
    conn.execute("UPDATE session SET message_count = 99")
    conn.commit()
    out = agent_tui("db", "rebuild")
    assert out.returncode == 0 and "rebuilt projections from 9 events" in out.stdout
    assert conn.execute("SELECT * FROM message ORDER BY id").fetchall() == before
    assert {r[0] for r in conn.execute("SELECT message_count FROM session")} == {1}
    conn.close()


@pytest.mark.parametrize("command", [["sessions", "list"], ["log", "ses_a"], ["db", "rebuild"]])
def test_corrupt_database_is_one_line_and_untouched(command: list[str]) -> None:
    db = paths.database_path()
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"garbage" * 1000)
    before = _digest(db)
    out = agent_tui(*command)
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and f"database {db} is corrupt" in out.stderr
    assert _digest(db) == before


async def test_newer_database_is_refused(seeded: Path) -> None:
    db = paths.database_path()
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {CURRENT_VERSION + 5}")
    conn.close()
    before = _digest(db)
    out = agent_tui("log", "ses_a")
    assert out.returncode == 1 and "newer than this agent-tui understands" in out.stderr
    assert out.stdout == "" and _digest(db) == before


async def test_locked_database_fails_rebuild_with_one_line(seeded: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1], isolation_level=None);"
            "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); sys.stdin.readline()",
            str(paths.database_path()),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        out = agent_tui("db", "rebuild", env={"AGENT_TUI_STORAGE__BUSY_TIMEOUT_MS": "100"})
        listing = agent_tui("sessions", "list", "--all")  # readers still work meanwhile
    finally:
        holder.communicate("done\n", timeout=10)
    assert out.returncode == 1 and "is locked by another process (waited 100 ms)" in out.stderr
    assert len(listing.stdout.splitlines()) == 3


def test_unknown_session_and_bad_arguments() -> None:
    out = agent_tui("log", "ses_missing")
    assert (out.returncode, out.stderr.strip()) == (1, "agent-tui: unknown session: ses_missing")
    assert agent_tui("log", "ses_x", "--after", "-1").returncode == 2
    assert agent_tui("sessions", "list", "--limit", "0").returncode == 2


@pytest.mark.parametrize("command", [["sessions", "list", "--all"], ["log", "ses_none"], ["db", "rebuild"]])
def test_store_commands_never_import_litellm_or_textual(command: list[str]) -> None:
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['agent-tui', *{command!r}]\n"
        "try:\n    runpy.run_module('agent_tui', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    modules = set(next(line for line in out.stdout.splitlines() if line.startswith("MODULES")).split()[1:])
    assert "agent_tui.core.store.store" in modules  # the command really ran
    assert {m for m in modules if m.split(".")[0] in {"litellm", "textual"}} == set()


async def test_listing_logging_and_exporting_print_no_control_sequence(workdir: Path) -> None:
    """A title or a message is whatever a prompt (or a model, or an API rename) said: the commands
    that print it to a terminal never let it change the terminal's title or clipboard."""
    hostile = "fix \x1b]0;PWNED\x07 it\x1b]52;c;ZXZpbA==\x07 now \x9b2J"
    sessions = await open_sessions()
    try:
        await _seed(sessions, "ses_x", workdir, hostile)
    finally:
        await sessions.close()
    for args in (
        ["sessions", "list"],
        ["sessions", "list", "--json"],
        ["log", "ses_x"],
        ["export", "ses_x"],
        ["export", "ses_x", "--format", "markdown"],
        ["sessions", "rename", "ses_x", hostile],
    ):
        done = agent_tui(*args, cwd=workdir)
        assert done.returncode == 0, done.stderr
        assert not any(c in done.stdout for c in "\x1b\x07\x9b"), (args, done.stdout)
        assert "fix" in done.stdout or args[0] == "log", args
