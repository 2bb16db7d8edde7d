"""A ``task`` block shows its running subagent's progress (action, tool calls, tokens), and Enter
on it opens the child's transcript, following it live; Esc goes back (issue 25, the TUI side)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.api import Runtime
from agent_tui.core.api import events as ev
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.child_progress import current_action, progress_of, subagent_line
from agent_tui.tui.screens.child_session import ChildSessionScreen
from agent_tui.tui.services import TuiServices
from agent_tui.tui.transcript.model import fold
from agent_tui.tui.transcript_blocks import SubagentProgress, ToolBlock
from agent_tui.tui.widgets.block_widgets import AssistantText
from agent_tui.tui.widgets.session_view import SessionView
from agent_tui.tui.widgets.tool_block import ToolCallView
from agent_tui.vocab.usage import Usage
from tests.fakes.logs import LogBuilder
from tests.routed_fake import Routes, task_call

from .conftest import FAST
from .test_app import until
from .test_session_feed import fake_sessions, opened  # noqa: F401 - fixtures
from .test_session_feed import until as feed_until
from .test_snapshots import parent_and_child

MODEL = "openai/fake-model"


def stored(*events: ev.DurableEvent) -> list[ev.StoredEvent]:
    return [ev.StoredEvent(session_id="s", seq=n, type=e.TYPE, created=n, event=e) for n, e in enumerate(events, 1)]


def test_progress_sums_up_the_childs_transcript() -> None:
    raw = (
        ev.SessionCreated(location="/p", project_root="/p"),
        ev.StepStarted(assistant_message_id="m1", agent="general", model="x"),
        ev.ToolCalled(assistant_message_id="m1", call_id="c1", name="read", input={"path": "a.py"}),
        ev.ToolSucceeded(assistant_message_id="m1", call_id="c1", output={"text": "x"}),
        ev.StepEnded(assistant_message_id="m1", finish="tool_calls", usage=Usage(input_tokens=100, output_tokens=20)),
        ev.StepStarted(assistant_message_id="m2", agent="general", model="x"),
        ev.ToolCalled(assistant_message_id="m2", call_id="c2", name="bash", input={"command": "make test"}),
    )
    transcript = fold(stored(*raw), is_active=True)
    assert progress_of(transcript) == SubagentProgress(action="bash  make test", tools=2, tokens=120)
    settled = ev.ToolSucceeded(assistant_message_id="m2", call_id="c2", output={"text": "ok"})
    transcript.apply(stored(*raw, settled)[-1])
    assert current_action(transcript) == "waiting for the model"
    reasoning = ev.ReasoningStarted(assistant_message_id="m2", ordinal=1)
    transcript.apply(stored(*raw, settled, reasoning)[-1])
    assert current_action(transcript) == "thinking"
    assert current_action(fold([])) == "starting"


def test_the_block_line_names_the_agent_and_the_figures() -> None:
    progress = SubagentProgress(action="bash  ls", tools=1, tokens=1204)
    assert subagent_line("explore", progress, running=True) == "↳ explore · bash  ls · 1 tool call · 1,204 tokens"
    assert subagent_line("explore", progress, running=False) == "↳ explore · 1 tool call · 1,204 tokens"


# ---------------------------------------------------------------------- end to end


@pytest.fixture
def fake(routed_fake: FakeProvider) -> FakeProvider:
    return routed_fake


@pytest.fixture
async def runtime(open_runtime: Any) -> AsyncIterator[Runtime]:
    async with await open_runtime(policy="allow") as opened:
        yield opened


@pytest.fixture
def app(runtime: Runtime, workdir: Path, clock) -> AgentApp:
    services = TuiServices(sessions=runtime.sessions, location=str(workdir), model=MODEL, clock=clock, timings=FAST)
    return AgentApp(services, start=StartMode(), watch_themes=False)


async def polled_until(pilot, app: AgentApp, condition: Callable[[], object], timeout: float = 30.0) -> None:
    """Run the view's periodic check (children, their asks) without waiting for its timer, until ``condition``."""
    for _ in range(int(timeout / 0.02)):
        await app.view.feed.poll()
        if condition():
            return
        await pilot.pause(0.02)
    assert condition(), "condition not reached"


def task_block(app: AgentApp) -> ToolCallView:
    return next(w for w in app.view.query(ToolCallView) if w.block.name == "task")


