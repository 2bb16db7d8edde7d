"""``/theme``, ``/model`` and ``/agent`` without a name open a list: the theme shows live while
highlighted and comes back on Esc; a chosen theme is remembered in the user's config file."""

from __future__ import annotations

import tomllib

from agent_tui.core.api import paths
from agent_tui.tui.screens.choose import ChooseScreen
from agent_tui.tui.widgets.prompt import PromptInput
from tests.fakes.sessions import FakeSessions

from .test_app import until


async def test_theme_list_previews_live_and_esc_puts_the_old_theme_back(fake_sessions: FakeSessions, make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press(*"/theme ", "enter")  # the trailing space the completion leaves
        await until(pilot, lambda: isinstance(app.screen, ChooseScreen))
        assert app.query_one(PromptInput).text == ""
        await pilot.press("down")
        await until(pilot, lambda: app.theme != "agent-dark")  # shown while highlighted
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ChooseScreen))
        assert app.theme == "agent-dark"
    assert not paths.user_config_file().exists()  # nothing chosen, nothing remembered


async def test_a_chosen_theme_is_remembered_in_the_users_config(fake_sessions: FakeSessions, make_app) -> None:
    config = paths.user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('# my settings\nmodel = "openai/mine"\n\n[retry]\nmax_attempts = 3\n')
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press(*"/theme", "enter")
        await until(pilot, lambda: isinstance(app.screen, ChooseScreen))
        await pilot.press(*"light", "enter")
        await until(pilot, lambda: app.theme == "agent-light" and "theme = " in config.read_text())
    text = config.read_text()
    assert text.startswith("# my settings\n")  # the user's file, kept as written
    assert tomllib.loads(text) == {"model": "openai/mine", "theme": "agent-light", "retry": {"max_attempts": 3}}


async def test_model_list_takes_a_name_it_does_not_know_yet(fake_sessions: FakeSessions, make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press(*"/model", "enter")
        await until(pilot, lambda: isinstance(app.screen, ChooseScreen))
        assert app.screen.shown == ["openai/fake"]
        await pilot.press(*"anthropic/claude-x", "enter")
        await until(pilot, lambda: app.services.model == "anthropic/claude-x")
