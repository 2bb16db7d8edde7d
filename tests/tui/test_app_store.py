"""Pilot tests over the real Sessions facade and a real SQLite store.

The test plays the runner: it publishes durable events through the store and
live deltas on its bus; a tiny executor says which sessions are active.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.core.api import Sessions, open_sessions
from agent_tui.core.api import events as ev
from agent_tui.core.log import ids
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.screens.picker import SessionPicker
from agent_tui.tui.services import TuiServices
from agent_tui.tui.widgets.block_widgets import AssistantText, UserMessage
from agent_tui.tui.widgets.permission import PermissionPanel
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.transcript import TranscriptView
from agent_tui.vocab.usage import Usage
from tests.fakes.executors import RecordingExecutor

from .conftest import FAST
from .test_app import until


@pytest.fixture
async def real(workdir: Path):
    executor = RecordingExecutor()
    sessions = await open_sessions(executor=executor)
    executor.sessions = sessions
    yield sessions, executor
    await sessions.close()


def app_for(sessions: Sessions, workdir: Path, clock, start: StartMode = StartMode()) -> AgentApp:
    services = TuiServices(sessions=sessions, location=str(workdir), model="openai/fake", clock=clock, timings=FAST)
    return AgentApp(services, start=start, watch_themes=False)


async def running_session_app(real, workdir: Path, clock) -> tuple[Sessions, str, AgentApp]:  # noqa: ANN001
    """A new session the executor reports as running, and an app opened on it."""
    sessions, executor = real
    sid = (await sessions.create(location=workdir)).id
    executor.running.add(sid)
    return sessions, sid, app_for(sessions, workdir, clock, StartMode(session_id=sid))


async def busy_period(sessions: Sessions, sid: str, prompt: str, step: Callable[[str], list[ev.DurableEvent]]) -> str:
    """The runner's part for one prompt: promoted, one step whose parts ``step(amid)`` gives; its id."""
    receipt = await sessions.prompt(sid, prompt)
    amid = ids.message_id()
    await sessions._store.publish_many(
        sid,
        [
            ev.ExecutionStarted(),
            ev.PromptPromoted(input_id=receipt.input_id),
            ev.StepStarted(assistant_message_id=amid, agent="build", model="openai/fake"),
            *step(amid),
            ev.StepEnded(assistant_message_id=amid, finish="stop", usage=Usage(input_tokens=100, output_tokens=20)),
            ev.ExecutionSucceeded(),
        ],
    )
    return receipt.input_id


async def exchange(sessions: Sessions, sid: str, prompt: str, answer: str) -> None:
    await busy_period(
        sessions,
        sid,
        prompt,
        lambda amid: [
            ev.TextStarted(assistant_message_id=amid, ordinal=0),
            ev.TextEnded(assistant_message_id=amid, ordinal=0, text=answer),
        ],
    )


async def session_with(sessions: Sessions, workdir: Path, prompt: str, answer: str) -> str:
    sid = (await sessions.create(location=workdir)).id
    await exchange(sessions, sid, prompt, answer)
    return sid


async def ask_for_bash(app: AgentApp, pilot, sessions: Sessions, sid: str, command: str) -> PermissionPanel:  # noqa: ANN001
    """A running step calls bash and asks to run ``command`` (request ``perm_1``, call ``c1``);
    returns the permission panel once it shows the ask with focus."""
    await until(pilot, lambda: app.view.synced)
    await sessions._store.publish_many(
        sid,
        [
            ev.ExecutionStarted(),
            ev.StepStarted(assistant_message_id="m1", agent="build", model="x"),
            ev.ToolCalled(assistant_message_id="m1", call_id="c1", name="bash", input={"command": command}),
            ev.PermissionAsked(
                request_id="perm_1", assistant_message_id="m1", call_id="c1", action="bash", resources=[command]
            ),
        ],
    )
    panel = app.query_one(PermissionPanel)
    await until(pilot, lambda: panel.display and panel.has_focus)
    return panel


def picker_rows(picker: SessionPicker) -> dict[str, str]:
    """Session id -> the row as shown (marker, title, time, count)."""
    from textual.widgets import OptionList

    return {r.id: str(o.prompt) for r, o in zip(picker.rows, picker.query_one(OptionList).options, strict=False)}


