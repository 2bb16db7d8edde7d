"""``agent-tui import --from gemini``: Gemini CLI's default location under HOME, the report, once, by id, the older layout."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.foreign_homes import gemini_home

from .test_store_commands import agent_tui

SOURCE_ID = "b8daf9e3-161c-4228-bf13-1c7e4ae7e480"


def test_this_directorys_sessions_are_found_imported_once_and_reported(tmp_path: Path, workdir: Path) -> None:
    home = tmp_path / "home"
    gemini_home(home, workdir)
    env = {"HOME": str(home)}
    out = agent_tui("import", "--from", "gemini", cwd=workdir, env=env)
    assert out.returncode == 0, out.stderr
    (session_id,) = out.stdout.split()
    assert f"imported {SOURCE_ID} as {session_id}" in out.stderr
    assert "2 tool calls (apply_patch)" in out.stderr and "2 tool calls (bash)" in out.stderr
    assert "1 compactions" in out.stderr and "note: Gemini CLI's own session context" in out.stderr
    assert "Gemini CLI: 1 imported, 0 skipped (imported before), 0 unreadable" in out.stderr
    listed = agent_tui("sessions", "list", "--json", cwd=workdir, env=env).stdout.splitlines()
    rows = [json.loads(line) for line in listed]
    assert [(r["id"], r["location"]) for r in rows] == [(session_id, str(workdir))], "where the marker says it ran"

    again = agent_tui("import", "--from", "gemini", cwd=workdir, env=env)
    assert again.returncode == 0 and again.stdout.split() == [session_id]
    assert f"skipped {SOURCE_ID}: imported before as {session_id}" in again.stderr
    forced = agent_tui("import", "--from", "gemini", SOURCE_ID, "--again", cwd=workdir, env=env)
    assert forced.returncode == 0 and forced.stdout.split() != [session_id]


def test_a_file_of_the_older_layout_is_refused_by_name(tmp_path: Path, workdir: Path) -> None:
    legacy = tmp_path / "session-old.json"
    legacy.write_text(json.dumps({"sessionId": "x", "projectHash": "y", "messages": []}, indent=2))
    out = agent_tui("import", "--from", "gemini", str(legacy), cwd=workdir, env={"HOME": str(tmp_path / "home")})
    assert out.returncode == 1 and out.stdout == ""
    assert "an older Gemini CLI session (one JSON object)" in out.stderr and "1 unreadable" in out.stderr
