"""Pilot tests end to end: the app over the real Runtime (store, coordinator, runner,
tools) talking to the fake provider over HTTP through LiteLLM."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.api import Runtime, Settings, load_settings
from agent_tui.core.api import events as ev
from agent_tui.testing.fake_provider import FakeProvider, ScriptToolCall, Turn
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.services import TuiServices
from agent_tui.tui.transcript_blocks import ToolState
from agent_tui.tui.widgets.block_widgets import AssistantText, CompactionDivider, StepError, UserMessage
from agent_tui.tui.widgets.pending import PendingInputStrip
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.tool_block import ToolCallView

from .conftest import FAST, MODEL, until


@pytest.fixture
async def provider() -> AsyncIterator[FakeProvider]:
    async with FakeProvider() as fake:
        yield fake


@pytest.fixture
async def runtime(provider: FakeProvider, workdir: Path) -> AsyncIterator[Runtime]:
    cli = {"model": MODEL, "api_base": provider.openai_base, "api_key": "test-key"}

    def loader(location: Path) -> Settings:
        return load_settings(location, cli=cli)

    async with await Runtime.open(loader, permission_policy=None) as opened:
        yield opened


@pytest.fixture
def app(runtime: Runtime, workdir: Path, clock) -> AgentApp:
    services = TuiServices(sessions=runtime.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST)
    return AgentApp(services, start=StartMode(), watch_themes=False)


def texts(app: AgentApp) -> list[str]:
    return [w._written for w in app.query(AssistantText)]


def user_texts(app: AgentApp) -> list[str]:
    return [w.block.text for w in app.query(UserMessage)]


def request_text(request) -> str:
    return json.dumps(request.body["messages"])


async def send_and_hold(pilot, app: AgentApp, provider: FakeProvider, text: str) -> None:
    """Send ``text`` and wait until its request is held by the provider with the session running."""
    await pilot.press(*text, "enter")
    await provider.wait_for("held")
    await until(pilot, lambda: app.view.is_active)


async def idle(pilot, app: AgentApp) -> None:
    await until(pilot, lambda: app.view.session_id is not None and not app.view.is_active, timeout=30)


async def test_streaming_text_appears_incrementally(provider, app) -> None:
    answer = "Streaming arrives in many small pieces, one after another, until it is done."
    provider.add(Turn(text=answer, chunks=15, delay_ms=120))  # wide enough apart to be seen on a loaded machine
    async with app.run_test() as pilot:
        await pilot.press(*"stream please", "enter")
        await until(pilot, lambda: app.query(AssistantText), timeout=30)
        widget = app.query_one(AssistantText)
        seen = set()
        while widget.block.open or not widget._written == answer:
            if widget._written:
                seen.add(widget._written)
            await pilot.pause(0.01)
        assert len(seen) >= 3 and all(answer.startswith(s) for s in seen)
        await idle(pilot, app)
        assert user_texts(app) == ["stream please"] and texts(app) == [answer]


async def test_tool_block_runs_and_settles(provider, app, workdir) -> None:
    (workdir / "notes.txt").write_text("alpha\nbeta\n")
    provider.add(
        Turn(
            text="Reading it.", tool_calls=[ScriptToolCall(id="call_1", name="read", arguments={"path": "notes.txt"})]
        ),
        Turn(text="It has two lines."),
    )
    async with app.run_test() as pilot:
        await pilot.press(*"read notes", "enter")
        await idle(pilot, app)
        await until(pilot, lambda: app.query(ToolCallView) and app.query_one(ToolCallView).has_class("-ok"), timeout=10)
        tool = app.query_one(ToolCallView)
        assert tool.block.shown_state is ToolState.OK and "alpha" in tool.block.output
        assert str(tool.query_one(".tool-header").render()).startswith("✓ read  notes.txt")
        assert texts(app) == ["Reading it.", "It has two lines."]


async def test_steer_with_enter_lands_at_the_next_step(provider, app, workdir) -> None:
    (workdir / "a.txt").write_text("a")
    provider.add(
        Turn(
            hold=True,
            text="Looking.",
            tool_calls=[ScriptToolCall(id="call_1", name="read", arguments={"path": "a.txt"})],
        ),
        Turn(text="Steered answer."),
    )
    async with app.run_test() as pilot:
        await send_and_hold(pilot, app, provider, "start")
        await pilot.press(*"also check b", "enter")
        strip = app.query_one(PendingInputStrip)
        await until(pilot, lambda: [(p.text, p.delivery.value) for p in strip.items] == [("also check b", "steer")])
        provider.release()
        await idle(pilot, app)
        assert len(provider.accepted) == 2
        assert "also check b" not in request_text(provider.accepted[0])
        assert "also check b" in request_text(provider.accepted[1])  # promoted at the step boundary
        order = [type(w).__name__ for w in app.view.query_one("#transcript").query_children()]
        assert order == ["UserMessage", "AssistantText", "ToolCallView", "UserMessage", "AssistantText"]
        assert not strip.display


async def test_queue_with_tab_lands_after_the_turn(provider, app) -> None:
    provider.add(Turn(hold=True, text="First answer."), Turn(text="Answer to the queued one."))
    async with app.run_test() as pilot:
        await send_and_hold(pilot, app, provider, "first")
        await pilot.press(*"afterwards", "tab")
        strip = app.query_one(PendingInputStrip)
        await until(pilot, lambda: [(p.text, p.delivery.value) for p in strip.items] == [("afterwards", "queue")])
        provider.release()
        await idle(pilot, app)
        assert user_texts(app) == ["first", "afterwards"]
        assert texts(app) == ["First answer.", "Answer to the queued one."]
        assert "afterwards" not in request_text(provider.accepted[0])


async def test_esc_interrupts_and_keeps_pending_input(provider, app) -> None:
    provider.add(Turn(hold=True, text="never shown"))
    async with app.run_test() as pilot:
        await send_and_hold(pilot, app, provider, "long task")
        await pilot.press(*"later", "tab")
        strip = app.query_one(PendingInputStrip)
        await until(pilot, lambda: len(strip.items) == 1)
        await pilot.press("escape")
        await until(pilot, lambda: not app.view.is_active, timeout=10)
        await until(pilot, lambda: "idle" in app.view.query_one("#status").line().plain)
        assert [p.text for p in strip.items] == ["later"]
        sid = app.view.session_id
        log = [e.event async for e in app.services.sessions.log(sid) if isinstance(e, ev.StoredEvent)]
        assert any(isinstance(e, ev.ExecutionInterrupted) and e.reason == "user" for e in log)


async def approve_the_ask(pilot, app: AgentApp, clock, prompt: str, timeout: float = 30) -> tuple[str, str]:
    """Send ``prompt``, wait for the permission panel, answer "once"; returns the panel's title and body."""
    await pilot.press(*prompt, "enter")
    panel = app.query_one(PermissionPanel)
    await until(pilot, lambda: panel.display, timeout=timeout)
    shown = str(panel.query_one(".permission-title").render()), str(panel.query_one(".permission-body").render())
    clock.advance(1)
    await pilot.press("y")
    await idle(pilot, app)
    return shown