async def test_first_prompt_creates_the_session_in_the_store(real, workdir, clock) -> None:
    sessions, executor = real
    app = app_for(sessions, workdir, clock)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert await sessions.list() == []
        await pilot.press(*"write a haiku", "enter")
        await until(pilot, lambda: app.view.session_id is not None)
        sid = app.view.session_id
        await until(pilot, lambda: ("wake", sid) in executor.calls)
        [row] = await sessions.list(location=str(workdir))
        assert row.id == sid
        pending = await sessions.pending(sid)
        assert [p.prompt for p in pending] == [[{"type": "text", "text": "write a haiku"}]]


async def test_reopening_shows_the_same_blocks_and_live_events_arrive(real, workdir, clock) -> None:
    sessions, executor = real
    sid = (await sessions.create(location=workdir)).id
    await exchange(sessions, sid, "first question", "first answer")
    app = app_for(sessions, workdir, clock, StartMode(session_id=sid))
    async with app.run_test() as pilot:
        view = app.query_one(TranscriptView)
        await until(pilot, lambda: len(view.children) == 2)
        executor.running.add(sid)
        await exchange(sessions, sid, "second", "streamed")
        await until(pilot, lambda: len(view.children) == 4)
        live_shape = [(type(w).__name__, w.block.key) for w in view.query_children()]
    app2 = app_for(sessions, workdir, clock, StartMode(session_id=sid))
    async with app2.run_test() as pilot:
        view = app2.query_one(TranscriptView)
        await until(pilot, lambda: len(view.children) == 4)
        assert [(type(w).__name__, w.block.key) for w in view.query_children()] == live_shape
        assert app2.query(AssistantText).last()._written == "streamed"


async def test_live_text_deltas_from_the_bus(real, workdir, clock) -> None:
    sessions, sid, app = await running_session_app(real, workdir, clock)
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.view.synced)
        await sessions._store.publish_many(
            sid,
            [
                ev.ExecutionStarted(),
                ev.StepStarted(assistant_message_id="m1", agent="build", model="x"),
                ev.TextStarted(assistant_message_id="m1", ordinal=0),
            ],
        )
        await until(pilot, lambda: app.query(AssistantText))
        widget = app.query_one(AssistantText)
        for chunk in ("one ", "two ", "three"):
            sessions._bus.publish(ev.TextDelta(session_id=sid, assistant_message_id="m1", ordinal=0, delta=chunk))
            await until(pilot, lambda: widget._written.endswith(chunk))
        assert widget._written == "one two three"


async def test_unknown_session_id_is_one_line_and_the_app_stays_usable(real, workdir, clock) -> None:
    sessions, _ = real
    app = app_for(sessions, workdir, clock, StartMode(session_id="ses_nope"))
    async with app.run_test() as pilot:
        await until(pilot, lambda: any("cannot open session ses_nope" in str(n.message) for n in app._notifications))
        assert app.view.session_id is None and app.is_running
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: app.view.session_id is not None)


async def test_picker_searches_the_store_and_opens_a_session(real, workdir, clock) -> None:
    sessions, executor = real
    ids = {}
    for title in ("refactor the parser", "fix flaky test", "write docs"):
        sid = (await sessions.create(location=workdir)).id
        await exchange(sessions, sid, title, f"done: {title}")
        ids[title] = sid
    elsewhere = (await sessions.create(location=workdir.parent)).id
    await exchange(sessions, elsewhere, "elsewhere work", "ok")
    executor.running.add(ids["fix flaky test"])
    app = app_for(sessions, workdir, clock)
    async with app.run_test() as pilot:
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == 3)
        picker = app.screen
        assert {r.id for r in picker.rows} == set(ids.values())
        assert picker_rows(picker)[ids["fix flaky test"]].startswith("● fix flaky test")
        await pilot.press("tab")
        await until(pilot, lambda: len(picker.rows) == 4)
        await pilot.press("tab", *"parser")
        await until(pilot, lambda: [r.id for r in picker.rows] == [ids["refactor the parser"]])
        await pilot.press("enter")
        await until(pilot, lambda: app.view.session_id == ids["refactor the parser"])
        await until(pilot, lambda: len(app.query(UserMessage)) == 1)


