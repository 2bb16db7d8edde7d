"""MCP prompts as slash commands and MCP questions (elicitation) in the TUI: a real runtime, the fake
provider (it records each request) and the asking server (``tests/fakes/mcp_asking.py``) as a process."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.widgets import Input

from agent_tui.core.api import Runtime, Settings, load_settings
from agent_tui.testing.fake_provider import FakeProvider, Turn
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.screens.mcp_prompt import McpPromptScreen
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.completion import CompletionList

from .conftest import FAST
from .test_app import until
from .test_app_provider import MODEL, idle

ASKING = Path(__file__).resolve().parents[1] / "fakes" / "mcp_asking.py"


@pytest.fixture
async def provider() -> AsyncIterator[FakeProvider]:
    async with FakeProvider() as fake:
        yield fake


@pytest.fixture(params=[False, True], ids=["2026", "2025-handshake"])
def legacy(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
async def runtime(provider: FakeProvider, workdir: Path, legacy: bool) -> AsyncIterator[Runtime]:
    asking = {"command": [sys.executable, str(ASKING), *(["legacy"] if legacy else [])], "startup_timeout_s": 60}
    cli = {
        "model": MODEL,
        "api_base": provider.openai_base,
        "api_key": "test-key",
        "mcp": {"servers": {"asking": asking}},
        "permission": [{"action": "mcp", "pattern": "*", "effect": "allow"}],
    }

    def loader(location: Path) -> Settings:
        return load_settings(location, cli=cli)

    async with await Runtime.open(loader, permission_policy=None) as opened:
        await opened.warm_mcp(workdir)
        yield opened


@pytest.fixture
def app(runtime: Runtime, workdir: Path, clock) -> AgentApp:
    services = TuiServices(
        sessions=runtime.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST, mcp=runtime
    )
    return AgentApp(services, start=StartMode(), watch_themes=False)


def _last_user_text(request) -> str:
    content = [m for m in request.body["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else content[0]["text"]


def _prompts_ready(app: AgentApp) -> bool:
    return any(s.name == "mcp__asking__review" for s in app.services.command_specs())


async def test_a_server_prompt_is_a_command_whose_expansion_is_admitted(app: AgentApp, provider) -> None:
    provider.add(Turn(text="Reviewed."))
    async with app.run_test() as pilot:
        await until(pilot, lambda: _prompts_ready(app), timeout=60)
        await pilot.press(*"/mcp__as")
        completion = app.query_one(CompletionList)
        await until(
            pilot,
            lambda: (
                [(c.label, c.help) for c in completion.choices]
                == [("/mcp__asking__review path [focus]", "(asking) Review a file for one kind of problem.")]
            ),
        )
        await pilot.press("tab", *"src/app.py focus=speed", "enter")
        await idle(pilot, app)
        assert _last_user_text(provider.accepted[0]) == "Please review src/app.py, looking for speed."

        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert any(usage == "/mcp__asking__review path [focus]" for usage, _ in app.screen.commands)


async def test_a_missing_argument_is_asked_for_with_the_servers_completion(app: AgentApp, provider) -> None:
    provider.add(Turn(text="Reviewed."))
    async with app.run_test() as pilot:
        await until(pilot, lambda: _prompts_ready(app), timeout=60)
        await pilot.press(*"/mcp__asking__review focus=st", "enter")
        await until(pilot, lambda: isinstance(app.screen, McpPromptScreen))
        assert [a.name for a in app.screen.arguments] == ["path"]  # focus was given
        await pilot.press(*"lib.py", "enter")
        await idle(pilot, app)
        assert _last_user_text(provider.accepted[0]) == "Please review lib.py, looking for st."
        assert json.dumps(provider.accepted[0].body).count("Please review") == 1

        await pilot.press(*"/mcp__asking__review", "enter")  # nothing given: asked, then dropped with Esc
        await until(pilot, lambda: isinstance(app.screen, McpPromptScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, McpPromptScreen))
        assert len(provider.accepted) == 1


async def test_the_ask_completes_an_argument_from_the_server(app: AgentApp, runtime: Runtime, workdir: Path) -> None:
    async with app.run_test() as pilot:
        await until(pilot, lambda: _prompts_ready(app), timeout=60)
        assert await runtime.mcp_complete(workdir, "asking", "review", "focus", "sp") == ["speed"]
        app.screen.app.push_screen(
            McpPromptScreen(
                "/x",
                [type("A", (), {"name": "focus", "description": ""})()],
                lambda a, v: runtime.mcp_complete(workdir, "asking", "review", a, v),
            )
        )
        await until(pilot, lambda: isinstance(app.screen, McpPromptScreen))
        await pilot.press(*"sp")
        field = app.screen.query_one(Input)
        await until(pilot, lambda: field._suggestion == "speed", timeout=10)
