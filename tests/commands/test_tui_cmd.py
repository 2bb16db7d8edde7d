"""``agent-tui`` with no subcommand: the command line goes to the TUI's bootstrap as it is."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pty
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.commands import tui_cmd
from agent_tui.tui import bootstrap
from tests.warmth import LaunchMode


def args(**given: object) -> argparse.Namespace:
    values = {"model": None, "api_base": None, "api_key": None, "continue_": False, "resume": None, **given}
    return argparse.Namespace(**values)


def test_the_command_line_becomes_one_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    launches: list[bootstrap.Launch] = []
    monkeypatch.setattr(bootstrap, "run", lambda launch: launches.append(launch) or 7)
    assert tui_cmd.main(args(model="openai/x", api_key="sk", continue_=True, resume="", agent="plan")) == 7
    assert launches == [bootstrap.Launch(model="openai/x", api_key="sk", continue_latest=True, resume="", agent="plan")]
    assert launches[0].cli["agent"] == "plan"  # the settings' agent, and the new session's


def test_a_failed_launch_is_one_line_and_exit_1(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    def broken(launch: bootstrap.Launch) -> int:
        raise bootstrap.LaunchFailed("/p/config.toml: model: Input should be a valid string")

    monkeypatch.setattr(bootstrap, "run", broken)
    assert tui_cmd.main(args()) == 1
    assert capsys.readouterr().err == "agent-tui: /p/config.toml: model: Input should be a valid string\n"


def test_an_agent_that_cannot_be_selected_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def refused(launch: bootstrap.Launch) -> int:
        raise bootstrap.LaunchFailed("unknown agent 'ghost'; the primary agents: build, plan", 2)

    monkeypatch.setattr(bootstrap, "run", refused)
    assert tui_cmd.main(args(agent="ghost")) == 2
    assert capsys.readouterr().err == "agent-tui: unknown agent 'ghost'; the primary agents: build, plan\n"


async def test_the_app_checks_its_agent_flag_once_the_settings_are_read(
    launch_mode: LaunchMode, workdir: Path, agent_home: Path
) -> None:
    async with in_a_terminal(launch_mode, workdir, agent_home, "--agent", "ghost") as app:
        assert await asyncio.wait_for(app.wait(), 60) == 2


START_UP_DELAYS_S = (0.0, 0.02, 0.1, 0.3, 0.7, 1.5)
"""Before the interpreter is up, while it imports, while a warm launcher waits for its child,
while the app paints its first frame and opens the core, and once it runs."""


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
async def test_the_app_ends_on_a_hangup_or_term_at_any_moment_of_start_up(
    sig: int, launch_mode: LaunchMode, workdir: Path, agent_home: Path
) -> None:
    """``agent-tui -r ID`` in a terminal closed (or killed) just after it started ends promptly:
    129/143 once the app catches the signal, or by the signal itself before that."""
    ended = {}
    for delay in START_UP_DELAYS_S:
        async with in_a_terminal(launch_mode, workdir, agent_home, "-r", "01JNOSUCHSESSION000000000") as app:
            await asyncio.sleep(delay)  # the input under test: how far the launch got
            app.send_signal(sig)
            try:
                ended[delay] = await asyncio.wait_for(app.wait(), 30)
            except TimeoutError:
                raise AssertionError(f"still running 30 s after a signal {delay} s into its launch; {ended}") from None
        assert ended[delay] in (128 + sig, -sig), ended


@contextlib.asynccontextmanager
async def in_a_terminal(
    mode: LaunchMode, workdir: Path, home: Path, *args: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``agent-tui ARGS`` with a pseudo-terminal for its stdio (what it writes there is read and
    dropped); killed if the test leaves it running."""
    master, slave = pty.openpty()
    loop = asyncio.get_running_loop()
    loop.add_reader(master, _drain, loop, master)
    env = {**mode.environ(), "AGENT_TUI_HOME": str(home), "LITELLM_OFFLINE_MODE": "true", "TERM": "xterm-256color"}
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "agent_tui", *args, cwd=workdir, env=env, stdin=slave, stdout=slave, stderr=slave
        )
        os.close(slave)
        try:
            yield proc
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
    finally:
        loop.remove_reader(master)
        os.close(master)


def _drain(loop: asyncio.AbstractEventLoop, master: int) -> None:
    try:
        os.read(master, 65536)
    except OSError:  # EIO once no process holds the terminal open
        loop.remove_reader(master)