async def test_picker_marks_the_session_on_screen_and_previews_the_highlighted_one(real, workdir, clock) -> None:
    sessions, _ = real
    older = (await sessions.create(location=workdir)).id
    await exchange(sessions, older, "plan the release", "Here is the plan: tag, build, publish.")
    clock.advance(60)
    newer = (await sessions.create(location=workdir)).id
    await exchange(sessions, newer, "fix the parser", "Fixed the off-by-one in parse_line.")
    app = app_for(sessions, workdir, clock, StartMode(session_id=older))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query(UserMessage)) == 1)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == 2)
        picker = app.screen
        rows = picker_rows(picker)
        assert rows[older].endswith("◂ on screen") and "on screen" not in rows[newer]
        preview = picker.query_one("#picker-preview")
        await until(pilot, lambda: preview.display and "parse_line" in str(preview.render()))
        assert "2 messages" in str(preview.render())
        await pilot.press("down")
        await until(pilot, lambda: "tag, build, publish" in str(preview.render()))


async def test_picker_escape_closes_and_ctrl_n_starts_new(real, workdir, clock) -> None:
    sessions, _ = real
    sid = (await sessions.create(location=workdir)).id
    await exchange(sessions, sid, "old", "thing")
    app = app_for(sessions, workdir, clock, StartMode(session_id=sid))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query(UserMessage)) == 1)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SessionPicker))
        assert app.view.session_id == sid
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        await pilot.press("ctrl+n")
        await until(pilot, lambda: app.view.session_id is None and not app.query(UserMessage))


@pytest.mark.parametrize(
    ("keys", "reply", "message"),
    [
        (["y"], "once", None),
        (["a"], "always", None),
        (["n"], "reject", None),
        (["m", *"use git instead", "enter"], "reject", "use git instead"),
    ],
)
async def test_permission_panel_keys_after_the_grace_period(real, workdir, clock, keys, reply, message) -> None:
    sessions, sid, app = await running_session_app(real, workdir, clock)
    async with app.run_test() as pilot:
        panel = await ask_for_bash(app, pilot, sessions, sid, "rm -rf build")
        assert "rm -rf build" in str(panel.query_one(".permission-body").render())
        assert "waiting for permission" in app.view.query_one("#status").line().plain
        await pilot.press(keys[0], "x")  # inside the grace period: typing meant for the prompt goes there
        assert panel.display and (await sessions.permissions.pending(sid))[0].reply is None
        assert app.query_one(PromptInput).text == keys[0] + "x"
        clock.advance(1)
        await pilot.press(*keys)
        await until(pilot, lambda: not panel.display)
        record = await sessions._store.permission("perm_1")
        assert (record.reply, record.message) == (reply, message)
        assert app.focused is app.query_one(PromptInput)


async def test_an_ask_answered_here_times_the_tool_from_the_reply_as_a_reopen_does(real, workdir, clock) -> None:
    sessions, sid, app = await running_session_app(real, workdir, clock)
    async with app.run_test() as pilot:
        panel = await ask_for_bash(app, pilot, sessions, sid, "make")
        clock.advance(1)
        await pilot.press("y")
        await until(pilot, lambda: not panel.display)
        stored = [e async for e in sessions.log(sid) if isinstance(e, ev.StoredEvent)]
        replied = next(e.created for e in stored if isinstance(e.event, ev.PermissionReplied))
        called = next(e.created for e in stored if isinstance(e.event, ev.ToolCalled))
        tool = app.view.transcript.get(BlockKey.tool("m1", "c1"))
        await until(pilot, lambda: tool.started_ms == replied)  # not the call's time, which included the wait
        assert (
            not app.view.transcript.asks and "waiting for permission" not in app.view.query_one("#status").line().plain
        )
        assert called <= replied


