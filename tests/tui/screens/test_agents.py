"""``/agents`` in the TUI: every agent with its mode, description and source; Enter on a primary agent
switches to it, on a subagent only says why not; Esc closes."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList

from agent_tui.tui.app import AgentApp
from agent_tui.tui.screens.agents import AgentsScreen

from ..test_app import until
from ..test_app_skills import _app as app_with_settings


def _app(workdir: Path) -> AgentApp:
    agents = workdir / ".agent-tui" / "agents"
    agents.mkdir(parents=True)
    (agents / "review.md").write_text("---\ndescription: Reviews the diff\nmode: primary\n---\nYou review diffs.\n")
    (agents / "bad.md").write_text("---\nmode: sometimes\n---\nx\n")
    return app_with_settings(workdir)


def _option_text(screen: AgentsScreen, index: int) -> str:
    return str(screen.query_one(OptionList).get_option_at_index(index).prompt)


async def test_slash_agents_lists_them_and_enter_selects_a_primary_one(workdir: Path) -> None:
    app = _app(workdir)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press(*"/agents", "enter")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        screen = app.screen
        assert isinstance(screen, AgentsScreen)
        assert [(r.name, r.mode, r.source) for r in screen.rows] == [
            ("build", "primary", "built-in"),
            ("plan", "primary", "built-in"),
            ("general", "subagent", "built-in"),
            ("explore", "subagent", "built-in"),
            ("review", "primary", ".agent-tui/agents/review.md"),
        ]
        assert _option_text(screen, 0).startswith("● build  primary")
        assert "(run by the task tool)" in _option_text(screen, 2)
        assert "Reviews the diff" in _option_text(screen, 4) and ".agent-tui/agents/review.md" in _option_text(
            screen, 4
        )
        (problem,) = screen.problems
        assert problem.startswith(".agent-tui/agents/bad.md: mode:")

        await pilot.press("down", "down", "enter")  # general: a subagent, not selectable
        await until(pilot, lambda: any("general is a subagent" in n.message for n in app._notifications))
        assert app.screen is screen and app.services.agent in (None, "build")

        await pilot.press("down", "down", "enter")  # review
        await until(pilot, lambda: not isinstance(app.screen, AgentsScreen))
        await until(pilot, lambda: app.services.agent == "review")


async def test_esc_closes_the_agents_screen_and_keeps_the_agent(workdir: Path) -> None:
    app = _app(workdir)
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press(*"/agents", "enter")
        await until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        await pilot.press("down", "escape")
        await until(pilot, lambda: not isinstance(app.screen, AgentsScreen))
        assert app.services.agent in (None, "build")
