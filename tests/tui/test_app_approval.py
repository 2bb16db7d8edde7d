"""The approval mode in the app: alt+a cycles ask → auto-edit → auto → ask for the session on screen,
the status bar shows any mode but ``ask`` (``full-auto`` in the theme's error colour), and a new
session starts in the mode the bar shows."""

from __future__ import annotations

from agent_tui.tui.app import StartMode
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.status import StatusBar
from agent_tui.vocab.kinds import ApprovalMode
from tests.fakes.sessions import FakeSessions

from .test_app import SID, opened, status, until


def _span_style(app, word: str) -> str:  # type: ignore[no-untyped-def]
    line = app.query_one(StatusBar).line()
    start = line.plain.index(f" · {word}") + 3
    return " ".join(str(span.style) for span in line.spans if span.start == start)


async def test_the_key_cycles_the_modes_of_the_session_on_screen(fake_sessions: FakeSessions, make_app) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        assert " · auto" not in status(app)  # ask: nothing shown
        await pilot.press("alt+a")
        await until(pilot, lambda: " · auto-edit" in status(app))
        assert fake_sessions.approval(SID) is ApprovalMode.AUTO_EDIT
        await pilot.press("alt+a")
        await until(pilot, lambda: " · auto ·" in status(app))
        assert fake_sessions.approval(SID) is ApprovalMode.AUTO
        assert "red" not in _span_style(app, "auto")
        await pilot.press("alt+a")  # full-auto is not in the cycle: back to ask
        await until(pilot, lambda: fake_sessions.approval(SID) is ApprovalMode.ASK)
        assert " · auto" not in status(app)


async def test_full_auto_shows_in_the_error_colour_and_the_key_leaves_it(fake_sessions: FakeSessions, make_app) -> None:
    app = make_app(StartMode(), approval="full-auto")
    async with app.run_test() as pilot:
        await until(pilot, lambda: " · full-auto" in status(app))
        error = app.current_theme.error
        assert error and error in _span_style(app, "full-auto")
        await pilot.press("alt+a")
        await until(pilot, lambda: " · full-auto" not in status(app))
        assert app.services.approval == "ask"


async def test_a_new_session_starts_in_the_mode_the_bar_shows(fake_sessions: FakeSessions, make_app) -> None:
    app = make_app(StartMode())
    async with app.run_test() as pilot:
        await pilot.press("alt+a")
        await until(pilot, lambda: " · auto-edit" in status(app))
        app.query_one(PromptInput).focus()
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: any(call[0] == "prompt" for call in fake_sessions.calls))
        created = next(call[1] for call in fake_sessions.calls if call[0] == "create")
        assert fake_sessions.approval(created) is ApprovalMode.AUTO_EDIT


async def test_a_resumed_session_shows_the_configs_mode_until_one_is_chosen(
    fake_sessions: FakeSessions, make_app, workdir, agent_home
) -> None:
    from agent_tui.core.settings.config_validation import load_settings

    (agent_home / "config.toml").write_text('approval = "auto"\n')
    async with opened(fake_sessions, make_app) as (app, pilot):
        app.services.settings = load_settings(workdir, environ={})
        app.view.paint_chrome()
        await until(pilot, lambda: " · auto ·" in status(app))
        assert fake_sessions.approval(SID) is None  # the config's, nothing chosen
        await pilot.press("alt+a")  # auto → ask
        await until(pilot, lambda: fake_sessions.approval(SID) is ApprovalMode.ASK)
        assert " · auto" not in status(app)
