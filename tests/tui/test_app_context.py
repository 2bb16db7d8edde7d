"""``/context`` in the app, over the real Runtime and the fake provider: the breakdown of the next request."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from agent_tui.core.api import ContextBreakdown
from agent_tui.testing.fake_provider import FakeProvider, Turn
from agent_tui.tui.app import AgentApp
from agent_tui.tui.screens.context import ContextScreen

from .test_app import until
from .test_app_provider import app, idle, provider, runtime  # noqa: F401 - fixtures


def _table(screen: ContextScreen) -> str:
    """The page's table as the terminal shows it."""
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(screen.query_one("#context-table", Static).content)
    return console.export_text()


async def _open_context(pilot, app: AgentApp) -> ContextBreakdown:  # noqa: ANN001 - Pilot
    await pilot.press(*"/context", "enter")
    await until(pilot, lambda: isinstance(app.screen, ContextScreen) and app.screen.breakdown is not None, timeout=30)
    screen = app.screen
    assert isinstance(screen, ContextScreen) and screen.breakdown is not None
    return screen.breakdown


async def test_slash_context_before_and_after_a_turn(provider: FakeProvider, app: AgentApp, workdir: Path) -> None:
    (workdir / "AGENTS.md").write_text("Run the tests with make check.")
    provider.add(Turn(text="Done. " * 400))  # 2,400 characters of answer: ~600 tokens of history
    async with app.run_test() as pilot:
        first = await _open_context(pilot, app)
        assert first.session_id is None and first.model == "openai/fake-model"
        assert first.part("history").tokens == 0 and first.part("system").tokens > 500
        assert "core/instructions" in {source.key for source in first.part("instructions").sources}
        table = _table(app.screen)  # type: ignore[arg-type]
        assert "system prompt" in table and "tool definitions" in table and "context window" in table
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ContextScreen))

        await pilot.press(*"explain", "enter")
        await idle(pilot, app)
        after = await _open_context(pilot, app)
        assert after.session_id == app.view.session_id
        assert 600 < after.part("history").tokens < 800
        assert after.part("instructions") == first.part("instructions")  # the checkpoint holds what was observed
        assert sum(part.tokens for part in after.parts) == after.total
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ContextScreen))
