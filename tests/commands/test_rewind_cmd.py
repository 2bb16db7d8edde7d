"""``agent-tui rewind`` as a person runs it: a real ``run`` with real bash, then the rewind in its own process."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from agent_tui.core.run import lease
from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import LaunchMode

from .test_run_cmd import Cli, session_of

BASH = "echo made > made.txt && echo after > mod.txt && rm gone.txt"


@pytest.fixture
def cli(fake: FakeProvider, workdir: Path, agent_home: Path, runtime_dir: Path) -> Cli:
    (workdir / "mod.txt").write_text("before\n")
    (workdir / "gone.txt").write_text("bye\n")
    return Cli(fake, workdir, agent_home, LaunchMode("in-process", runtime_dir))


async def rewind(cli: Cli, *args: str) -> tuple[int, str, str]:
    proc = await cli.start("rewind", *args)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def _changed_session(cli: Cli) -> tuple[str, str]:
    cli.fake.add(
        {"text": "hi"},
        {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": BASH}}]},
        {"text": "done"},
    )
    code, _, err = await cli.run("--permission", "allow", "say hi")
    assert code == 0, err
    sid = session_of(err)
    code, _, err = await cli.run("--permission", "allow", "--session", sid, "change files")
    assert code == 0, err
    return sid, err


async def test_rewind_lists_prompts_then_restores_files_and_undo_puts_them_back(cli: Cli) -> None:
    sid, _ = await _changed_session(cli)
    code, out, err = await rewind(cli, sid)
    assert code == 0, err
    listed = [line.split(None, 1) for line in out.splitlines()]
    assert [text for _, text in listed] == ["change files", "say hi"], "newest first"
    target = listed[0][0]

    code, out, err = await rewind(cli, sid, "--to", target, "--both")
    assert code == 0, err
    assert "changed 3 files:" in out and "prompt: change files" in out
    assert {tuple(line.split()) for line in out.splitlines() if line.startswith("  ")} == {
        ("deleted", "made.txt"),
        ("modified", "mod.txt"),
        ("created", "gone.txt"),
    }
    assert not (cli.workdir / "made.txt").exists() and (cli.workdir / "gone.txt").read_text() == "bye\n"
    assert (cli.workdir / "mod.txt").read_text() == "before\n"
    log = await cli.log(sid)
    assert [e["data"]["message_id"] for e in log if e["type"] == "session.rewound.1"] == [target]

    code, out, err = await rewind(cli, sid, "--undo", "--json")
    assert code == 0, err
    assert {(c["path"], c["change"]) for c in json.loads(out)["changed"]} == {
        ("made.txt", "created"),
        ("mod.txt", "modified"),
        ("gone.txt", "deleted"),
    }
    assert (cli.workdir / "made.txt").read_text() == "made\n" and not (cli.workdir / "gone.txt").exists()


async def test_rewind_refusals_are_one_line_exit_1_and_change_nothing(cli: Cli) -> None:
    sid, _ = await _changed_session(cli)
    before = await cli.log(sid)
    code, _, err = await rewind(cli, "ses_nope", "--to", "msg_x")
    assert (code, err) == (1, "agent-tui: unknown session: ses_nope\n")
    code, _, err = await rewind(cli, sid, "--to", "msg_nope")
    assert (code, err) == (1, f"agent-tui: unknown message msg_nope in session {sid}\n")
    code, _, err = await rewind(cli, sid, "--undo")
    assert (code, err) == (1, f"agent-tui: session {sid} has no rewind to undo\n")
    target = (await rewind(cli, sid))[1].split()[0]
    held = await lease.acquire(sid)  # this test process runs the session, as far as the CLI can tell
    try:
        code, _, err = await rewind(cli, sid, "--to", target)
    finally:
        held.release()
    assert (
        code == 1 and err.startswith(f"agent-tui: session {sid} is running in another process") and err.count("\n") == 1
    )
    code, _, err = await rewind(cli, sid, "--to", target, "--files", "--conversation")
    assert code == 2 and "not allowed with argument" in err
    assert await cli.log(sid) == before
    assert (cli.workdir / "made.txt").exists()


async def test_sessions_fork_prints_the_new_session(cli: Cli) -> None:
    sid, _ = await _changed_session(cli)
    target = (await rewind(cli, sid))[1].split()[0]
    proc = await cli.start("sessions", "fork", sid, "--at", target)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    child = out.decode().strip()
    code, listed, _ = await rewind(cli, child)
    assert [line.split(None, 1)[1] for line in listed.splitlines()] == ["say hi"]
    log = await cli.log(child)
    assert [e["type"] for e in log] == ["session.created.1", "session.forked.1"]
    assert log[1]["data"]["parent_id"] == sid
    proc = await cli.start("sessions", "fork", "ses_nope")
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 1 and err.decode() == "agent-tui: unknown session: ses_nope\n"


async def test_export_and_import_through_the_cli(cli: Cli) -> None:
    sid, _ = await _changed_session(cli)
    proc = await cli.start("export", sid)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    records = [json.loads(line) for line in out.decode().splitlines()]
    assert records[0]["type"] == "header" and [r["type"] for r in records].count("run.start") == 2
    target = cli.workdir / "out.jsonl"
    proc = await cli.start("export", sid, "-o", str(target))
    await asyncio.wait_for(proc.communicate(), 60)
    assert target.read_text() == out.decode()
    proc = await cli.start("import", str(target))
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    copy = out.decode().strip()
    code, listed, _ = await rewind(cli, copy)
    assert [line.split(None, 1)[1] for line in listed.splitlines()] == ["change files", "say hi"]
    proc = await cli.start("export", copy, "--format", "markdown")
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert (
        "## User\n\nsay hi" in out.decode() and "<details><summary>✓ tool <code>bash</code></summary>" in out.decode()
    )

    (cli.workdir / "notes.txt").write_text("just notes\n")
    proc = await cli.start("import", str(cli.workdir / "notes.txt"))
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 1 and err.decode().startswith("agent-tui: ") and "not an agent-tui export" in err.decode()
    proc = await cli.start("import", str(cli.workdir / "absent.jsonl"))
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 1 and "cannot read" in err.decode()


async def test_sessions_rename_and_delete_through_the_cli(cli: Cli) -> None:
    sid, _ = await _changed_session(cli)
    proc = await cli.start("sessions", "rename", sid, "Renamed here")
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0 and out.decode() == f"{sid}  Renamed here\n", err.decode()
    proc = await cli.start("sessions", "delete", sid)  # stdin is no terminal: --yes is needed
    _, err = await asyncio.wait_for(proc.communicate(b""), 60)
    assert proc.returncode == 1 and "add --yes to confirm" in err.decode()
    assert len(await cli.log(sid)) > 0, "nothing was deleted"
    proc = await cli.start("sessions", "delete", sid, "--yes")
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0 and out.decode().startswith(f"deleted {sid} ("), err.decode()
    proc = await cli.start("log", sid)
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 1 and f"unknown session: {sid}" in err.decode()


async def test_with_snapshots_off_a_files_rewind_exits_1_naming_the_call_and_changes_nothing(cli: Cli) -> None:
    (cli.workdir / ".agent-tui").mkdir()
    (cli.workdir / ".agent-tui" / "config.toml").write_text("[snapshots]\nenabled = false\n")
    sid, _ = await _changed_session(cli)
    before = await cli.log(sid)
    target = (await rewind(cli, sid))[1].split()[0]
    code, out, err = await rewind(cli, sid, "--to", target, "--files")
    assert (code, out) == (1, "")
    assert err.startswith(f"agent-tui: cannot restore the files: bash call_1 (`{BASH}`): snapshots are off"), err
    assert err.count("\n") == 1 and "no file changed" not in err
    assert await cli.log(sid) == before
    assert (cli.workdir / "made.txt").read_text() == "made\n" and not (cli.workdir / "gone.txt").exists()


class CliWithoutGit(Cli):
    """The same commands with a PATH that holds bash and the commands the script needs, but no git."""

    def env(self) -> dict[str, str]:
        bin_dir = self.home / "bin-without-git"
        if not bin_dir.exists():
            bin_dir.mkdir()
            for tool in ("bash", "sh", "echo", "rm", "env"):
                if (found := shutil.which(tool)) is not None:
                    os.symlink(found, bin_dir / tool)
        return {**super().env(), "PATH": str(bin_dir)}


async def test_without_git_the_rewind_restores_the_patch_and_names_the_bash_call_it_could_not(cli: Cli) -> None:
    nogit = CliWithoutGit(cli.fake, cli.workdir, cli.home, cli.mode)
    (cli.workdir / "patched.txt").write_text("old\n")
    patch = "*** Begin Patch\n*** Update File: patched.txt\n@@\n-old\n+new\n*** End Patch"
    cli.fake.add(
        {"tool_calls": [{"id": "call_1", "name": "bash", "arguments": {"command": BASH}}]},
        {"tool_calls": [{"id": "call_2", "name": "apply_patch", "arguments": {"patch": patch}}]},
        {"text": "done"},
    )
    code, _, err = await nogit.run("--permission", "allow", "change files")
    assert code == 0, err
    sid = session_of(err)
    target = (await rewind(nogit, sid))[1].split()[0]
    code, out, err = await rewind(nogit, sid, "--to", target, "--files")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1:3] == ["changed 1 file:", "  modified  patched.txt"]
    assert (
        lines[3] == f"not restored: bash call_1 (`{BASH}`): git is not installed: a file rewind restores only "
        "the files apply_patch changed (from their pre-images), not what bash commands or MCP tools changed"
    )
    assert "no file changed" not in out
    assert (cli.workdir / "patched.txt").read_text() == "old\n" and (cli.workdir / "made.txt").exists()
