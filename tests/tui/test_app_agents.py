"""Selecting an agent in the app: shift+tab cycles the primary agents, ``/agent NAME`` checks the
name, and the status bar shows the current agent (the plan agent in its own colour)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.settings.config_validation import load_settings
from agent_tui.tui.app import StartMode
from agent_tui.tui.widgets.status import StatusBar
from tests.fakes.sessions import FakeSessions

from .test_app import SID, opened, status, until


def _agent_span_style(app) -> str:  # type: ignore[no-untyped-def]
    line = app.query_one(StatusBar).line()
    start = line.plain.index(" · ") + 3
    return " ".join(str(span.style) for span in line.spans if span.start == start)


async def test_shift_tab_cycles_the_primary_agents_and_the_status_bar_follows(
    fake_sessions: FakeSessions, make_app, workdir: Path, agent_home: Path
) -> None:
    (agent_home / "config.toml").write_text(
        '[agents.review]\nmode = "primary"\ndescription = "reviews"\n[agents.helper]\nmode = "subagent"\n'
    )
    settings = load_settings(workdir, environ={})
    async with opened(fake_sessions, make_app) as (app, pilot):
        app.services.settings = settings
        assert " · build" in status(app) and _agent_span_style(app) == ""
        await pilot.press("shift+tab")
        await until(pilot, lambda: " · plan" in status(app))
        assert fake_sessions.calls[-1] == ("select_agent", SID, "plan")
        assert "bold" in _agent_span_style(app)  # plan stands out
        await pilot.press("shift+tab")
        await until(pilot, lambda: " · review" in status(app))
        await pilot.press("shift+tab")  # the subagent is skipped: back to build
        await until(pilot, lambda: " · build" in status(app))
        assert [c[2] for c in fake_sessions.calls if c[0] == "select_agent"] == ["plan", "review", "build"]


async def test_slash_agent_checks_the_name(fake_sessions: FakeSessions, make_app) -> None:
    app = make_app(StartMode(), agent="build")
    async with app.run_test() as pilot:
        await pilot.press(*"/agent ghost", "enter")
        await until(pilot, lambda: any("unknown agent 'ghost'" in str(n.message) for n in app._notifications))
        assert app.services.agent == "build"
        await pilot.press(*"/agent plan", "enter")
        await until(pilot, lambda: app.services.agent == "plan" and " · plan" in status(app))
        assert fake_sessions.calls == []  # no session yet: the first prompt's session gets it


@pytest.mark.parametrize(("action", "key"), [("cycle_agent", "shift+tab"), ("cycle_approval", "alt+a")])
async def test_the_cycle_keys_are_off_over_a_modal_screen(
    fake_sessions: FakeSessions, make_app, action: str, key: str
) -> None:
    app = make_app(StartMode(), agent="build")
    async with app.run_test() as pilot:
        assert app.check_action(action, ()) is True
        await pilot.press("f1")
        await until(pilot, lambda: len(app.screen_stack) == 2)
        assert app.check_action(action, ()) is False
        await pilot.press(key)
        await pilot.pause()
        assert app.services.agent == "build" and app.services.approval == "ask"
