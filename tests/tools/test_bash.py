from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from agent_tui.tools.asks import PermissionDecision
from agent_tui.tools.bash import BASH
from agent_tui.tools.process_group import group_alive
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.kinds import Effect, PermissionReply
from agent_tui.vocab.permission_rule import PermissionRule
from tests.fakes.asks import RecordingAsker

from .conftest import gate_for, invoke_tool


async def bash(scope: ToolScope, **params: object) -> ToolOutcome:
    return await invoke_tool(BASH, scope, **params)


async def test_runs_in_location_with_exit_code_and_duration(workdir: Path, scope: ToolScope) -> None:
    out = await bash(scope, command="pwd; echo err >&2; exit 3")
    assert out.output is not None
    lines = out.output.text.splitlines()
    assert lines[0] == str(workdir.resolve()) and lines[1] == "err"
    assert re.fullmatch(r"Exit code 3 · \d+\.\d\d s", lines[-1])
    assert out.output.data["exit_code"] == 3 and out.output.data["duration_ms"] >= 0


async def test_environment_no_rc_stdin_closed_pagers(
    workdir: Path, scope: ToolScope, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = workdir / "home"
    home.mkdir()
    (home / ".bashrc").write_text("echo RC-LOADED\n")
    (home / ".bash_profile").write_text("echo PROFILE-LOADED\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("BASH_ENV", "")
    out = await bash(
        scope,
        command='read line; echo "read=$? pager=$PAGER git=$GIT_PAGER"; test -t 0 || echo notty; '
        'echo "mark=$AGENT_TUI_TOOL"',
    )
    assert out.output is not None
    assert out.output.text.splitlines()[:3] == ["read=1 pager=cat git=cat", "notty", "mark=ses_test/call_1"]
    assert "LOADED" not in out.output.text


async def test_own_process_group(scope: ToolScope) -> None:
    out = await bash(scope, command="ps -o pgid= -o sid= -p $$; echo $$")
    assert out.output is not None
    pgid, sid = out.output.text.split()[:2]
    pid = out.output.text.split()[2]
    assert pgid == pid == sid and int(pgid) != os.getpgid(0)


async def test_live_output_reaches_the_callback(make_scope) -> None:
    seen: list[str] = []
    scope = make_scope(on_output=seen.append)
    out = await bash(scope, command="echo one; sleep 0.05; echo two")
    assert "".join(seen) == "one\ntwo\n"
    assert out.output is not None and out.output.text.startswith("one\ntwo\n")


async def test_head_and_tail_with_spill_file(scope: ToolScope, agent_home: Path) -> None:
    out = await bash(scope, command="seq 1 100000")
    assert out.output is not None
    text, data = out.output.text, out.output.data
    lines = text.splitlines()
    assert lines[0] == "1" and lines[999] == "1000"
    assert lines[-2] == "100000" and lines[-1001] == "99001"
    spill = Path(data["spill_path"])
    assert spill.parent == agent_home / "spill"
    assert f"is in {spill}" in text and "98000 lines" in text
    assert spill.read_text() == "".join(f"{i}\n" for i in range(1, 100001))
    assert data["truncated"] and data["total_lines"] == 100000
    assert len(text.encode()) <= 50 * 1024 + 500


async def test_small_output_is_not_spilled(scope: ToolScope, agent_home: Path) -> None:
    out = await bash(scope, command="seq 1 2000")
    assert out.output is not None and out.output.data["spill_path"] is None
    assert out.output.text.splitlines()[1999] == "2000"
    assert not (agent_home / "spill").exists()


async def test_100_mb_of_output_stays_bounded(make_scope) -> None:
    live: list[str] = []
    scope = make_scope(on_output=live.append)
    out = await bash(scope, command="head -c 104857600 /dev/zero | tr '\\0' 'x' | fold -w 1000")
    assert out.output is not None
    assert out.output.data["total_bytes"] == 104857600 + 104857
    assert len(out.output.text) < 60 * 1024
    assert sum(len(t) for t in live) < 1100 * 1024
    assert Path(out.output.data["spill_path"]).stat().st_size == 104857600 + 104857


async def test_timeout_stops_the_group(make_scope) -> None:
    scope = make_scope(kill_grace_s=0.2)
    out = await bash(scope, command="echo started; sleep 30", timeout_ms=300)
    assert out.output is not None
    assert "Command timed out after 0.3 s" in out.output.text and "SIGTERM" in out.output.text
    assert out.output.text.startswith("started")
    assert out.output.data["timed_out"] is True


async def test_children_ignoring_sigterm_are_killed(make_scope) -> None:
    scope = make_scope(kill_grace_s=0.2)
    out = await bash(scope, command="trap '' TERM; (trap '' TERM; sleep 30) & sleep 30", timeout_ms=300)
    assert out.output is not None
    assert "SIGKILL" in out.output.text


async def test_cancellation_leaves_no_process_of_the_group(make_scope, tmp_path: Path) -> None:
    scope = make_scope(kill_grace_s=0.2)
    pid_file = tmp_path / "pgid"
    command = f"echo $$ > {pid_file}; trap '' TERM; (trap '' TERM; sleep 60) & (sleep 60) & sleep 60"
    task = asyncio.create_task(bash(scope, command=command))
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.01)
    pgid = int(pid_file.read_text())
    await asyncio.sleep(0.1)
    assert group_alive(pgid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)


async def test_a_cancel_while_the_shell_is_starting_stops_its_group(make_scope, tmp_path: Path, monkeypatch) -> None:
    """The shell runs before asyncio has wired its pipes; a cancel in that window must not orphan
    what it started (asyncio alone would kill only the shell)."""
    import agent_tui.tools.bash as bash_module

    real = asyncio.create_subprocess_exec
    wired = asyncio.Event()

    async def slow_wiring(*args, **kwargs):  # type: ignore[no-untyped-def]
        proc = await real(*args, **kwargs)
        await wired.wait()  # the window between fork and the pipes being ready, held open
        return proc

    monkeypatch.setattr(bash_module.asyncio, "create_subprocess_exec", slow_wiring)
    pid_file = tmp_path / "pgid"
    task = asyncio.create_task(bash(make_scope(kill_grace_s=0.2), command=f"echo $$ > {pid_file}; sleep 60 & sleep 60"))
    for _ in range(500):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.01)
    pgid = int(pid_file.read_text())
    task.cancel()
    await asyncio.sleep(0)  # the cancel lands while the start is still held open
    wired.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)


