"""The app tells ``keys_first`` of every key, queued behind the key for the widget that takes it."""

from __future__ import annotations

from agent_tui.tui.widgets.prompt import PromptInput

from .test_app import opened, until


async def test_a_typed_key_holds_output_back_until_the_frame_that_shows_it(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        prompt = app.query_one(PromptInput)
        prompt.focus()
        keys = app.services.keys_first
        targets: list[object] = []
        real = keys.delivered
        keys.delivered = lambda target: (targets.append(target), real(target))[1]  # type: ignore[method-assign]
        await pilot.press("x")
        assert targets == [prompt]
        await until(pilot, lambda: not keys.waiting)  # its frame came: output goes on
        assert prompt.text.endswith("x")
