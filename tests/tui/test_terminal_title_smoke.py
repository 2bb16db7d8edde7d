"""Real-terminal check: a model answering with title and clipboard escapes changes neither.

The installed ``agent-tui`` in tmux against the fake provider. tmux honours OSC 0/2 (the pane
title) and, with ``set-clipboard on``, OSC 52 (a paste buffer) from what the app writes, so both
are read back from tmux. The test has a tmux server of its own (``TMUX_TMPDIR``): the option
changes no one else's, and the server ends with its one session.
"""

from __future__ import annotations

import base64
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from agent_tui.testing.fake_provider import FakeProvider, Script, Turn
from tests.tui.tmux_pane import agent_tui_in_tmux, fake_flags, tmux
from tests.warmth import LaunchMode

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
    async with FakeProvider(Script(turns=[Turn(text=ANSWER, chunks=7)])) as fake:
        async with agent_tui_in_tmux("title", workdir, agent_home, *fake_flags(fake), mode=launch_mode) as pane:
            await pane.shows("Ask anything")
            await tmux("set-option", "-s", "set-clipboard", "on")
            await tmux("select-pane", "-t", pane.session, "-T", "title-before")
            title = lambda: tmux("display", "-p", "-t", pane.session, "#{pane_title}")  # noqa: E731
            assert (await title()).strip() == "title-before"
            await pane.keys("say it", "Enter")
            # the answer has been drawn (the status line's usage may come a frame before it)
            screen = await pane.shows("all inert.")
            # the run has ended: a Ctrl+C while it still runs interrupts it instead of arming the quit
            await pane.shows(" idle ")
            await pane.quit()  # everything the app wrote has been read by tmux
            assert (await title()).strip() == "title-before"
            assert CLIPPED not in await buffers()
            words = " ".join(screen.split())  # each neutralized sequence leaves the spaces around it: two in a row
            assert "Title and clipboard done: all inert." in words, screen
    assert len(fake.requests) == 1