async def test_background_child_holding_output_does_not_hang(make_scope) -> None:
    scope = make_scope(kill_grace_s=0.2)
    out = await bash(scope, command="sleep 30 & echo done")
    assert out.output is not None
    assert out.output.text.startswith("done") and "Background processes" in out.output.text


async def test_bad_inputs(scope: ToolScope) -> None:
    too_long = await bash(scope, command="true", timeout_ms=600_001)
    assert too_long.error is not None and too_long.error.type == "tool.input" and "timeout_ms" in too_long.error.message
    empty = await bash(scope, command="")
    assert empty.error is not None and "command" in empty.error.message
    missing = await bash(scope, command="true", workdir="nope")
    assert missing.error is not None and missing.error.message == "workdir 'nope' is not an existing directory."


async def test_workdir_outside_needs_external_directory(workdir: Path, make_scope, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ONCE))
    rules = [PermissionRule(action="bash", pattern="*", effect=Effect.ALLOW)]
    scope = make_scope(gate=gate_for(workdir, asker, rules))
    (workdir / "sub").mkdir()
    inside = await bash(scope, command="pwd", workdir="sub")
    assert inside.output is not None and asker.requests == []
    out = await bash(scope, command="pwd", workdir=str(outside))
    assert out.output is not None and out.output.text.startswith(str(outside.resolve()))
    assert [(r.action, r.resources) for r in asker.requests] == [("external_directory", [outside.resolve().as_posix()])]
    assert asker.requests[0].call_id == "call_1" and asker.requests[0].session_id == "ses_test"


async def test_detached_background_process_is_reaped_later(scope: ToolScope) -> None:
    out = await bash(scope, command="sleep 0.2 > /dev/null 2>&1 & echo $!")
    assert out.output is not None
    pid = int(out.output.text.split()[0])
    assert Path(f"/proc/{pid}").exists()  # left running: it does not hold the output pipe
    for _ in range(100):  # the next command reaps it once it has exited
        await asyncio.sleep(0.05)
        await bash(scope, command="true")
        if not Path(f"/proc/{pid}").exists():
            break
    assert not Path(f"/proc/{pid}").exists()  # exited, and reaped rather than left a zombie


async def test_absolute_paths_outside_give_advisory_warnings(workdir: Path, scope: ToolScope) -> None:
    out = await bash(scope, command=f'ls /tmp "{workdir}/x" ~/y > /dev/null 2>&1; echo ok')
    assert out.output is not None and out.output.text.startswith("ok")
    assert out.output.data["warnings"] == [
        "/tmp is outside the working directory",
        "~/y is outside the working directory",
    ]


async def test_failing_live_output_listener_does_not_break_the_command(make_scope) -> None:
    def broken(_: str) -> None:
        raise RuntimeError("bus closed")

    out = await bash(make_scope(on_output=broken), command="echo still here")
    assert out.output is not None and out.output.text.startswith("still here")
