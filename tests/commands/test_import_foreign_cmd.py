"""``agent-tui import --from claude|codex|gemini|opencode``: the agents' default locations under HOME, the report, the exit codes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.core.api import open_sessions
from tests.fakes.foreign_homes import (
    CLAUDE,
    CLAUDE_SUBAGENT,
    OPENCODE_EXPORT,
    OPENCODE_SESSION_ID,
    claude_folder,
    claude_home,
    codex_home,
    gemini_home,
    opencode_home,
)

from .test_store_commands import agent_tui


async def test_this_directorys_sessions_are_found_imported_once_and_reported(tmp_path: Path, workdir: Path) -> None:
    home = tmp_path / "home"
    claude_home(home, workdir)
    codex_home(home, workdir)
    env = {"HOME": str(home)}
    out = agent_tui("import", "--from", "claude", "--project", str(workdir), cwd=workdir, env=env)
    assert out.returncode == 0, out.stderr
    (claude_id,) = out.stdout.split()
    assert "imported eb3f527b-2401-4bcd-8464-32e23b9db391 as " + claude_id in out.stderr
    assert "1 tool calls (bash)" in out.stderr and "1 compactions" in out.stderr
    assert "note: context attachments" in out.stderr
    assert "Claude Code: 1 imported, 0 skipped (imported before), 0 unreadable" in out.stderr

    out = agent_tui("import", "--from", "codex", cwd=workdir, env=env)  # found by the rollout's cwd
    assert out.returncode == 0, out.stderr
    assert "Codex: 1 imported" in out.stderr and "1 tool calls (apply_patch)" in out.stderr

    again = agent_tui("import", "--from", "claude", "--project", str(workdir), cwd=workdir, env=env)
    assert again.returncode == 0 and again.stdout.split() == [claude_id]
    assert "skipped eb3f527b-2401-4bcd-8464-32e23b9db391: imported before as " + claude_id in again.stderr
    forced = agent_tui("import", "--from", "claude", "--project", str(workdir), "--again", cwd=workdir, env=env)
    assert forced.returncode == 0 and forced.stdout.split() != [claude_id]

    sessions = await open_sessions()
    try:
        listed = await sessions.list(workdir)
    finally:
        await sessions.close()
    assert len(listed) == 3


@pytest.mark.parametrize(
    ("agent", "label", "keep"), [("codex", "Codex", codex_home), ("gemini", "Gemini CLI", gemini_home)]
)
def test_another_directorys_sessions_are_none_of_this_ones_and_all_imports_them(
    agent: str, label: str, keep: Callable[[Path, Path], Path], tmp_path: Path, workdir: Path
) -> None:
    home = tmp_path / "home"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    keep(home, elsewhere)
    env = {"HOME": str(home)}
    none_here = agent_tui("import", "--from", agent, cwd=workdir, env=env)
    assert none_here.returncode == 1 and f"no {label} sessions for {workdir}" in none_here.stderr
    everything = agent_tui("import", "--from", agent, "--all", cwd=workdir, env=env)
    assert everything.returncode == 0 and f"{label}: 1 imported" in everything.stderr


def test_by_session_id_and_path(tmp_path: Path, workdir: Path) -> None:
    home = tmp_path / "home"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    codex_home(home, elsewhere)
    env = {"HOME": str(home)}
    by_id = agent_tui("import", "--from", "codex", "01a24aa4-7c34-7cb1-8e31-5a321a3aef71", cwd=workdir, env=env)
    assert by_id.returncode == 0 and "Codex: 1 imported" in by_id.stderr
    everything = agent_tui("import", "--from", "codex", "--all", cwd=workdir, env=env)
    assert everything.returncode == 0 and "0 imported, 1 skipped" in everything.stderr
    by_path = agent_tui("import", "--from", "claude", str(CLAUDE), "--project", str(workdir), cwd=workdir, env=env)
    assert by_path.returncode == 0 and "Claude Code: 1 imported" in by_path.stderr


def test_an_unreadable_file_is_one_line_and_nothing_is_written(tmp_path: Path, workdir: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = CLAUDE.read_text(encoding="utf-8").splitlines()
    lines[5] = lines[5][:40]
    bad.write_text("\n".join(lines), encoding="utf-8")
    out = agent_tui("import", "--from", "claude", str(bad), cwd=workdir)
    assert out.returncode == 1 and out.stdout == ""
    assert f"agent-tui: {bad}: line 6 is not JSON; nothing was imported" in out.stderr
    assert "0 imported, 0 skipped (imported before), 1 unreadable" in out.stderr
    assert agent_tui("sessions", "list", "--all", "--json", cwd=workdir).stdout.strip() in ("[]", "")


def test_the_jsonl_import_is_unchanged_and_takes_no_foreign_flags(workdir: Path) -> None:
    out = agent_tui("import", "x.jsonl", "--again", cwd=workdir)
    assert out.returncode == 1 and "those go with --from AGENT" in out.stderr
    out = agent_tui("import", "missing.jsonl", cwd=workdir)
    assert out.returncode == 1 and "cannot read missing.jsonl" in out.stderr


async def test_a_session_with_a_subagent_is_one_import_and_its_transcript_alone_is_refused(
    tmp_path: Path, workdir: Path
) -> None:
    home = tmp_path / "home"
    folder = claude_folder(home, workdir)
    shutil.copytree(CLAUDE_SUBAGENT, folder)
    env = {"HOME": str(home)}
    out = agent_tui("import", "--from", "claude", "--project", str(workdir), cwd=workdir, env=env)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.split()) == 1, "the subagent's transcript is no session of its own"
    assert "1 subagent sessions" in out.stderr and "1 tool calls (task)" in out.stderr
    assert "note: subagent 'List project files': context attachments" in out.stderr
    transcript = next(folder.glob("*/subagents/agent-*.jsonl"))
    alone = agent_tui("import", "--from", "claude", str(transcript), cwd=workdir, env=env)
    assert alone.returncode == 1 and "a subagent's transcript" in alone.stderr and alone.stdout == ""


def test_opencode_sessions_come_from_its_database_once_by_directory_id_or_export_file(
    tmp_path: Path, workdir: Path
) -> None:
    home = tmp_path / "home"
    opencode_home(home, workdir)
    env = {"HOME": str(home), "XDG_DATA_HOME": "", "OPENCODE_DB": ""}
    out = agent_tui("import", "--from", "opencode", cwd=workdir, env=env)
    assert out.returncode == 0, out.stderr
    (made,) = out.stdout.split()
    assert f"imported {OPENCODE_SESSION_ID} as {made}" in out.stderr
    assert "2 tool calls (apply_patch)" in out.stderr and "1 foreign tool calls" in out.stderr
    assert "1 compactions" in out.stderr and "note: text opencode wrote into user messages itself" in out.stderr
    assert "opencode: 1 imported, 0 skipped (imported before), 0 unreadable" in out.stderr

    by_id = agent_tui("import", "--from", "opencode", OPENCODE_SESSION_ID, cwd=workdir, env=env)
    assert by_id.returncode == 0 and by_id.stdout.split() == [made]
    assert f"skipped {OPENCODE_SESSION_ID}: imported before as {made}" in by_id.stderr
    by_file = agent_tui(
        "import", "--from", "opencode", str(OPENCODE_EXPORT), "--project", str(workdir), cwd=workdir, env=env
    )
    assert by_file.returncode == 0 and by_file.stdout.split() == [made], "the export is the same source"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    none_there = agent_tui("import", "--from", "opencode", cwd=elsewhere, env=env)
    assert none_there.returncode == 1 and f"no opencode sessions for {elsewhere.resolve()}" in none_there.stderr

    newer = json.loads(OPENCODE_EXPORT.read_text(encoding="utf-8"))
    newer["info"]["version"] = "2.0.1"
    unknown = tmp_path / "newer.json"
    unknown.write_text(json.dumps(newer), encoding="utf-8")
    refused = agent_tui("import", "--from", "opencode", str(unknown), cwd=workdir, env=env)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "opencode 2.0.1 wrote this session; this build reads the format of opencode 1.x" in refused.stderr
