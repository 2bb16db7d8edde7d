"""Pilot: ``@server:`` completes from an MCP server's ``resources/list`` (and templates), and sending
``@notes:notes://readme`` sends the resource's text with a 🔗 chip (real runtime, a real SDK server,
fake provider over HTTP)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.api import Runtime, Settings, load_settings
from agent_tui.testing.fake_provider import FakeProvider, Turn
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.block_widgets import UserMessage
from agent_tui.tui.widgets.completion import CompletionList
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.vocab.kinds import McpState

from .conftest import FAST
from .test_app import until
from .test_app_provider import MODEL, idle, provider  # noqa: F401 - fixtures

SERVER = Path(__file__).resolve().parents[1] / "fakes" / "mcp_resources.py"


@pytest.fixture
async def runtime(provider: FakeProvider, workdir: Path) -> AsyncIterator[Runtime]:  # noqa: F811 - this file's own
    notes = {"command": [sys.executable, str(SERVER)], "startup_timeout_s": 60}
    cli = {
        "model": MODEL,
        "api_base": provider.openai_base,
        "api_key": "test-key",
        "mcp": {"servers": {"notes": notes}},
    }

    def loader(location: Path) -> Settings:
        return load_settings(location, cli=cli)

    async with await Runtime.open(loader, permission_policy=None) as opened:
        yield opened


@pytest.fixture
async def app(runtime: Runtime, workdir: Path, clock) -> AgentApp:
    services = TuiServices(sessions=runtime.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST)
    services.settings = await runtime.settings_for(str(workdir))  # as the bootstrap sets them
    services.mcp = runtime
    return AgentApp(services, start=StartMode(), watch_themes=False)


def listed(app) -> list[str]:
    completion = app.query_one(CompletionList)
    return [c.label for c in completion.choices] if completion.display else []


async def test_at_server_colon_lists_its_resources_and_sending_one_sends_its_text(
    app, provider, runtime, workdir
) -> None:
    await runtime.warm_mcp(workdir)
    provider.add(Turn(text="Tuesday."))
    async with app.run_test() as pilot:
        await until(
            pilot,
            lambda: any(s.state is McpState.READY for s in runtime.mcp_status() if Path(s.location) == workdir),
            timeout=60,
        )
        await pilot.press(*"@no")
        await until(pilot, lambda: "notes:" in listed(app))
        await pilot.press("tab")
        prompt = app.query_one(PromptInput)
        assert prompt.text == "@notes:"
        await until(pilot, lambda: "notes:notes://readme" in listed(app))
        assert listed(app) == ["notes:notes://readme", "notes:notes://logo", "notes:notes://day/{n}"]
        assert app.query_one(CompletionList).choices[2].help.startswith("day · template")
        await pilot.press(*"day")
        await until(pilot, lambda: listed(app) == ["notes:notes://day/{n}"])
        await pilot.press("tab")
        assert prompt.text == "@notes:notes://day/"  # a template: its variables are typed
        prompt.load_text("@notes:read")
        prompt.move_cursor(prompt.document.end)
        await until(pilot, lambda: listed(app) == ["notes:notes://readme"])
        await pilot.press("tab")
        assert prompt.text == "@notes:notes://readme "
        await pilot.press(*"when is the launch?", "enter")
        await idle(pilot, app)
        content = [m for m in provider.accepted[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert content[0]["text"] == "@notes:notes://readme when is the launch?"
        assert content[1]["text"] == '<file path="notes:notes://readme">\n# Notes\nThe launch is on Tuesday.\n</file>'
        assert app.query_one(UserMessage).block.attachments == "🔗 notes:notes://readme"
