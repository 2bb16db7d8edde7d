"""Pilot: ``!command`` runs through the bash tool (permission ask, live output, recorded) without the
model, and the model reads it on the next turn (real runtime, fake provider over HTTP)."""

from __future__ import annotations

import json

from agent_tui.testing.fake_provider import Turn
from agent_tui.tui.transcript_blocks import ToolState
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.tool_block import ToolCallView

from .test_app import until
from .test_app_provider import app, idle, provider, runtime, user_texts  # noqa: F401 - fixtures

__all__ = ["app", "provider", "runtime"]


async def test_bang_runs_the_users_own_command_without_an_ask_and_the_model_sees_it_next(
    app, provider, workdir, clock
) -> None:
    (workdir / "word.txt").write_text("quince\n")
    provider.add(Turn(text="The word was quince."))
    async with app.run_test() as pilot:
        await pilot.press(*"!cat word.txt", "enter")
        panel = app.query_one(PermissionPanel)
        await until(
            pilot,
            lambda: app.query(ToolCallView) and app.query_one(ToolCallView).block.state is ToolState.OK,
            timeout=30,
        )
        tool = app.query_one(ToolCallView).block
        assert tool.input == {"command": "cat word.txt"} and "quince" in tool.output
        assert str(app.query_one(ToolCallView).query_one(".tool-header").render()).startswith("✓ !  cat word.txt")
        assert not panel.display  # it is the user's own command: never "the agent wants to run a command"
        await idle(pilot, app)
        assert provider.requests == []
        await pilot.press(*"what was the word?", "enter")
        await until(pilot, lambda: len(provider.accepted) == 1, timeout=30)
        await idle(pilot, app)
        sent = json.dumps(provider.accepted[0].body["messages"])
        assert "$ cat word.txt" in sent and "quince" in sent


async def test_backslash_bang_sends_a_literal_bang(app, provider) -> None:
    provider.add(Turn(text="ok"))
    async with app.run_test() as pilot:
        await pilot.press(*"\\!important: hi", "enter")
        await idle(pilot, app)
        assert user_texts(app) == ["!important: hi"]
        assert not app.query(ToolCallView)
