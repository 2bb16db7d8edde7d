"""Pilot fixtures: the app over FakeSessions with a manual clock and zero delays."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.services import TuiServices
from agent_tui.tui.timings import Timings
from agent_tui.vocab.clock import ManualClock
from tests.fakes.sessions import FakeSessions

LOCATION = "/tmp/project"
FAST = Timings(permission_grace_s=0.5, quit_window_s=2.0, search_debounce_s=0.0, flush_interval_s=0.0)


async def steady_screen(pilot: Pilot, focused: type[Widget]) -> None:
    """Before a snapshot: wait until a ``focused`` widget has the focus, then stop the text cursors
    blinking (a focused one stays drawn). The blink toggles every 0.5 s from focus; a loaded machine
    takes longer than that to reach the screenshot, which then caught the cursor in either phase."""
    while not isinstance(pilot.app.focused, focused):
        await pilot.pause(0.01)
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False  # type: ignore[attr-defined]
    await pilot.pause()


@pytest.fixture
def fake_sessions() -> FakeSessions:
    return FakeSessions()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def make_app(fake_sessions: FakeSessions, clock: ManualClock):
    def make(
        start: StartMode = StartMode(), theme: str = "agent-dark", theme_dirs: list[Path] | None = None, **services_args
    ) -> AgentApp:
        services = TuiServices(
            sessions=fake_sessions, location=LOCATION, model="openai/fake", clock=clock, timings=FAST, **services_args
        )
        return AgentApp(services, start=start, theme=theme, theme_dirs_=theme_dirs, watch_themes=theme_dirs is not None)

    return make
