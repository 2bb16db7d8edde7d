"""What Enter does in the prompt, said and done: a ``\\`` just before Enter is a line break (where a
terminal cannot send Shift+Enter), and the empty prompt's placeholder says "steer" while the agent runs."""

from __future__ import annotations

from agent_tui.core.api import events as ev
from agent_tui.tui.widgets.prompt import IDLE_PLACEHOLDER, RUNNING_PLACEHOLDER, PromptInput
from agent_tui.vocab.kinds import InterruptReason
from tests.fakes.sessions import FakeSessions

from .test_app import SID, opened, until


async def test_backslash_enter_is_a_new_line_and_enter_then_sends(fake_sessions: FakeSessions, make_app) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press(*"first line\\", "enter")
        assert prompt.text == "first line\n" and not [c for c in fake_sessions.calls if c[0] == "prompt"]
        await pilot.press(*"second", "enter")
        await until(pilot, lambda: any(c[0] == "prompt" for c in fake_sessions.calls))
        assert ("prompt", SID, "first line\nsecond", "steer") in fake_sessions.calls


async def test_the_placeholder_says_steer_while_the_agent_runs(fake_sessions: FakeSessions, make_app) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        prompt = app.query_one(PromptInput)
        assert prompt.placeholder == IDLE_PLACEHOLDER
        fake_sessions.running.add(SID)
        fake_sessions.publish(SID, ev.ExecutionStarted())
        await until(pilot, lambda: prompt.placeholder == RUNNING_PLACEHOLDER)
        assert "Enter steer" in RUNNING_PLACEHOLDER
        fake_sessions.running.discard(SID)
        fake_sessions.publish(SID, ev.ExecutionInterrupted(reason=InterruptReason.USER))
        await until(pilot, lambda: prompt.placeholder == IDLE_PLACEHOLDER)