async def test_the_task_block_follows_its_child_and_opens_its_transcript(
    app: AgentApp, routes: Routes, fake: FakeProvider
) -> None:
    routes.add("PARENT", {"tool_calls": [task_call("call_t", "CHILD: count the files")]}, {"text": "all done"})
    routes.add(
        "CHILD",
        {"tool_calls": [{"id": "c1", "name": "echo", "arguments": {"text": "three files"}}]},
        {"text": "There are three files.", "hold": True},
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"PARENT: delegate", "enter")
        await fake.wait_for("held", timeout=30)  # the child's second step waits for the model
        await until(pilot, lambda: any(w.block.name == "task" for w in app.view.query(ToolCallView)), timeout=30)
        block = task_block(app)
        await polled_until(pilot, app, lambda: block.block.subagent is not None and block.block.subagent.tools == 1)
        progress = block.block.subagent
        assert progress is not None and progress.tokens > 0
        await until(pilot, lambda: "1 tool call" in str(block.query_one(".tool-subagent").render()))
        line = str(block.query_one(".tool-subagent").render())
        assert line.startswith("↳ general · ") and f"{progress.tokens:,} tokens" in line
        assert "general: look something up" in str(block.query_one(".tool-header").render())

        await pilot.click(block)  # a click focuses a task block (the header under it is not focusable)
        await until(pilot, lambda: block.has_focus)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChildSessionScreen))
        screen = app.screen
        assert isinstance(screen, ChildSessionScreen) and screen.session_id == block.block.child_session
        await until(pilot, lambda: [w.block.name for w in screen.query(ToolCallView)] == ["echo"])
        assert "general subagent · look something up · running" in screen.title_line

        fake.release()  # the child answers: its transcript follows it live
        await until(pilot, lambda: any("three files" in w._written for w in screen.query(AssistantText)), timeout=30)
        await until(pilot, lambda: " · done · " in screen.title_line, timeout=30)

        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen.query_one(SessionView), SessionView))
        assert not isinstance(app.screen, ChildSessionScreen)
        await until(pilot, lambda: any("all done" in w._written for w in app.view.query(AssistantText)), timeout=30)
        settled = task_block(app).block
        assert isinstance(settled, ToolBlock) and settled.child_session == screen.session_id


async def test_alt_s_reaches_the_task_blocks_from_the_keyboard_and_esc_leaves_one(
    app: AgentApp, routes: Routes, fake: FakeProvider
) -> None:
    """No mouse: Alt+S focuses the newest task block, again the one before (around to the newest);
    Enter opens its subagent; Esc on a focused block goes back to the prompt, not an interrupt."""
    first, second = task_call("call_1", "CHILD: first"), task_call("call_2", "CHILD: second")
    routes.add("PARENT", {"tool_calls": [first]}, {"tool_calls": [second]}, {"text": "all done"})
    routes.add("CHILD", {"text": "one"}, {"text": "two"})
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("alt+s")
        await until(pilot, lambda: app.focused is not None and app.focused.__class__.__name__ == "PromptInput")
        await pilot.press(*"PARENT: delegate twice", "enter")
        await until(pilot, lambda: any("all done" in w._written for w in app.view.query(AssistantText)), timeout=30)
        blocks = [w for w in app.view.query(ToolCallView) if w.block.name == "task"]
        assert [b.block.call_id for b in blocks] == ["call_1", "call_2"]

        await pilot.press("alt+s")
        await until(pilot, lambda: blocks[1].has_focus)
        await pilot.press("alt+s")
        await until(pilot, lambda: blocks[0].has_focus)
        await pilot.press("alt+s")
        await until(pilot, lambda: blocks[1].has_focus)

        await pilot.press("escape")
        await until(pilot, lambda: app.focused is not None and app.focused.__class__.__name__ == "PromptInput")
        assert not isinstance(app.screen, ChildSessionScreen)

        await pilot.press("alt+s", "alt+s", "enter")
        await until(pilot, lambda: isinstance(app.screen, ChildSessionScreen))
        screen = app.screen
        assert isinstance(screen, ChildSessionScreen) and screen.session_id == blocks[0].block.child_session
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ChildSessionScreen))


async def test_the_feed_follows_its_own_children_only_and_lets_go_of_the_finished(fake_sessions, opened) -> None:
    """Without Textual: the parent's feed follows ``ses_child`` onto its block; a grandchild is left to
    its own parent; a child that stops running is let go, its last figures staying on the block."""
    parent_and_child(fake_sessions)
    grandchild = LogBuilder(session_id="ses_grand")
    link = ev.SpawnedBy(session_id="ses_child", assistant_message_id="msg_c2", call_id="c9")
    grandchild.add(ev.SessionCreated(location="/tmp/project", project_root="/tmp/project", spawned_by=link))
    fake_sessions.add_log(grandchild)
    fake_sessions.running.add("ses_grand")
    fake_sessions.parents["ses_grand"] = "ses_child"
    feed, _view = opened("ses_parent")
    await feed_until(lambda: feed.synced)
    block = feed.transcript.tool_for("msg_p", "call_t")
    assert block is not None and block.subagent is None

    await feed.poll()
    assert set(feed.subagents.links) == {"ses_child"} and feed.subagents.deeper == {"ses_grand"}
    await feed_until(lambda: block.subagent is not None)
    assert block.subagent == SubagentProgress(action="bash  make -n all | head", tools=2, tokens=3_340)
    assert block.child_session == "ses_child"

    fake_sessions.running -= {"ses_child", "ses_grand"}
    await feed.poll()
    assert feed.subagents.links == {} and feed.subagents.deeper == set()
    assert block.subagent is not None and block.subagent.tools == 2