async def test_permission_panel_answers_a_real_ask(provider, app, clock, workdir) -> None:
    provider.add(
        Turn(tool_calls=[ScriptToolCall(id="call_1", name="bash", arguments={"command": "echo approved-run"})]),
        Turn(text="Ran it."),
    )
    async with app.run_test() as pilot:
        _, body = await approve_the_ask(pilot, app, clock, "run echo")
        assert "echo approved-run" in body
        tool = app.query_one(ToolCallView)
        assert tool.block.shown_state is ToolState.OK and "approved-run" in tool.block.output
        assert texts(app) == ["Ran it."]


async def test_compaction_divider_lifecycle_with_the_model(provider, app) -> None:
    summary = "## Objective\nTest.\n## Important Details\n(none)\n## Work State\n(none)\n## Next Move\n(none)"
    provider.add(Turn(text="First answer."), Turn(text=summary, chunks=8, delay_ms=30, hold=True))
    async with app.run_test() as pilot:
        await pilot.press(*"hello", "enter")
        await idle(pilot, app)
        await pilot.press(*"/compact", "enter")
        await until(pilot, lambda: app.query(CompactionDivider), timeout=10)
        divider = app.query_one(CompactionDivider)
        title = lambda: str(divider.query_one(".divider-title").render())  # noqa: E731
        await provider.wait_for("held")
        await until(pilot, lambda: "compacting context" in title())
        provider.release()
        await until(pilot, lambda: "compacted" in title() or "failed" in title(), timeout=30)
        assert "context compacted" in title(), title()
        assert "## Objective" in divider.block.summary


async def test_a_provider_error_after_retries_is_shown_once_with_its_status_and_what_to_do(
    provider, workdir: Path, clock
) -> None:
    from agent_tui.testing.fake_provider.script import ScriptError

    cli = {"model": MODEL, "api_base": provider.openai_base, "api_key": "test-key"}
    cli["retry"] = {"max_retries": 1, "base_delay_ms": 10}  # type: ignore[assignment]
    for _ in range(2):
        provider.add(Turn(error=ScriptError(status=503, message="overloaded right now")))
    provider.add(Turn(text="back again"))
    async with await Runtime.open(lambda location: load_settings(location, cli=cli), permission_policy=None) as rt:
        services = TuiServices(sessions=rt.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST)
        app = AgentApp(services, start=StartMode(), watch_themes=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press(*"hello", "enter")
            await idle(pilot, app)
            errors = [str(w.render()) for w in app.query(StepError)]
            assert len(errors) == 1, errors  # not once for the step and again for the turn
            assert errors[0].startswith("✗ internal (HTTP 503): overloaded right now")
            assert "↑ then Enter sends your prompt again" in errors[0]
            prompt = app.query_one(PromptInput)
            prompt.focus()
            await pilot.press("up")
            await until(pilot, lambda: prompt.text == "hello")
            await pilot.press("enter")
            await until(pilot, lambda: "back again" in " ".join(texts(app)), timeout=30)
    assert len(provider.requests) == 3
