"""``agent-tui import --from gemini``: Gemini CLI's default location under HOME, the report, once, by id."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .test_store_commands import agent_tui

GEMINI = next((Path(__file__).parents[1] / "data" / "foreign" / "gemini").glob("session-*.jsonl"))
SOURCE_ID = "b8daf9e3-161c-4228-bf13-1c7e4ae7e480"


def _gemini_home(home: Path, cwd: Path) -> Path:
    """HOME with the fixture as Gemini CLI keeps a session of ``cwd``: in its project folder, with the
    ``.project_root`` marker, the first line's projectHash the sha256 of ``cwd`` (the rest as the agent wrote it)."""
    project = home / ".gemini" / "tmp" / cwd.name
    (project / "chats").mkdir(parents=True)
    (project / ".project_root").write_text(str(cwd))
    lines = GEMINI.read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])
    meta["projectHash"] = hashlib.sha256(str(cwd).encode()).hexdigest()
    target = project / "chats" / GEMINI.name
    target.write_text(json.dumps(meta) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return target


def test_this_directorys_sessions_are_found_imported_once_and_reported(tmp_path: Path, workdir: Path) -> None:
    home = tmp_path / "home"
    _gemini_home(home, workdir)
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


def test_none_here_all_and_a_file_of_another_layout(tmp_path: Path, workdir: Path) -> None:
    home = tmp_path / "home"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _gemini_home(home, elsewhere)
    env = {"HOME": str(home)}
    none_here = agent_tui("import", "--from", "gemini", cwd=workdir, env=env)
    assert none_here.returncode == 1 and f"no Gemini CLI sessions for {workdir}" in none_here.stderr
    everything = agent_tui("import", "--from", "gemini", "--all", cwd=workdir, env=env)
    assert everything.returncode == 0 and "Gemini CLI: 1 imported" in everything.stderr
    legacy = tmp_path / "session-old.json"
    legacy.write_text(json.dumps({"sessionId": "x", "projectHash": "y", "messages": []}, indent=2))
    out = agent_tui("import", "--from", "gemini", str(legacy), cwd=workdir, env=env)
    assert out.returncode == 1 and out.stdout == ""
    assert "an older Gemini CLI session (one JSON object)" in out.stderr and "1 unreadable" in out.stderr
