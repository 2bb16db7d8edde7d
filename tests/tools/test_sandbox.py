"""``bash`` in a real bubblewrap sandbox: what a command may write, the network, interrupts,
and leaving the sandbox only through an ask."""

from __future__ import annotations

import asyncio
import os
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_tui.tools.asks import PermissionDecision
from agent_tui.tools.bash import BASH
from agent_tui.tools.sandbox import SandboxMode, SandboxPolicy, bwrap_path, unavailable_reason
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import ToolOutcome
from agent_tui.vocab.kinds import PermissionReply
from tests.fakes.asks import RecordingAsker

from .conftest import gate_for, invoke_tool, output_text

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason=f"no sandbox here: {unavailable_reason()}")


@pytest.fixture
def system_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system temp dir, as the sandbox sees it: a folder of its own, so that the project and
    an 'outside' folder (both under pytest's tmp_path) are not writable through it."""
    folder = tmp_path / "system-tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


@pytest.fixture
def sandboxed(make_scope: Callable[..., ToolScope], workdir: Path, system_tmp: Path) -> Callable[..., ToolScope]:
    def make(mode: SandboxMode = SandboxMode.WORKSPACE_WRITE, network: bool = False) -> ToolScope:
        return make_scope(sandbox=SandboxPolicy(mode, network, writable_roots=(workdir,)))

    return make


async def bash(scope: ToolScope, **params: object) -> ToolOutcome:
    return await invoke_tool(BASH, scope, **params)


async def test_a_write_inside_the_workspace_and_the_temp_dir_succeeds_and_outside_fails(
    sandboxed: Callable[..., ToolScope], workdir: Path, outside: Path, system_tmp: Path
) -> None:
    command = f"echo in > made.txt && echo tmp > {system_tmp}/t.txt && echo out > {outside}/x.txt"
    text = output_text(await bash(sandboxed(), command=command))
    assert (workdir / "made.txt").read_text() == "in\n" and (system_tmp / "t.txt").read_text() == "tmp\n"
    assert "Read-only file system" in text and "Exit code 1" in text
    assert "(Ran in the workspace-write sandbox: writes outside the project and the temp dir and the network" in text
    assert not (outside / "x.txt").exists()


async def test_git_hooks_and_the_agents_own_folders_stay_read_only_inside_the_workspace(
    make_scope: Callable[..., ToolScope], workdir: Path, system_tmp: Path, tmp_path: Path
) -> None:
    (workdir / ".git" / "hooks").mkdir()
    (workdir / ".agent-tui").mkdir()
    own = workdir / "agent-data"
    own.mkdir()
    scope = make_scope(sandbox=SandboxPolicy(writable_roots=(workdir,), read_only=(own,)))
    for target in (".git/hooks/pre-commit", ".agent-tui/config.toml", "agent-data/log.db"):
        text = output_text(await bash(scope, command=f"echo x > {target}"))
        assert "Read-only file system" in text, target
        assert not (workdir / target).exists()
    assert "Exit code 0" in output_text(await bash(scope, command="echo x > .git/ok"))


async def test_read_only_writes_nowhere_but_a_private_temp_dir(
    sandboxed: Callable[..., ToolScope], workdir: Path, system_tmp: Path
) -> None:
    scope = sandboxed(mode=SandboxMode.READ_ONLY)
    text = output_text(await bash(scope, command=f"echo x > {system_tmp}/t && cat {system_tmp}/t && echo y > made"))
    assert text.startswith("x\n") and "Read-only file system" in text
    assert not (workdir / "made").exists() and not (system_tmp / "t").exists()
    (workdir / "kept.txt").write_text("readable\n")
    assert output_text(await bash(scope, command="cat kept.txt")).startswith("readable\n")


@pytest.fixture
def listening() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


async def test_the_network_is_off_unless_allowed(sandboxed: Callable[..., ToolScope], listening: int) -> None:
    connect = f"exec 3<>/dev/tcp/127.0.0.1/{listening} && echo connected"
    assert "connected" not in output_text(await bash(sandboxed(), command=connect))
    assert "connected" in output_text(await bash(sandboxed(network=True), command=connect))


async def test_an_interrupt_stops_every_process_in_the_sandbox(
    sandboxed: Callable[..., ToolScope], system_tmp: Path
) -> None:
    pids = system_tmp / "pids"
    command = f"(trap '' TERM; sleep 60) & echo $! > {pids}.tmp; echo $$ >> {pids}.tmp; mv {pids}.tmp {pids}; sleep 60"
    task = asyncio.create_task(bash(sandboxed(), command=command))
    while not pids.exists():
        await asyncio.sleep(0.01)
    alive = [int(line) for line in pids.read_text().split()]
    assert all(_running(pid) for pid in alive)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not any(_running(pid) for pid in alive)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_leaving_the_sandbox_is_asked_with_the_reason_and_then_writes_outside(
    make_scope: Callable[..., ToolScope], workdir: Path, outside: Path, system_tmp: Path
) -> None:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.ONCE))
    scope = make_scope(gate=gate_for(workdir, asker), sandbox=SandboxPolicy(writable_roots=(workdir,)))
    outcome = await bash(
        scope, command=f"echo out > {outside}/x.txt", outside_sandbox=True, justification="write the report"
    )
    assert "Exit code 0" in output_text(outcome) and (outside / "x.txt").exists()
    escape = [request for request in asker.requests if request.action == "outside_sandbox"]
    assert escape and escape[0].detail["justification"] == "write the report"
    assert outcome.output is not None and outcome.output.data["sandbox"] == "none"


async def test_a_rejected_escape_runs_nothing(
    make_scope: Callable[..., ToolScope], workdir: Path, outside: Path, system_tmp: Path
) -> None:
    asker = RecordingAsker(PermissionDecision(reply=PermissionReply.REJECT, message="no"))
    scope = make_scope(gate=gate_for(workdir, asker), sandbox=SandboxPolicy(writable_roots=(workdir,)))
    outcome = await bash(scope, command=f"echo out > {outside}/x.txt", outside_sandbox=True)
    assert outcome.error is not None and not (outside / "x.txt").exists()


def test_full_access_is_no_sandbox() -> None:
    assert not SandboxPolicy(mode=SandboxMode.FULL_ACCESS).confines
    assert os.path.basename(bwrap_path() or "") == "bwrap"
