"""Where the agents keep their sessions: HOME's defaults, the agents' own variables, a directory's, all, by id."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from agent_tui.commands import import_args
from agent_tui.core.transfer.foreign import formats, locate
from agent_tui.core.transfer.foreign.draft import UnreadableSession
from tests.fakes.foreign_homes import CLAUDE, CLAUDE_SUBAGENT, CODEX, GEMINI, codex_rollout, gemini_session


def test_the_cli_offers_exactly_the_formats_core_reads() -> None:
    assert set(import_args.FOREIGN_AGENTS) == set(formats.READERS) == set(formats.LABELS) == set(formats.FIRST_PROMPT)


def test_sessions_by_directory_all_and_id_under_home_or_the_agents_variables(tmp_path: Path) -> None:
    home, here, there = tmp_path / "home", Path("/work/project-a"), Path("/work/project.b")
    for cwd in (here, there):
        folder = home / ".claude" / "projects" / locate.claude_slug(cwd)
        folder.mkdir(parents=True)
        shutil.copy(CLAUDE, folder / f"{cwd.name}.jsonl")
    assert locate.claude_slug(there) == "-work-project-b"
    assert [p.name for p in locate.sessions("claude", here, home, {})] == ["project-a.jsonl"]
    assert len(locate.sessions("claude", None, home, {})) == 2
    assert locate.by_id("claude", "project.b", home, {}).name == "project.b.jsonl"
    with pytest.raises(UnreadableSession, match="no claude session nope under"):
        locate.by_id("claude", "nope", home, {})
    moved = tmp_path / "elsewhere"
    shutil.copytree(home / ".claude", moved)
    assert len(locate.sessions("claude", None, tmp_path / "empty", {"CLAUDE_CONFIG_DIR": str(moved)})) == 2

    codex_home = tmp_path / "codex"
    codex_rollout(codex_home, here)
    environ = {"CODEX_HOME": str(codex_home)}
    assert [p.name for p in locate.sessions("codex", here, home, environ)] == [CODEX.name]
    assert locate.sessions("codex", there, home, environ) == []
    assert locate.by_id("codex", "01a24aa4-7c34-7cb1-8e31-5a321a3aef71", home, environ).name == CODEX.name


def test_a_file_is_described_by_its_first_prompt_time_and_size() -> None:
    for agent, path in (("claude", CLAUDE), ("codex", CODEX)):
        found = locate.describe(agent, path)
        assert found.title.startswith("FIXTURE-TASK: list the files"), agent
        assert found.size == path.stat().st_size and found.modified_ms > 0


def test_gemini_sessions_by_project_hash_whatever_the_folder_and_by_id(tmp_path: Path) -> None:
    home, here, there = tmp_path / "home", Path("/work/project-a"), Path("/work/project-b")
    gemini_session(home, "project-a", here)  # the short-name layout
    gemini_session(home, hashlib.sha256(b"/elsewhere").hexdigest(), there)  # any folder: the hash decides
    (home / ".gemini" / "tmp" / "project-a" / "chats" / "notes.txt").write_text("not a session")
    assert [p.parent.parent.name for p in locate.sessions("gemini", here, home, {})] == ["project-a"]
    assert len(locate.sessions("gemini", there, home, {})) == 1
    assert len(locate.sessions("gemini", None, home, {})) == 2
    assert locate.sessions("gemini", Path("/work/project-c"), home, {}) == []
    moved = tmp_path / "gemini-home"
    gemini_session(moved, "proj", here)
    assert len(locate.sessions("gemini", here, tmp_path / "empty", {"GEMINI_CLI_HOME": str(moved)})) == 1
    environ = {"GEMINI_CLI_HOME": str(moved)}
    for session_id in ("b8daf9e3-161c-4228-bf13-1c7e4ae7e480", "b8daf9e3"):  # the full id, or the file's short one
        assert locate.by_id("gemini", session_id, home, environ).name == GEMINI.name
    with pytest.raises(UnreadableSession, match="no gemini session b8daf9e3-0000 under"):
        locate.by_id("gemini", "b8daf9e3-0000", home, environ)
    found = locate.describe("gemini", GEMINI)
    assert (found.label, found.title) == (
        "Gemini CLI",
        "FIXTURE-TASK: list the files, change main.py to print hello, world, and describe pic.png",
    )
    assert found.size == GEMINI.stat().st_size and found.modified_ms > 0


def test_a_subagents_transcript_beside_its_session_is_not_a_session_of_its_own(tmp_path: Path) -> None:
    home, here = tmp_path / "home", Path("/work/project-a")
    slug = home / ".claude" / "projects" / locate.claude_slug(here)
    shutil.copytree(CLAUDE_SUBAGENT, slug)
    transcript = next(slug.glob("*/subagents/agent-*.jsonl"))
    session = next(slug.glob("*.jsonl"))
    assert [p.name for p in locate.sessions("claude", here, home, {})] == [session.name]
    assert [p.name for p in locate.sessions("claude", None, home, {})] == [session.name]
    assert locate.by_id("claude", session.stem, home, {}) == session
    with pytest.raises(UnreadableSession, match="no claude session"):
        locate.by_id("claude", transcript.stem, home, {})
