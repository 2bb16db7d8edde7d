"""``/usage`` in the app, over the real Runtime and the fake provider: the session's tokens and cost
per model and per agent, a cost the provider reported as it reported it, an unknown one as unknown."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from agent_tui.core.api import Runtime
from agent_tui.testing.fake_provider import FakeProvider, Turn
from agent_tui.tui.app import AgentApp
from agent_tui.tui.screens.usage import UsageScreen
from agent_tui.tui.session_feed import seed_for
from agent_tui.tui.transcript.model import Transcript
from agent_tui.tui.widgets.status import StatusBar

from .test_app import until
from .test_app_provider import app, idle, provider, runtime  # noqa: F401 - fixtures


def _shown(screen: UsageScreen, selector: str) -> str:
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(screen.query_one(selector, Static).content)
    return console.export_text()


async def _open_usage(pilot, app: AgentApp) -> UsageScreen:  # noqa: ANN001 - Pilot
    await pilot.press(*"/usage", "enter")
    await until(pilot, lambda: isinstance(app.screen, UsageScreen), timeout=30)
    screen = app.screen
    assert isinstance(screen, UsageScreen)
    return screen


async def test_slash_usage_before_and_after_turns(provider: FakeProvider, app: AgentApp, workdir: Path) -> None:
    provider.add(
        Turn(text="first", usage={"input": 1200, "output": 80, "cost": 0.0123}),  # a gateway reports its cost
        Turn(text="second", usage={"input": 1500, "output": 40}),  # a model without a known price
    )
    async with app.run_test() as pilot:
        screen = await _open_usage(pilot, app)
        await until(pilot, lambda: "No session yet" in _shown(screen, "#usage-total"))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, UsageScreen))

        await pilot.press(*"one", "enter")
        await idle(pilot, app)
        screen = await _open_usage(pilot, app)
        await until(pilot, lambda: screen.usage is not None)
        assert screen.usage is not None and screen.usage.total.cost == 0.0123
        assert "cost $0.0123" in _shown(screen, "#usage-total")
        models = _shown(screen, "#usage-models")
        assert "openai/fake-model" in models and "1,200" in models and "$0.0123" in models
        assert "build" in _shown(screen, "#usage-agents")
        await pilot.press("escape")
        await until(pilot, lambda: "$0.0123" in app.view.query_one(StatusBar).line().plain)
        await until(pilot, lambda: not isinstance(app.screen, UsageScreen))

        await pilot.press(*"two", "enter")
        await until(pilot, lambda: len(provider.accepted) == 2, timeout=30)
        await idle(pilot, app)
        screen = await _open_usage(pilot, app)
        await until(pilot, lambda: screen.usage is not None)
        total = _shown(screen, "#usage-total")
        assert "2,700 tokens in" in total and "in 2 steps" in total
        assert "cost $0.0123 + unknown" in total and "$0.0000" not in total  # the unpriced step is not free
        await pilot.press("escape")
        await until(pilot, lambda: "$0.0123 + unknown" in app.view.query_one(StatusBar).line().plain)


async def test_a_session_opened_from_its_row_still_says_its_cost_is_unknown(
    provider: FakeProvider, runtime: Runtime, workdir: Path
) -> None:
    """A long session opens from its row's totals (``seed_for``): the unpriced steps are counted there too."""
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "one", resume=False)
    provider.add(Turn(text="unpriced", usage={"input": 500, "output": 20}))
    assert await runtime.sessions.run(sid) is None
    record = await runtime.sessions.get(sid)
    transcript = Transcript()
    await seed_for(runtime.sessions, record, transcript, record.head_seq + 1)
    assert transcript.facts.input_tokens == 500 and transcript.facts.cost == 0.0
    assert transcript.facts.unpriced_steps == 1


async def test_slash_usage_shows_what_a_compaction_spent(provider: FakeProvider, app: AgentApp) -> None:
    """``/compact``'s summary call is counted: under its model, and as the ``compaction`` row per agent."""
    provider.add(
        Turn(text="first", usage={"input": 1200, "output": 80, "cost": 0.01}),
        Turn(text="## Objective\nShip it.\n## Next Move\nTest it.", usage={"input": 700, "output": 30, "cost": 0.002}),
    )
    async with app.run_test() as pilot:
        await pilot.press(*"one", "enter")
        await idle(pilot, app)
        await pilot.press(*"/compact", "enter")
        await until(pilot, lambda: len(provider.accepted) == 2, timeout=30)
        await idle(pilot, app)
        screen = await _open_usage(pilot, app)
        await until(pilot, lambda: screen.usage is not None and screen.usage.total.input_tokens == 1900)
        agents = _shown(screen, "#usage-agents")
        compaction = next(line for line in agents.splitlines() if "compaction" in line)
        assert "700" in compaction and "$0.0020" in compaction
        assert "cost $0.0120" in _shown(screen, "#usage-total")
