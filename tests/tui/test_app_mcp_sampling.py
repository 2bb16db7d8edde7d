"""MCP sampling in the TUI: a real runtime, the fake provider (it records each request) and the sampling
server (``tests/fakes/mcp_sampling.py``, configured with ``sampling = true``) as a process. The approval
panel shows the request with the server's words made inert; approving runs it on the session's model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from agent_tui.core.api import Runtime
from agent_tui.testing.fake_provider import FakeProvider, ScriptToolCall, ScriptUsage, Turn
from agent_tui.tui.app import AgentApp
from agent_tui.tui.screens.sampling import SamplingScreen

from .conftest import MODEL, asked_in, logged, tool_result
from .test_app_provider import idle

SAMPLING = Path(__file__).resolve().parents[1] / "fakes" / "mcp_sampling.py"
QUESTION = "Capital of \x1b[31mFrance\x1b[0m?\u202e"
"""A question with a colour escape and a bidi override: neither may reach the terminal."""


@pytest.fixture
def mcp_server(legacy: bool) -> tuple[str, dict[str, Any]]:
    command = [sys.executable, str(SAMPLING), *(["legacy"] if legacy else [])]
    return "sampler", {"command": command, "startup_timeout_s": 60, "sampling": True}


async def _asked(pilot, app: AgentApp, provider: FakeProvider, *then: Turn) -> SamplingScreen:
    call = ScriptToolCall(id="call_1", name="mcp__sampler__ask_model", arguments={"question": QUESTION})
    return await asked_in(pilot, app, provider, call, SamplingScreen, *then)


async def test_the_panel_shows_the_request_inert_and_y_runs_it_on_the_sessions_model(
    app: AgentApp, provider: FakeProvider, runtime: Runtime
) -> None:
    async with app.run_test() as pilot:
        screen = await _asked(
            pilot, app, provider, Turn(text="Paris", usage=ScriptUsage(input=21, output=3)), Turn(text="Done.")
        )
        shown = "\n".join(str(s.render()) for s in screen.query(Static) if (s.id or "").startswith("sampling-"))
        assert "MCP server sampler asks to use the model" in shown
        assert "System: Answer in one word." in shown
        assert "User: [image: image/png]" in shown
        assert "At most 64 tokens · temperature 0.25 · stops at 'END'" in shown
        assert "France" in shown and "\x1b" not in shown and "\u202e" not in shown
        await pilot.press("y")
        await idle(pilot, app)
        sampled = provider.accepted[1].body
        assert sampled["messages"][0]["role"] == "system"
        assert sampled["messages"][0]["content"][0]["text"] == "Answer in one word."
        assert sampled["messages"][-1]["content"][-1]["text"] == QUESTION  # the model gets the server's own words
        assert (sampled["max_tokens"], sampled["temperature"], sampled["stop"]) == (64, 0.25, ["END"])
        assert "tools" not in sampled
        assert tool_result(provider, 2) == f"{MODEL} said 'Paris' (endTurn)"
        (asked, answered) = await logged(runtime, app, "session.sampling.")
        assert asked[0] == "session.sampling.asked.1" and asked[1]["call_id"] == "call_1"
        assert asked[1]["model_preferences"] == {"hints": [{"name": "small-model"}], "speedPriority": 0.9}
        assert answered[1]["action"] == "approve" and answered[1]["text"] == "Paris"
        assert answered[1]["usage"]["input_tokens"] == 21 and answered[1]["usage"]["output_tokens"] == 3
        usage = await runtime.sessions.usage(app.view.session_id)
        by_agent = {row.key: (row.input_tokens, row.output_tokens) for row in usage.by_agent}
        assert by_agent["mcp-sampling"] == (21, 3)


@pytest.mark.parametrize("key", ["n", "escape"])
async def test_a_declined_request_is_an_error_for_the_server_and_the_model_is_not_asked(
    app: AgentApp, provider: FakeProvider, runtime: Runtime, key: str
) -> None:
    async with app.run_test(notifications=True) as pilot:
        await _asked(pilot, app, provider, Turn(text="Declined, then."))
        await pilot.press(key)
        await idle(pilot, app)
        assert len(provider.accepted) == 2  # the tool call's step and the next: no sampling request
        assert "agent-tui declined to sample: the user declined" in tool_result(provider, 1)
        assert any("MCP server sampler asked to sample; declined" in n.message for n in app._notifications)
        (_, answered) = await logged(runtime, app, "session.sampling.")
        assert (answered[1]["action"], answered[1]["reason"], answered[1]["usage"]) == (
            "decline",
            "the user declined",
            None,
        )
