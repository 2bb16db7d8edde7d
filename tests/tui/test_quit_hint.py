"""Quitting says how to come back: the session, how to resume it, its token use (issue 32)."""

from __future__ import annotations

import re
from pathlib import Path

from agent_tui.testing.fake_provider import FakeProvider, Script, Turn
from agent_tui.tui.quit_hint import read_quit_hint
from tests.tui.tmux_pane import agent_tui_in_tmux, fake_flags
from tests.warmth import LaunchMode

from .test_app import SID, opened, until


async def test_the_hint_names_the_session_how_to_resume_it_and_its_tokens(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        await pilot.press("ctrl+c", "ctrl+c")
        await until(pilot, lambda: not app.is_running)
    assert app.session_on_exit == SID
    hint = await read_quit_hint(fake_sessions, app.session_on_exit)
    assert hint == (
        "session ses_a (question 0): 100 input · 20 output tokens · $0.0010\n"
        "resume it: agent-tui -r ses_a   (agent-tui -c: the latest session here)"
    )


async def test_nothing_to_resume_says_nothing(fake_sessions, make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("ctrl+c", "ctrl+c")
        await until(pilot, lambda: not app.is_running)
    assert app.session_on_exit is None and await read_quit_hint(fake_sessions, None) is None
    assert await read_quit_hint(fake_sessions, "ses_gone") is None  # an unreadable row: no hint, no error
    assert await read_quit_hint(None, SID) is None  # the store never opened


async def test_ctrl_c_stops_a_stream_in_a_real_terminal_and_the_quit_prints_the_hint(
    workdir: Path, agent_home: Path, launch_mode: LaunchMode
) -> None:
    """The installed agent-tui in tmux: Ctrl+C during a slow answer stops it and the app stays;
    two more on the idle, empty prompt quit, and the shell shows the session's id and resume line."""
    script = Script(turns=[Turn(text="word " * 400, chunks=400, delay_ms=25)])
    async with FakeProvider(script) as fake:
        async with agent_tui_in_tmux("quit-hint", workdir, agent_home, *fake_flags(fake), mode=launch_mode) as pane:
            await pane.shows("Ask anything")
            await pane.keys("talk a while", "Enter")
            await pane.shows("word word word")
            await pane.keys("C-c")
            screen = await pane.shows("idle")
            assert "AGENT_TUI_EXIT" not in screen
            screen = await pane.quit()
    found = re.search(r"resume it: agent-tui -r (\S+)", screen)
    assert found is not None, screen
    assert re.search(
        rf"session {re.escape(found.group(1))} \(talk a while\): [\d,]+ input · [\d,]+ output tokens", screen
    )
