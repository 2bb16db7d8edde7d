"""Ctrl+C stops a running agent (as Esc does); only two presses on an idle, empty prompt quit (issue 32)."""

from __future__ import annotations

from agent_tui.core.api import events as ev
from agent_tui.tui.screens.help import HelpScreen
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.vocab.kinds import InterruptReason

from .test_app import SID, opened, status, until


async def test_ctrl_c_interrupts_a_running_session_and_keeps_the_draft(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        await pilot.press(*"next idea", "ctrl+c")
        await until(pilot, lambda: ("interrupt", SID, "user") in fake_sessions.calls)
        await until(pilot, lambda: "idle" in status(app))
        assert app.is_running and app.query_one(PromptInput).text == "next idea"
        await pilot.press("ctrl+c")  # idle now: the draft is cleared, the quit is not armed
        assert app.query_one(PromptInput).text == "" and app.is_running
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)
    assert ("interrupt", SID, "shutdown") not in fake_sessions.calls  # it had stopped already


async def test_two_quick_presses_on_a_running_session_do_not_quit(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        await pilot.press("ctrl+c", "ctrl+c")
        await until(pilot, lambda: "idle" in status(app))
        assert app.is_running  # the first stopped the agent, the second armed the quit
        assert any(str(n.message) == "press Ctrl+C again to quit" for n in app._notifications)


async def test_a_session_slow_to_stop_can_still_be_left_with_two_presses(fake_sessions, make_app) -> None:
    async def slow_interrupt(session_id: str, reason: str = "user") -> None:
        fake_sessions.calls.append(("interrupt", session_id, reason))  # the runner takes its time to stop

    fake_sessions.interrupt = slow_interrupt  # type: ignore[method-assign]
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        await pilot.press("ctrl+c")
        await until(pilot, lambda: "interrupting…" in status(app))
        await pilot.press("ctrl+c")
        assert app.is_running and fake_sessions.calls.count(("interrupt", SID, "user")) == 1
        fake_sessions.running.discard(SID)  # the shutdown's wait ends at once
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)


async def test_ctrl_c_over_the_help_screen_stops_the_session_behind_it(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("ctrl+c")
        await until(pilot, lambda: ("interrupt", SID, "user") in fake_sessions.calls)
        fake_sessions.publish(SID, ev.ExecutionInterrupted(reason=InterruptReason.USER))
        assert app.is_running


async def test_the_help_and_the_guide_say_ctrl_c_stops_the_agent(fake_sessions, make_app) -> None:
    from pathlib import Path

    from agent_tui.tui.app import AgentApp

    binding = next(b for b in AgentApp.BINDINGS if b.key == "ctrl+c")
    assert "interrupt the running agent" in (binding.tooltip or "")
    guide = (Path(__file__).resolve().parents[2] / "docs" / "user-guide.md").read_text()
    row = next(line for line in guide.splitlines() if line.startswith("| Ctrl+C |"))
    assert "interrupt" in row and "idle" in row
