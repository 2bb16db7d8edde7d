"""MCP prompts as slash commands and MCP questions (elicitation) in the TUI: a real runtime, the fake
provider (it records each request) and the asking server (``tests/fakes/mcp_asking.py``) as a process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox, Input, Select

from agent_tui.core.api import Runtime
from agent_tui.testing.fake_provider import FakeProvider, ScriptToolCall, Turn
from agent_tui.tui.app import AgentApp
from agent_tui.tui.screens.elicitation import ElicitationScreen
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.screens.mcp_prompt import McpPromptScreen
from agent_tui.tui.widgets.completion import CompletionList

from .conftest import asked_in, logged, tool_result, until
from .test_app_provider import idle

ASKING = Path(__file__).resolve().parents[1] / "fakes" / "mcp_asking.py"


@pytest.fixture
def mcp_server(legacy: bool) -> tuple[str, dict[str, Any]]:
    return "asking", {
        "command": [sys.executable, str(ASKING), *(["legacy"] if legacy else [])],
        "startup_timeout_s": 60,
    }


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
        await until(pilot, lambda: isinstance(app.screen, McpPromptScreen) and app.screen.focused is not None)
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


async def test_the_ask_completes_an_argument_from_the_server(app: AgentApp, provider) -> None:
    provider.add(Turn(text="Reviewed."))
    async with app.run_test() as pilot:
        await until(pilot, lambda: _prompts_ready(app), timeout=60)
        await pilot.press(*"/mcp__asking__review", "enter")
        await until(pilot, lambda: isinstance(app.screen, McpPromptScreen) and app.screen.focused is not None)
        await pilot.press(*"src/a")
        field = app.screen.query_one(Input)
        await until(pilot, lambda: field._suggestion == "src/app.py", timeout=10)
        await pilot.press("right", "enter")
        await idle(pilot, app)
        assert _last_user_text(provider.accepted[0]) == "Please review src/app.py, looking for bugs."


async def _asked(pilot, app: AgentApp, provider: FakeProvider, tool: str = "book") -> ElicitationScreen:
    call = ScriptToolCall(id="call_1", name=f"mcp__asking__{tool}", arguments={})
    return await asked_in(pilot, app, provider, call, ElicitationScreen, Turn(text="Done."))


async def test_a_form_question_is_a_dialog_whose_checked_values_reach_the_server(
    app: AgentApp, provider: FakeProvider, runtime: Runtime
) -> None:
    async with app.run_test() as pilot:
        screen = await _asked(pilot, app, provider)
        assert screen.request.message == "Book a table: which day, for how many?"
        assert [(f.name, f.kind) for f in screen.fields] == [
            ("date", "string"),
            ("guests", "integer"),
            ("vegan", "boolean"),
            ("seat", "enum"),
        ]
        await pilot.press(*"friday", "ctrl+s")  # no guests yet: the dialog stays and says why
        await until(pilot, lambda: screen.problems == ["Guests is required"])
        assert app.screen is screen
        screen.query_one("#field-guests", Input).value = "0"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen.problems == ["Guests: at least 1"])
        screen.query_one("#field-guests", Input).value = "3"
        screen.query_one("#field-vegan", Checkbox).value = True
        screen.query_one("#field-seat", Select).value = "aisle"
        await pilot.press("ctrl+s")
        await idle(pilot, app)
        assert tool_result(provider, 1) == "booked friday for 3, vegan=True, seat=aisle"
        (asked, answered) = await logged(runtime, app, "session.elicitation.")
        assert asked[0] == "session.elicitation.asked.1" and asked[1]["call_id"] == "call_1"
        assert answered == (
            "session.elicitation.answered.1",
            {
                "request_id": asked[1]["request_id"],
                "action": "accept",
                "content": {"date": "friday", "guests": 3, "vegan": True, "seat": "aisle"},
                "reason": None,
            },
        )


@pytest.mark.parametrize(("key", "said"), [("ctrl+d", "booking declined"), ("escape", "booking cancelled")])
async def test_a_declined_or_cancelled_question_tells_the_server_so(
    app: AgentApp, provider: FakeProvider, runtime: Runtime, key: str, said: str
) -> None:
    async with app.run_test() as pilot:
        await _asked(pilot, app, provider)
        await pilot.press(key)
        await idle(pilot, app)
        assert tool_result(provider, 1) == said
        (_, answered) = await logged(runtime, app, "session.elicitation.")
        assert answered[1]["action"] == ("decline" if key == "ctrl+d" else "cancel")


async def test_a_url_question_shows_the_link_and_o_opens_it(
    app: AgentApp, provider: FakeProvider, legacy: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not legacy:
        pytest.skip("the SDK's URL question is a 2025-era request (the server's elicit_url)")
    opened: list[str] = []
    monkeypatch.setattr(app, "open_url", lambda url, **_: opened.append(url))
    async with app.run_test() as pilot:
        screen = await _asked(pilot, app, provider, "visit")
        assert screen.request.url == "https://example.com/login"
        await pilot.press("o")
        await idle(pilot, app)
        assert opened == ["https://example.com/login"]
        assert tool_result(provider, 1) == "visit accept"


async def test_an_interrupted_call_closes_its_question_and_the_log_says_why(
    app: AgentApp, provider: FakeProvider, runtime: Runtime
) -> None:
    async with app.run_test() as pilot:
        await _asked(pilot, app, provider)
        await runtime.sessions.interrupt(app.view.session_id)
        await until(pilot, lambda: not isinstance(app.screen, ElicitationScreen), timeout=30)
        await idle(pilot, app)
        (_, answered) = await logged(runtime, app, "session.elicitation.")
        assert (answered[1]["action"], answered[1]["reason"]) == ("cancel", "the tool call ended before an answer")
        assert runtime.sessions.asks.open_elicitations() == []
