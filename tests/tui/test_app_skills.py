"""``/skills`` in the TUI: the skills found for the location, where each is from, the denied and the bad ones."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from agent_tui.core.api import load_settings, paths
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.screens.skills import EMPTY, SkillsScreen
from agent_tui.tui.services import TuiServices
from agent_tui.vocab.clock import ManualClock
from tests.fakes.sessions import FakeSessions
from tests.fakes.skills import write_skill

from .conftest import FAST
from .test_app import until


def _text(widget: Static) -> str:
    console = Console(width=200, color_system=None, highlight=False)
    with console.capture() as captured:
        console.print(widget.content)
    return " ".join(captured.get().split())


def _app(workdir: Path, cli: dict | None = None) -> AgentApp:
    services = TuiServices(
        sessions=FakeSessions(),
        location=str(workdir),
        model="openai/fake",
        clock=ManualClock(),
        timings=FAST,
        settings=load_settings(workdir, cli=cli or {}),
    )
    return AgentApp(services, start=StartMode(), watch_themes=False)


async def test_slash_skills_lists_name_description_and_where_with_denied_and_bad_ones(workdir: Path) -> None:
    write_skill(workdir / ".agents/skills", "release-notes", "Write release notes.")
    write_skill(workdir / ".claude/skills", "deploy-prod", "Deploy to production.")
    write_skill(paths.user_skills_dir(), "mine", "The user's own.")
    write_skill(workdir / ".agents/skills", "broken", front="name: broken\n")
    deny = {"permission": [{"action": "skill", "pattern": "deploy-*", "effect": "deny"}]}
    app = _app(workdir, deny)
    async with app.run_test() as pilot:
        await pilot.press(*"/skills", "enter")
        await until(pilot, lambda: isinstance(app.screen, SkillsScreen))
        screen = app.screen
        assert isinstance(screen, SkillsScreen)
        rows = [(row.name, row.where, row.denied) for row in screen.rows]
        assert rows == [
            ("deploy-prod", "project .claude/skills", True),
            ("mine", f"user {paths.user_skills_dir().resolve()}", False),
            ("release-notes", "project .agents/skills", False),
        ]
        (problem,) = screen.problems
        assert "broken/SKILL.md: description: missing" in problem
        shown = _text(screen.query_one("#skills", Static))
        assert "Write release notes." in shown and "denied for build" in shown
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SkillsScreen))


async def test_slash_skills_says_where_skills_go_when_there_are_none(workdir: Path) -> None:
    app = _app(workdir)
    async with app.run_test() as pilot:
        await pilot.press(*"/skills", "enter")
        await until(pilot, lambda: isinstance(app.screen, SkillsScreen))
        assert ".agents/skills/" in EMPTY and _text(app.screen.query_one("#skills", Static)) == " ".join(EMPTY.split())