async def test_long_session_opens_at_the_end_and_scrolling_up_loads_older_segments(
    real, workdir, clock, monkeypatch
) -> None:
    from agent_tui.tui import session_feed
    from agent_tui.tui.widgets.transcript import TranscriptView

    monkeypatch.setattr(session_feed, "TAIL_EVENTS", 80)
    monkeypatch.setattr(session_feed, "OLDER_EVENTS", 80)
    sessions, _ = real
    sid = (await sessions.create(location=workdir)).id
    early = await sessions.prompt(sid, "queued before everything", delivery="queue")
    for n in range(40):
        await exchange(sessions, sid, f"question {n}", f"answer {n}")
    app = app_for(sessions, workdir, clock, StartMode(session_id=sid))
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TranscriptView)
        await until(pilot, lambda: app.view.synced and view.children)
        assert app.view.transcript.start_seq > 1  # only the newest segment was folded
        assert view.mounted_blocks[-1].text == "answer 39"  # type: ignore[attr-defined]
        assert [p.input_id for p in app.view.transcript.pending_inputs] == [early.input_id]
        assert "↑4.0k ↓800" in app.view.query_one("#status").line().plain  # totals of all 40 steps, none folded twice
        transcript = app.view.transcript

        def settled() -> bool:
            """No mount of the window in flight, and more than a screenful laid out."""
            mounting = any(w.group in ("fill", "backfill") and not w.is_finished for w in app.workers)
            return not mounting and view.max_scroll_y > 5

        for _ in range(40):
            await until(pilot, settled)
            if transcript.start_seq == 1 and view.mounted_blocks[0] is transcript.blocks[0]:
                break
            count = len(view.children)
            # Off the top, then to the top: a move up, as a user makes it. A scroll to the top straight
            # from the anchored end could start from a stale offset (negative, from before the last
            # mount was laid out): no move up, nothing loaded.
            view.scroll_to(y=5, animate=False, immediate=True)
            view.scroll_to(y=0, animate=False, immediate=True)
            await until(pilot, lambda: len(view.children) > count or app.view.transcript.start_seq == 1)
        texts = [getattr(b, "text", None) for b in view.mounted_blocks]
        assert texts[:2] == ["question 0", "answer 0"]
        assert texts.count("queued before everything") == 0  # still pending, not in the transcript


async def test_another_session_opens_while_one_runs_and_switching_back_shows_everything(real, workdir, clock) -> None:
    sessions, executor = real
    a = await session_with(sessions, workdir, "long job", "starting")
    b = await session_with(sessions, workdir, "other thing", "done")
    executor.running.add(a)
    app = app_for(sessions, workdir, clock, StartMode(session_id=a))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query(UserMessage)) == 1)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == 2)
        picker = app.screen
        rows = picker_rows(picker)
        assert rows[a].startswith("● ") and not rows[b].startswith("● ")
        index = [r.id for r in picker.rows].index(b)
        for _ in range(index):
            await pilot.press("down")
        await pilot.press("enter")
        await until(pilot, lambda: app.view.session_id == b and len(app.query(UserMessage)) == 1)
        # A keeps running in the background: its events land in the store, not on this screen.
        await sessions._store.publish_many(
            a,
            [
                ev.StepStarted(assistant_message_id="msg_bg", agent="build", model="x"),
                ev.TextStarted(assistant_message_id="msg_bg", ordinal=0),
                ev.TextEnded(assistant_message_id="msg_bg", ordinal=0, text="finished in the background"),
                ev.StepEnded(assistant_message_id="msg_bg", finish="stop"),
            ],
        )
        await pilot.pause()
        assert "finished in the background" not in [w._written for w in app.query(AssistantText)]
        await app.open_session(a)
        await until(pilot, lambda: "finished in the background" in [w._written for w in app.query(AssistantText)])
        assert "running" in app.view.query_one("#status").line().plain


async def test_asks_of_a_background_session_show_in_the_status_bar_and_picker(real, workdir, clock) -> None:
    sessions, executor = real
    here = await session_with(sessions, workdir, "foreground", "ok")
    away = await session_with(sessions, workdir, "background", "ok")
    executor.running.add(away)
    await sessions._store.publish_many(
        away,
        [
            ev.StepStarted(assistant_message_id="msg_w", agent="build", model="x"),
            ev.ToolCalled(assistant_message_id="msg_w", call_id="c1", name="bash", input={"command": "make deploy"}),
            ev.PermissionAsked(
                request_id="perm_bg",
                assistant_message_id="msg_w",
                call_id="c1",
                action="bash",
                resources=["make deploy"],
            ),
        ],
    )
    app = app_for(sessions, workdir, clock, StartMode(session_id=here))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query(UserMessage)) == 1)
        await app.view.feed.poll()  # the periodic check, without waiting for its timer
        assert "⚑ 1 waiting elsewhere" in app.view.query_one("#status").line().plain
        assert not app.view.query_one(PermissionPanel).display  # not this session's ask
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == 2)
        picker = app.screen
        rows = picker_rows(picker)
        assert rows[away].startswith("⚑ ")
