"""Real-terminal smoke test: the installed ``agent-tui`` in tmux against the fake provider.

Keys go in with ``send-keys``; the screen is read with ``capture-pane``. Waits are
on what the screen shows, never fixed sleeps.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from agent_tui.testing.fake_provider import FakeProvider, Script, Turn

BINARY = Path(sys.executable).with_name("agent-tui")
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


async def tmux(*args: str) -> str:
    proc = await asyncio.create_subprocess_exec("tmux", *args, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE)  # fmt: skip
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    return out.decode()


async def screen_shows(session: str, text: str, timeout: float = 20.0) -> str:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        screen = await tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{text!r} never appeared; screen:\n{screen}")
        await asyncio.sleep(0.05)


async def test_installed_agent_tui_streams_an_answer_and_quits(workdir: Path, agent_home: Path) -> None:
    assert BINARY.exists(), f"{BINARY} is not installed"
    script = Script(turns=[Turn(text="The smoke test **passed**: hello from the fake model.", chunks=12, delay_ms=20)])
    session = f"agent-tui-smoke-{os.getpid()}"
    async with FakeProvider(script) as fake:
        command = " ".join([
            f"AGENT_TUI_HOME={shlex.quote(str(agent_home))}", "LITELLM_OFFLINE_MODE=true",
            shlex.quote(str(BINARY)), "--model", "openai/fake", "--api-base", shlex.quote(fake.openai_base),
            "--api-key", "sk-test", "; echo AGENT_TUI_EXIT=$?; sleep 60",
        ])  # fmt: skip
        await tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", "-c", str(workdir), command)
        try:
            await screen_shows(session, "Ask anything")
            await tmux("send-keys", "-t", session, "say hello", "Enter")
            screen = await screen_shows(session, "hello from the fake model.")
            assert "say hello" in screen
            await screen_shows(session, "idle")
            await tmux("send-keys", "-t", session, "C-c")
            await tmux("send-keys", "-t", session, "C-c")
            await screen_shows(session, "AGENT_TUI_EXIT=0")
        finally:
            await tmux("kill-session", "-t", session)
    assert len(fake.requests) == 1


async def test_an_invalid_config_is_reported_after_the_app_closes(workdir: Path, agent_home: Path) -> None:
    """Settings are validated once the first frame is up; an invalid value still ends the app with
    the file and key named, and exit code 1."""
    (agent_home / "config.toml").write_text("[retry]\nmax_retries = -1\n")
    session = f"agent-tui-badconfig-{os.getpid()}"
    command = " ".join([
        f"AGENT_TUI_HOME={shlex.quote(str(agent_home))}", "LITELLM_OFFLINE_MODE=true",
        shlex.quote(str(BINARY)), "--model", "openai/fake", "--api-key", "sk-test",
        "; echo AGENT_TUI_EXIT=$?; sleep 60",
    ])  # fmt: skip
    await tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "30", "-c", str(workdir), command)
    try:
        screen = await screen_shows(session, "AGENT_TUI_EXIT=1")
    finally:
        await tmux("kill-session", "-t", session)
    flat = "".join(screen.split())  # the line wraps wherever the path makes it
    assert "config.toml:retry.max_retries:" in flat and "greaterthanorequalto0" in flat
