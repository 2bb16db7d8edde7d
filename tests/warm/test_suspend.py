"""Ctrl+Z, ``fg`` and Ctrl+C on a warm launch in a real terminal (tmux, an interactive bash).

The warm child is not in the terminal's foreground process group: the terminal's SIGTSTP reaches
the launcher, which forwards it; the child asks the launcher to stop too, so the shell sees its
job stopped, and ``fg`` (SIGCONT to the launcher) wakes both."""

from __future__ import annotations

import asyncio
import itertools
import os
import shlex
import shutil
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import UNDER_LOAD_S

from .helpers import PYTHON, Warm, alive, apoll, model_flags, state

PROMPT = "warm-test$ "
SHOWN = PROMPT.strip()  # capture-pane drops trailing blanks
_SHELLS = itertools.count()


@pytest.fixture(autouse=True)
def _tmux_installed() -> None:
    assert shutil.which("tmux") is not None, "tmux is not installed: the terminal tests cannot run"


class Tmux:
    def __init__(self, name: str) -> None:
        self.name = name
        # A server of our own (its environment is ours), one per test: the last test's server may
        # still be going away when the next test starts, and a client then finds it "exited unexpectedly"
        self.server = f"agent-tui-warm-test-{name}"

    async def __call__(self, *args: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            "tmux", "-L", self.server, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await proc.communicate()
        assert proc.returncode == 0, err.decode()
        return out.decode()

    async def screen(self) -> str:
        return await self("capture-pane", "-p", "-t", self.name)

    async def shows(self, text: str, timeout: float = 30.0) -> str:
        deadline = asyncio.get_running_loop().time() + timeout
        while text not in (screen := await self.screen()):
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{text!r} never appeared; screen:\n{screen}")
            await asyncio.sleep(0.05)
        return screen

    async def shows_after(self, first: str, then: str, timeout: float = 30.0) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while then not in (screen := await self.screen()).partition(first)[2]:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{then!r} never appeared after {first!r}; screen:\n{screen}")
            await asyncio.sleep(0.05)

    async def type(self, line: str) -> None:
        await self("send-keys", "-t", self.name, "-l", line)
        await self("send-keys", "-t", self.name, "Enter")

    async def key(self, key: str) -> None:
        await self("send-keys", "-t", self.name, key)

    async def shell_pid(self) -> int:
        return int((await self("list-panes", "-t", self.name, "-F", "#{pane_pid}")).split()[0])


@pytest.fixture
async def shell(tmp_path: Path, workdir: Path, warm: Warm, agent_home: Path) -> AsyncIterator[Tmux]:
    """An interactive ``bash --norc`` in tmux whose environment is the warm process's (its key is the same)."""
    env = warm.launch_env(
        agent_home,
        AGENT_TUI_TEST_TOOLS="agent_tui.testing.test_tools:register",
        AGENT_TUI_TEST_MARKS=str(agent_home / "marks.txt"),
    )
    env.update(TERM="screen", PS1=PROMPT)
    script = tmp_path / "shell.sh"
    pairs = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    script.write_text(f"#!/bin/sh\nexec env -i {pairs} bash --norc --noprofile -i\n")
    script.chmod(0o700)
    tmux = Tmux(f"warm-suspend-{os.getpid()}-{next(_SHELLS)}")
    await tmux("new-session", "-d", "-s", tmux.name, "-x", "160", "-y", "40", "-c", str(workdir), str(script))
    try:
        await tmux.shows(SHOWN)
        yield tmux
    finally:
        await tmux("kill-server")


def _children(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


async def test_ctrl_z_stops_the_job_fg_continues_it_and_ctrl_c_ends_it_with_130(
    shell: Tmux, warm: Warm, fake: FakeProvider, agent_home: Path
) -> None:
    fake.add({"tool_calls": [{"id": "c1", "name": "block", "arguments": {}}]})
    launches = warm.status()["launches"]
    command = shlex.join([PYTHON, "-m", "agent_tui", "run", *model_flags(fake), "block"])
    await shell.type(command)
    marks = agent_home / "marks.txt"
    await apoll(lambda: marks.exists() and "pid=" in marks.read_text(), "the block tool to run")
    status = warm.status()
    assert status["launches"] == launches + 1
    (child,) = status["running"]
    (launcher,) = _children(await shell.shell_pid())
    assert launcher != child and alive(launcher) and alive(child)

    await shell.key("C-z")
    await shell.shows("Stopped")
    await shell.shows_after("Stopped", SHOWN)  # and the shell has the terminal back
    await apoll(lambda: state(child) == "T" and state(launcher) == "T", "the child and the launcher to stop")
    assert warm.status()["running"] == [child]

    await shell.type("fg")
    await apoll(lambda: state(child) not in ("T", None) and state(launcher) not in ("T", None), "both to continue")
    assert warm.status()["running"] == [child]

    await shell.key("C-c")
    await apoll(lambda: not alive(child) and not alive(launcher), "the child and the launcher to end")
    await shell.type("echo EXIT=$?")
    await shell.shows("EXIT=130")
    assert warm.status()["running"] == []


async def test_a_launch_in_the_background_runs_in_process_where_job_control_stops_it(
    shell: Tmux, warm: Warm, fake: FakeProvider
) -> None:
    """``agent-tui &``: the kernel stops a background job that takes its terminal; a warm child has
    no terminal of its own and drew over the shell, taking the keys typed there."""
    launches = warm.status()["launches"]
    shell_pid = await shell.shell_pid()
    await shell.type(shlex.join([PYTHON, "-m", "agent_tui", *model_flags(fake)]) + " &")
    (job,) = await apoll(lambda: _children(int(shell_pid)) or None, "the job to start")
    await apoll(lambda: state(job) == "T", "job control to stop the job")
    await shell.type("jobs")
    await shell.shows("Stopped")
    assert warm.status()["launches"] == launches and warm.status()["running"] == []
    await shell.type("fg")
    await shell.shows("Ask anything")  # in the foreground it is the app, as in-process
    await shell.key("C-c")
    await shell.key("C-c")
    await apoll(lambda: not alive(job), "the app to end")
    await shell.type("echo EXIT=$?")
    await shell.shows("EXIT=0")


async def test_a_stop_signal_to_a_warm_tui_stops_the_job_bg_keeps_it_stopped_and_fg_brings_it_back(
    shell: Tmux, warm: Warm, fake: FakeProvider
) -> None:
    """``kill -TSTP`` on the launcher: the child leaves the terminal, asks the launcher to stop
    and stops; Textual's handler stopped the child alone and left the shell waiting for ever."""
    launches = warm.status()["launches"]
    await shell.type(shlex.join([PYTHON, "-m", "agent_tui", *model_flags(fake)]))
    await shell.shows("Ask anything")
    (child,) = warm.status()["running"]
    assert warm.status()["launches"] == launches + 1
    (launcher,) = _children(await shell.shell_pid())
    os.kill(launcher, signal.SIGTSTP)
    await shell.shows("Stopped")
    await apoll(lambda: state(child) == "T" and state(launcher) == "T", "the child and the launcher to stop")
    await shell.type("bg")  # in-process, job control stops the app again as it takes the terminal
    await apoll(lambda: state(launcher) == "T", "the launcher to stop again")
    assert state(child) == "T" and "Ask anything" not in await shell.screen()
    await shell.type("fg")
    await shell.shows("Ask anything")
    for _ in range(50):  # the app takes keys again (the first ones after a resume can be lost, in-process too)
        await shell.key("x")
        if "│ x" in await shell.screen():
            break
    await shell.shows("│ x")
    for _ in range(50):  # every x that landed (one more can land after the one seen): an empty prompt
        await shell.key("BSpace")
        if "Ask anything · Enter send" in await shell.screen():
            break
    await shell.shows("Ask anything · Enter send")
    await shell.key("C-c")  # on an empty prompt it arms the quit (on text it would only clear it)
    await shell.shows("press Ctrl+C again to quit")  # the first press landed (then the second quits)
    await shell.key("C-c")
    try:  # the app's shutdown closes the core: on a loaded machine that takes more than a few seconds
        await apoll(
            lambda: not alive(child) and not alive(launcher), "the child and the launcher to end", timeout=UNDER_LOAD_S
        )
    except AssertionError:
        raise AssertionError((await shell.screen(), state(child), state(launcher))) from None
    await shell.type("echo EXIT=$?")
    await shell.shows("EXIT=0")


async def test_a_stop_signal_that_reaches_the_child_before_it_took_the_launch_still_stops_the_job(
    shell: Tmux, warm: Warm, fake: FakeProvider
) -> None:
    """The launcher forwards a stop as soon as it knows the child's pid, which the warm process
    sends once the spare child has the launch, not once it has taken it on. A SIGTSTP in that
    window found the spare's default disposition; its process group has no terminal, so the
    kernel dropped it and the job never stopped (the launch after a stop sent to the spare
    itself is the same window, made wide). And the child's request to stop can then reach the
    launcher before the warm process's reply with its pid: the launcher took it for a refused
    launch and ran the app in-process beside the stopped child (5 runs in 12 under load)."""
    spare = warm.status()["spare_pid"]
    os.kill(spare, signal.SIGTSTP)
    await shell.type(shlex.join([PYTHON, "-m", "agent_tui", *model_flags(fake)]))
    await shell.shows("Stopped")
    assert warm.status()["running"] == [spare]
    (launcher,) = _children(await shell.shell_pid())
    await apoll(lambda: state(spare) == "T" and state(launcher) == "T", "the child and the launcher to stop")
    await shell.type("fg")
    await shell.shows("Ask anything")
    await shell.key("C-c")
    await shell.shows("press Ctrl+C again to quit")
    await shell.key("C-c")
    ended = "the child and the launcher to end"
    await apoll(lambda: not alive(spare) and not alive(launcher), ended, timeout=UNDER_LOAD_S)
    await shell.type("echo EXIT=$?")
    await shell.shows("EXIT=0")
