"""Real-terminal check: a model answering with title and clipboard escapes changes neither.

The installed ``agent-tui`` in tmux against the fake provider. tmux honours OSC 0/2 (the pane
title) and, with ``set-clipboard on``, OSC 52 (a paste buffer) from what the app writes, so both
are read back from tmux. The test has a tmux server of its own (``TMUX_TMPDIR``): the option
changes no one else's.
"""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from agent_tui.testing.fake_provider import FakeProvider, Script, Turn
from tests.warmth import LaunchMode

from .test_terminal_smoke import BINARY, _tmux_installed, fake_flags, screen_shows, start_agent_tui, tmux  # noqa: F401

CLIPPED = "rm -rf ~ # from the model"
ANSWER = (
    f"Title \x1b]0;PWNED\x07 and \x1b]2;PWNED2\x1b\\ clipboard "
    f"\x1b]52;c;{base64.b64encode(CLIPPED.encode()).decode()}\x1b\\ done: all inert."
)
"""ST-terminated (Rich drops a BEL, which leaves a BEL-terminated string open to swallow what follows)."""


@pytest.fixture
def own_tmux_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    place = tempfile.mkdtemp(prefix="tmx")  # short: the socket path must fit in 108 bytes
    monkeypatch.setenv("TMUX_TMPDIR", place)
    yield
    shutil.rmtree(place, ignore_errors=True)


async def buffers() -> str:
    return await tmux("list-buffers", "-F", "#{buffer_sample}")


async def test_a_model_cannot_retitle_the_pane_or_write_the_clipboard(
    workdir, agent_home, launch_mode: LaunchMode, own_tmux_server: None
) -> None:
    assert BINARY.exists(), f"{BINARY} is not installed"
    session = f"agent-tui-title-{os.getpid()}-{launch_mode.name}"
    async with FakeProvider(Script(turns=[Turn(text=ANSWER, chunks=7)])) as fake:
        await start_agent_tui(
            session,
            workdir,
            agent_home,
            *fake_flags(fake),
            mode=launch_mode,
        )
        try:
            await screen_shows(session, "Ask anything")
            await tmux("set-option", "-s", "set-clipboard", "on")
            await tmux("select-pane", "-t", session, "-T", "title-before")
            title = lambda: tmux("display", "-p", "-t", session, "#{pane_title}")  # noqa: E731
            assert (await title()).strip() == "title-before"
            await tmux("send-keys", "-t", session, "say it", "Enter")
            # the answer has been drawn (the status line's usage may come a frame before it)
            screen = await screen_shows(session, "all inert.")
            await tmux("send-keys", "-t", session, "C-c")
            await tmux("send-keys", "-t", session, "C-c")
            await screen_shows(session, "AGENT_TUI_EXIT=0")  # everything the app wrote has been read by tmux
            assert (await title()).strip() == "title-before"
            assert CLIPPED not in await buffers()
            words = " ".join(screen.split())  # each neutralized sequence leaves the spaces around it: two in a row
            assert "Title and clipboard done: all inert." in words, screen
        finally:
            await tmux("kill-server")  # this test's own server
    assert len(fake.requests) == 1
