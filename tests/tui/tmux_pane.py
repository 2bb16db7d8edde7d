"""Driving a real terminal for the smoke tests: the installed ``agent-tui`` in a tmux pane.

Keys go in with ``send-keys``; the screen is read with ``capture-pane``. Every wait is
on what the screen shows, never a fixed sleep: on a loaded machine a launch or a frame
may take many times longer than alone.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import LaunchMode

BINARY = Path(sys.executable).with_name("agent-tui")
EXITED = "AGENT_TUI_EXIT=0"
"""What the pane prints once ``agent-tui`` has ended with exit code 0 (see ``agent_tui_command``)."""


SOCKET = f"agent-tui-tests-{os.getpid()}"
"""This test process's own tmux server (``tmux -L``): not the user's, and not another test run's.
On the shared default server, one run's last ``kill-session`` ended the server while a run beside
it was starting a session there ("server exited unexpectedly")."""


async def tmux(*args: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        "tmux", "-L", SOCKET, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    return out.decode()


def fake_flags(fake: FakeProvider) -> list[str]:
    """The model flags that point agent-tui at ``fake``."""
    return ["--model", "openai/fake", "--api-base", fake.openai_base, "--api-key", "sk-test"]


_PANE_OWN = ("TERM", "TMUX", "TMUX_PANE", "COLUMNS", "LINES")


def agent_tui_command(agent_home: Path, flags: tuple[str, ...], mode: LaunchMode) -> str:
    """The pane's shell command: the installed agent-tui, then ``AGENT_TUI_EXIT=<code>``.

    It gets exactly the test's environment in ``mode`` (not the tmux server's, which another
    test started), with the pane's own terminal variables."""
    env = {**mode.environ(), "AGENT_TUI_HOME": str(agent_home), "LITELLM_OFFLINE_MODE": "true"}
    return " ".join(
        [
            "env",
            "-i",
            'TERM="$TERM"',
            'TMUX="$TMUX"',
            'TMUX_PANE="$TMUX_PANE"',
            *(f"{name}={shlex.quote(value)}" for name, value in env.items() if name not in _PANE_OWN),
            shlex.quote(str(BINARY)),
            *(shlex.quote(flag) for flag in flags),
            "; echo AGENT_TUI_EXIT=$?; sleep 60",
        ]
    )


class TmuxPane:
    """One tmux session's pane: keys in, the screen out."""

    def __init__(self, session: str) -> None:
        self.session = session
        self.closed = False

    async def keys(self, *keys: str) -> None:
        await tmux("send-keys", "-t", self.session, *keys)

    async def screen(self) -> str:
        return await tmux("capture-pane", "-p", "-t", self.session)

    async def shows(self, text: str, timeout: float = 20.0) -> str:
        """The screen, once it shows ``text``."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            screen = await self.screen()
            if text in screen:
                return screen
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"{text!r} never appeared; screen:\n{screen}")
            await asyncio.sleep(0.05)

    async def quit(self) -> str:
        """Ctrl+C twice on the idle, empty prompt; the screen once the app has ended."""
        await self.keys("C-c")
        await self.keys("C-c")
        return await self.shows(EXITED)

    async def close(self) -> None:
        """The session ends (as a terminal closed: the app gets SIGHUP)."""
        self.closed = True
        await tmux("kill-session", "-t", self.session)


@asynccontextmanager
async def tmux_session(session: str, workdir: Path, command: str, width: int = 100) -> AsyncIterator[TmuxPane]:
    """``command`` in a new detached tmux session of ``width`` x 30, in ``workdir``; the session is
    killed on the way out (unless the test closed it)."""
    assert shutil.which("tmux") is not None, "tmux is not installed (.ci/run installs it): the smoke test cannot run"
    await tmux("new-session", "-d", "-s", session, "-x", str(width), "-y", "30", "-c", str(workdir), command)
    pane = TmuxPane(session)
    try:
        yield pane
    finally:
        if not pane.closed:
            await pane.close()


@asynccontextmanager
async def agent_tui_in_tmux(
    name: str, workdir: Path, agent_home: Path, *flags: str, mode: LaunchMode, width: int = 100
) -> AsyncIterator[TmuxPane]:
    """The installed agent-tui with ``flags`` in a tmux session of its own (named after ``name``,
    this process and ``mode``); the pane prints ``AGENT_TUI_EXIT=<code>`` once it ends."""
    assert BINARY.exists(), f"{BINARY} is not installed"
    session = f"agent-tui-{name}-{os.getpid()}-{mode.name}"
    async with tmux_session(session, workdir, agent_tui_command(agent_home, flags, mode), width) as pane:
        yield pane


async def ask_and_quit(pane: TmuxPane, prompt: str, answer: str) -> str:
    """Send ``prompt`` once the app is up, wait for ``answer`` and idle, quit (Ctrl+C twice); the
    screen that showed the answer."""
    await pane.shows("Ask anything")
    await pane.keys(prompt, "Enter")
    screen = await pane.shows(answer)
    await pane.shows("idle")
    await pane.quit()
    return screen
