"""Pilot tests: the real app over a stored-log facade, the test playing the runner."""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from agent_tui.core.api import events as ev
from agent_tui.tui.app import AgentApp, StartMode
from agent_tui.tui.widgets.block_widgets import AssistantText, CompactionDivider, RetryNotice, StepError, UserMessage
from agent_tui.tui.widgets.live_markdown import MarkdownPart
from agent_tui.tui.widgets.pending import PendingInputStrip
from agent_tui.tui.widgets.prompt import PromptInput
from agent_tui.tui.widgets.status import StatusBar
from agent_tui.tui.widgets.tool_block import ToolCallView
from agent_tui.tui.widgets.transcript import TranscriptView
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import CompactionReason, InterruptReason
from agent_tui.vocab.tool_output import ToolOutput
from tests.fakes.logs import LogBuilder
from tests.fakes.sessions import FakeSessions

from .conftest import LOCATION, until

SID = "ses_a"


def stored(fake_sessions: FakeSessions, turns: int = 1) -> LogBuilder:
    log = LogBuilder(session_id=SID).created(location=LOCATION)
    for n in range(turns):
        log.turn(f"question {n}", f"answer {n}")
    fake_sessions.add_log(log)
    return log


@asynccontextmanager
async def opened(fake_sessions: FakeSessions, make_app, running: bool = False) -> AsyncIterator[tuple[AgentApp, Any]]:
    """A one-exchange stored session, open on screen (and running, if asked)."""
    stored(fake_sessions)
    if running:
        fake_sessions.running.add(SID)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(blocks(app)) == 2)
        yield app, pilot


def blocks(app: AgentApp) -> list:
    return list(app.query_one(TranscriptView).query_children())


def status(app: AgentApp) -> str:
    return app.query_one(StatusBar).line().plain


async def test_resume_by_id_shows_the_stored_transcript(fake_sessions, make_app) -> None:
    stored(fake_sessions, turns=2)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(blocks(app)) == 4)
        kinds = [type(w).__name__ for w in blocks(app)]
        assert kinds == ["UserMessage", "AssistantText"] * 2
        # the Markdown mounts a moment after its block widget
        await until(  # query, not query_one: until it mounts there is no part to ask (NoMatches)
            pilot, lambda: [m.source for m in app.query(AssistantText).last().query(MarkdownPart)] == ["answer 1"]
        )
        assert "idle" in status(app) and "question 0" in status(app)


async def test_a_new_session_is_created_on_the_first_prompt_not_at_launch(fake_sessions, make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert fake_sessions.logs == {}
        await pilot.press(*"hi there")
        await pilot.press("enter")
        await until(pilot, lambda: any(c[0] == "prompt" for c in fake_sessions.calls))
        assert fake_sessions.calls[0] == ("create", "ses_new1", LOCATION, "openai/fake")
        assert fake_sessions.calls[1] == ("prompt", "ses_new1", "hi there", "steer")
        assert app.query_one(PromptInput).text == ""
        # The runner promotes it: it moves from the pending strip into the transcript.
        await until(pilot, lambda: app.query_one(PendingInputStrip).display)
        fake_sessions.publish("ses_new1", ev.PromptPromoted(input_id="msg_in2"))
        await until(pilot, lambda: [type(w) for w in blocks(app)] == [UserMessage])
        assert not app.query_one(PendingInputStrip).display


async def test_streaming_text_appears_incrementally_then_settles(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        fake_sessions.publish(SID, ev.TextStarted(assistant_message_id="m2", ordinal=0))
        await until(pilot, lambda: len(blocks(app)) == 3)
        widget = blocks(app)[-1]
        seen = []
        for chunk in ["Hello", " wor", "ld"]:
            fake_sessions.delta(ev.TextDelta(session_id=SID, assistant_message_id="m2", ordinal=0, delta=chunk))
            await until(pilot, lambda: widget._written.endswith(chunk))
            seen.append(widget._written)
        assert seen == ["Hello", "Hello wor", "Hello world"]
        assert widget.query_one(MarkdownPart).source == "Hello world" and "running" in status(app)
        fake_sessions.publish(SID, ev.TextEnded(assistant_message_id="m2", ordinal=0, text="Hello world!"))
        await until(pilot, lambda: widget.query_one(MarkdownPart).source == "Hello world!")


async def test_tool_block_runs_with_live_output_then_settles(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        fake_sessions.publish(
            SID, ev.ToolCalled(assistant_message_id="m2", call_id="c1", name="bash", input={"command": "make"})
        )
        await until(pilot, lambda: app.query(ToolCallView))
        tool = app.query_one(ToolCallView)
        await until(pilot, lambda: tool.has_class("-running"))
        fake_sessions.delta(
            ev.ToolOutputDelta(session_id=SID, assistant_message_id="m2", call_id="c1", delta="building…\n")
        )
        await until(pilot, lambda: "building" in str(tool.query_one(".tool-live").render()))
        fake_sessions.publish(
            SID, ev.ToolSucceeded(assistant_message_id="m2", call_id="c1", output=ToolOutput(text="done"))
        )
        await until(pilot, lambda: tool.has_class("-ok"))
        assert not tool.query_one(".tool-live").display
        assert str(tool.query_one(".tool-header").render()).startswith("✓ bash  make")


async def test_enter_steers_and_tab_queues_while_running(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        await pilot.press(*"now", "enter")
        await pilot.press(*"later", "tab")
        await until(pilot, lambda: len([c for c in fake_sessions.calls if c[0] == "prompt"]) == 2)
        assert [c for c in fake_sessions.calls if c[0] == "prompt"] == [
            ("prompt", SID, "now", "steer"),
            ("prompt", SID, "later", "queue"),
        ]
        strip = app.query_one(PendingInputStrip)
        await until(pilot, lambda: len(strip.items) == 2)
        assert "steer" in str(strip.render()) and "queued" in str(strip.render())


async def test_the_pending_strip_offers_alt_up_only_when_something_is_queued(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        strip = app.query_one(PendingInputStrip)
        await pilot.press(*"now", "enter")
        await until(pilot, lambda: len(strip.items) == 1)
        hint = str(strip.render()).splitlines()[-1]
        assert "alt+w withdraw last" in hint and "last queued" not in hint
        await pilot.press(*"later", "tab")
        await until(pilot, lambda: len(strip.items) == 2)
        assert "alt+↑ last queued" in str(strip.render()).splitlines()[-1]


async def test_tab_sends_when_idle(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        await pilot.press(*"go", "tab")
        await until(pilot, lambda: ("prompt", SID, "go", "steer") in fake_sessions.calls)


async def test_esc_interrupts_and_pending_input_stays(fake_sessions, make_app) -> None:
    log = stored(fake_sessions)
    log.prompt("queued one", delivery="queue", promote=False)
    fake_sessions.running.add(SID)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query_one(PendingInputStrip).items) == 1)
        await pilot.press("escape")
        await until(pilot, lambda: ("interrupt", SID, "user") in fake_sessions.calls)
        await until(pilot, lambda: "idle" in status(app))
        assert [p.text for p in app.query_one(PendingInputStrip).items] == ["queued one"]


async def test_alt_up_then_enter_edits_the_last_queued_input(fake_sessions, make_app) -> None:
    log = stored(fake_sessions)
    log.prompt("first", delivery="queue", promote=False)
    log.prompt("second", delivery="queue", promote=False)
    fake_sessions.running.add(SID)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        strip = app.query_one(PendingInputStrip)
        await until(pilot, lambda: len(strip.items) == 2)
        await pilot.press("alt+up")
        assert strip.current.text == "second" and strip.has_focus
        await pilot.press("enter")
        await until(pilot, lambda: app.query_one(PromptInput).text == "second")
        assert fake_sessions.calls[-1] == ("withdraw", SID, "msg_user3")
        await until(pilot, lambda: [p.text for p in strip.items] == ["first"])
        await pilot.press("end", *" again", "tab")
        await until(pilot, lambda: ("prompt", SID, "second again", "queue") in fake_sessions.calls)


async def test_up_and_down_recall_sent_prompts(fake_sessions, make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        for text in ("one", "two"):
            await pilot.press(*text, "enter")
        await until(pilot, lambda: app.view.session_id and len(fake_sessions._inbox(app.view.session_id)) == 2)
        for row in fake_sessions._inbox(app.view.session_id):  # the runner's part: they are taken, none is pending
            fake_sessions.publish(app.view.session_id, ev.PromptPromoted(input_id=row.id))
        await until(pilot, lambda: not app.query_one(PendingInputStrip).items)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.text == "two"
        await pilot.press("up")
        assert prompt.text == "one"
        await pilot.press("down", "down")
        assert prompt.text == "draft"


async def test_shift_enter_and_ctrl_j_insert_newlines(fake_sessions, make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert app.query_one(PromptInput).text == "a\nb\nc"
        assert fake_sessions.calls == []


async def test_ctrl_c_clears_then_quits_within_the_window(fake_sessions, make_app, clock) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        await pilot.press(*"draft", "ctrl+c")
        assert app.query_one(PromptInput).text == "" and app.is_running
        await pilot.press("ctrl+c")  # the empty prompt's first press arms the quit
        assert app.is_running
        clock.advance(2.5)  # outside the window: arms it again
        await pilot.press("ctrl+c")
        assert app.is_running
        clock.advance(1.0)
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)


async def test_continue_opens_the_latest_session_here(fake_sessions, make_app) -> None:
    stored(fake_sessions)
    other = LogBuilder(session_id="ses_elsewhere").created(location="/elsewhere")
    other.now_ms += 10_000_000
    other.turn("far away", "yes")
    fake_sessions.add_log(other)
    app = make_app(StartMode(continue_latest=True))
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.view.session_id == SID and len(blocks(app)) == 2)


async def test_retry_countdown_follows_the_clock(fake_sessions, make_app, clock) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        error = ErrorInfo(type="provider.rate-limit", message="429")
        fake_sessions.publish(
            SID, ev.RetryScheduled(assistant_message_id="m2", attempt=1, at_ms=clock.now + 4000, error=error)
        )
        await until(pilot, lambda: app.query(RetryNotice))
        notice = app.query_one(RetryNotice)
        assert "attempt 1 in 4s" in str(notice.render())
        assert "retrying in 4s" in status(app)
        clock.advance(3)
        assert "attempt 1 in 1s" in str(notice.render()) and "retrying in 1s" in status(app)
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x", attempt=2))
        await until(pilot, lambda: not app.query(RetryNotice))


async def test_step_error_shows_kind_and_message(fake_sessions, make_app) -> None:
    log = stored(fake_sessions)
    amid = log.step("m9")
    log.add(ev.StepFailed(assistant_message_id=amid, error=ErrorInfo(type="provider.auth", message="bad key")))
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.query(StepError))
        assert str(app.query_one(StepError).render()) == "✗ auth: bad key"


async def test_compaction_divider_lifecycle(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        await pilot.press(*"/compact", "enter")
        await until(pilot, lambda: app.query(CompactionDivider))
        divider = app.query_one(CompactionDivider)
        title = lambda: str(divider.query_one(".divider-title").render())  # noqa: E731
        await until(pilot, lambda: "compaction queued" in title())
        fake_sessions.running.add(SID)
        input_id = (
            next(c for c in fake_sessions.calls if c[0] == "compact")
            and fake_sessions.logs[SID].events[-1].event.input_id
        )
        fake_sessions.publish(
            SID, ev.CompactionStarted(message_id="mc", reason=CompactionReason.MANUAL, input_id=input_id)
        )
        await until(pilot, lambda: "compacting context" in title())
        assert "compacting" in status(app)
        fake_sessions.delta(ev.CompactionDelta(session_id=SID, message_id="mc", delta="## Objective\nship it"))
        await until(pilot, lambda: "ship it" in str(divider.query_one(".divider-live").render()))
        fake_sessions.publish(
            SID,
            ev.CompactionEnded(
                message_id="mc",
                reason=CompactionReason.MANUAL,
                summary="## Objective\nship it",
                recent="",
                input_id=input_id,
            ),
        )
        await until(pilot, lambda: "context compacted" in title())
        assert not divider.query_one(".divider-live").display


async def test_theme_command_switches_live_and_rejects_unknown(fake_sessions, make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        assert app.theme == "agent-dark"
        await pilot.press(*"/theme agent-light", "enter")
        await until(pilot, lambda: app.theme == "agent-light")
        assert app.theme_variables["diff-added"] == "#1a7f37"
        await pilot.press(*"/theme nope", "enter")
        await pilot.pause()
        assert app.theme == "agent-light"
        assert any("no theme 'nope'" in str(n.message) for n in app._notifications)


async def test_unknown_command_is_one_line_and_keeps_the_text(fake_sessions, make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press(*"/frobnicate", "enter")
        await pilot.pause()
        assert app.query_one(PromptInput).text == "/frobnicate"
        assert any("unknown command /frobnicate" in str(n.message) for n in app._notifications)
        assert fake_sessions.calls == []


async def test_model_command_selects_for_the_session(fake_sessions, make_app) -> None:
    stored(fake_sessions)
    learned: list[str] = []
    windows = {"openai/other": 1000}
    app = make_app(StartMode(session_id=SID), learn_model=learned.append, context_window=windows.get)
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(blocks(app)) == 2)
        await pilot.press(*"/model openai/other", "enter")
        await until(pilot, lambda: ("select_model", SID, "openai/other") in fake_sessions.calls)
        await until(pilot, lambda: "openai/other" in status(app))
        await until(pilot, lambda: learned == ["openai/other"])
        assert "88% context left" in status(app)  # the last step used 120 of its 1 000 tokens
        assert ("wake", SID) not in fake_sessions.calls  # nothing was waiting


async def test_choosing_a_model_sends_input_left_pending_by_a_failed_start(fake_sessions, make_app) -> None:
    log = stored(fake_sessions)
    log.add(ev.ExecutionStarted())
    log.prompt("hi", promote=False)
    log.add(ev.ExecutionFailed(error=ErrorInfo(type="credentials", message="No model selected")))
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query_one(PendingInputStrip).items) == 1)
        await pilot.press(*"/model openai/other", "enter")
        await until(pilot, lambda: ("wake", SID) in fake_sessions.calls)
        assert fake_sessions.calls.index(("select_model", SID, "openai/other")) < fake_sessions.calls.index(
            ("wake", SID)
        )


async def test_setup_hint_is_shown_in_one_line(fake_sessions, make_app) -> None:
    app = make_app(setup_hint="no model configured: set AGENT_TUI_MODEL or pass --model")
    async with app.run_test() as pilot:
        await pilot.pause()
        lines = status(app).splitlines()
        assert lines[1].strip() == "no model configured: set AGENT_TUI_MODEL or pass --model"


async def test_a_very_long_answer_streams_into_a_chain_of_markdown_widgets(
    fake_sessions, make_app, monkeypatch
) -> None:
    monkeypatch.setattr(AssistantText, "PART_CHARS", 200)
    stored(fake_sessions)
    fake_sessions.running.add(SID)
    app = make_app(StartMode(session_id=SID))
    paragraphs = [f"Paragraph {n} " + "words " * 12 for n in range(12)]
    paragraphs[5] = "```python\n" + "x = 1\n\n" * 40 + "```"  # a fence is never cut in half
    text = "\n\n".join(paragraphs)
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(blocks(app)) == 2)
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        fake_sessions.publish(SID, ev.TextStarted(assistant_message_id="m2", ordinal=0))
        await until(pilot, lambda: len(blocks(app)) == 3)
        widget = blocks(app)[-1]
        for start in range(0, len(text), 37):
            chunk = text[start : start + 37]
            fake_sessions.delta(ev.TextDelta(session_id=SID, assistant_message_id="m2", ordinal=0, delta=chunk))
            await until(pilot, lambda: widget._written == text[: start + len(chunk)])
        fake_sessions.publish(SID, ev.TextEnded(assistant_message_id="m2", ordinal=0, text=text))
        await until(pilot, lambda: not widget.block.open and widget.painted == widget.block.version)
        parts = list(widget.query_children(MarkdownPart))
        assert len(parts) >= 4  # finished parts and the tail, which alone changed while streaming
        assert widget.source == text
        assert all(part.source.count("```") % 2 == 0 for part in parts)


async def test_scrolled_up_view_stays_put_and_hints_new_output(fake_sessions, make_app) -> None:
    stored(fake_sessions, turns=12)
    fake_sessions.running.add(SID)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        await until(pilot, lambda: len(blocks(app)) == 24 and view.max_scroll_y > 0)
        await until(pilot, lambda: view.scroll_y == view.max_scroll_y)
        hint = app.query_one("#new-output")
        assert not hint.display
        view.scroll_to(y=view.max_scroll_y - 10, animate=False, immediate=True)
        view.release_anchor()
        await pilot.pause()
        where = view.scroll_y
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m9", agent="build", model="x"))
        fake_sessions.publish(SID, ev.TextStarted(assistant_message_id="m9", ordinal=0))
        fake_sessions.publish(SID, ev.TextEnded(assistant_message_id="m9", ordinal=0, text="fresh output\n\n" * 5))
        await until(pilot, lambda: hint.display)
        assert view.scroll_y == where  # not yanked to the bottom
        await pilot.press("ctrl+end")
        await until(pilot, lambda: not hint.display and view.scroll_y == view.max_scroll_y)


async def test_one_long_answer_streaming_below_a_scrolled_up_view_hints_too(fake_sessions, make_app) -> None:
    stored(fake_sessions, turns=12)
    fake_sessions.running.add(SID)
    fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m9", agent="build", model="x"))
    fake_sessions.publish(SID, ev.TextStarted(assistant_message_id="m9", ordinal=0))
    app = make_app(StartMode(session_id=SID))
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        fake_sessions.delta(ev.TextDelta(session_id=SID, assistant_message_id="m9", ordinal=0, delta="The answer "))
        await until(pilot, lambda: "The answer" in str(blocks(app)[-1].block.text))
        # the first paint mounts the newest blocks, then those above them a frame later: all of them first
        await until(pilot, lambda: len(blocks(app)) >= 24 and view.scroll_y == view.max_scroll_y > 0)
        count = len(blocks(app))
        hint = app.query_one("#new-output")
        view.scroll_to(y=view.max_scroll_y - 10, animate=False, immediate=True)
        view.release_anchor()
        await pilot.pause()
        assert not hint.display
        for n in range(20):  # no new block: the same answer grows
            fake_sessions.delta(
                ev.TextDelta(session_id=SID, assistant_message_id="m9", ordinal=0, delta=f"line {n}\n\n")
            )
        await until(pilot, lambda: hint.display)
        assert len(blocks(app)) == count


async def test_a_long_session_paints_its_newest_blocks_then_fills_in_above(
    fake_sessions, make_app, monkeypatch
) -> None:
    from agent_tui.tui.widgets import transcript as transcript_module

    first_frame: list[int] = []
    show = TranscriptView.show

    async def recording_show(self, transcript) -> None:  # noqa: ANN001
        await show(self, transcript)
        first_frame.append(len(self.children))

    monkeypatch.setattr(TranscriptView, "show", recording_show)
    stored(fake_sessions, turns=30)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        await until(pilot, lambda: len(blocks(app)) == transcript_module.INITIAL_BLOCKS)
        assert first_frame[-1] == transcript_module.FIRST_BLOCKS  # (after the empty new-session views)
        expected = [text for n in range(18, 30) for text in (f"question {n}", f"answer {n}")]
        assert [getattr(b, "text", None) for b in view.mounted_blocks] == expected  # in order, newest last
        await until(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y)  # still at the end
        # A fill that runs after a scroll-up already loaded older blocks mounts the ones above those.
        await view.load_older()
        await view._fill_above(view.transcript, 4)
        shown = view.mounted_blocks
        assert len({id(b) for b in shown}) == len(shown)  # no block twice
        assert shown == app.view.transcript.blocks[-len(shown) :]  # in order, up to the newest


async def test_interrupting_shows_until_the_session_stops(fake_sessions, make_app) -> None:
    stored(fake_sessions)
    fake_sessions.running.add(SID)

    async def slow_interrupt(session_id: str, reason: str = "user") -> None:
        fake_sessions.calls.append(("interrupt", session_id, reason))  # the runner takes its time to stop

    fake_sessions.interrupt = slow_interrupt  # type: ignore[method-assign]
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(blocks(app)) == 2)
        await pilot.press("escape")
        await until(pilot, lambda: "interrupting…" in status(app))
        fake_sessions.running.discard(SID)
        fake_sessions.publish(SID, ev.ExecutionInterrupted(reason=InterruptReason.USER))
        await until(pilot, lambda: "idle" in status(app))


async def test_help_lists_every_key_and_command(fake_sessions, make_app) -> None:
    from agent_tui.tui.command_registry import SLASH_COMMANDS
    from agent_tui.tui.screens.help import HelpScreen
    from agent_tui.tui.widgets.permission import PermissionPanel

    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press(*"/help", "enter")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        keys, commands = app.screen.keys, app.screen.commands  # the rows it shows
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, HelpScreen))
    shown = {
        {"esc": "escape"}.get(part.strip().lower(), part.strip().lower())
        for key, _ in keys
        for part in key.replace(" / ", ",").split(",")
    }
    bound = {key for cls in (AgentApp, PromptInput) for b in cls.BINDINGS for key in b.key.split(",")}
    assert bound <= shown, f"bindings missing from help: {bound - shown}"
    assert {"ctrl+p", *(b.key for b in PermissionPanel.BINDINGS)} <= shown  # the palette, the ask's keys
    assert any("task block" in what for _, what in keys)  # Enter on a task block opens its subagent
    assert {"/" + c.name for c in SLASH_COMMANDS} == {
        "/new",
        "/resume",
        "/compact",
        "/context",
        "/usage",
        "/init",
        "/rewind",
        "/fork",
        "/export",
        "/rename",
        "/model",
        "/agent",
        "/image",
        "/theme",
        "/mcp",
        "/agents",
        "/skills",
        "/permissions",
        "/help",
    }
    assert [usage for usage, _ in commands] == [
        "/new",
        "/resume",
        "/compact",
        "/context",
        "/usage",
        "/init",
        "/rewind",
        "/fork",
        "/export",
        "/rename TITLE",
        "/model NAME",
        "/agent NAME",
        "/image PATH",
        "/theme NAME",
        "/mcp",
        "/agents",
        "/skills",
        "/permissions",
        "/help",
    ]
    assert dict(commands)["/resume"] == "pick a session to open (Ctrl+R)"  # the key bound to the same action
    from rich.console import Console

    from agent_tui.tui.screens.help import help_table

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(help_table(keys, commands))
    text = console.export_text()
    for typed in ("@path", "!command", "//text", "[pasted N lines]", "expand the [pasted N lines] chips"):
        assert typed in text, typed


def _highlighted_option(app) -> str:  # noqa: ANN001 - AgentApp
    from textual.widgets import OptionList

    options = app.screen.query(OptionList)
    if not options or options.first().highlighted is None:
        return ""
    listed = options.first()
    return str(listed.get_option_at_index(listed.highlighted).prompt)


async def test_palette_offers_the_same_commands(fake_sessions, make_app) -> None:
    from textual.command import CommandPalette

    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"agent-light")
        await until(pilot, lambda: "agent-light" in _highlighted_option(app))  # the search has answered
        await pilot.press("enter")
        await until(pilot, lambda: app.theme == "agent-light")
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in ("New session", "Resume session", "Compact", "Help", "Theme: agent-dark", "Model: openai/fake"):
            assert wanted in titles


async def test_a_theme_file_saved_while_running_reloads(fake_sessions, make_app, tmp_path) -> None:
    from agent_tui.tui.themes import BUNDLED_THEMES_DIR

    user = tmp_path / "themes"
    user.mkdir()
    text = (BUNDLED_THEMES_DIR / "agent-dark.toml").read_text()
    app = make_app(theme_dirs=[BUNDLED_THEMES_DIR, user])
    async with app.run_test() as pilot:
        assert app.theme_variables["diff-added"] == "#87d787"
        changed = text.replace('diff-added = "#87d787"', 'diff-added = "#00ff00"')
        for _ in range(50):  # the OS watch starts in a worker: save again until it has seen a save
            (user / "agent-dark.toml").write_text(changed)
            with contextlib.suppress(AssertionError):
                await until(pilot, lambda: app.theme_variables.get("diff-added") == "#00ff00", timeout=0.2)
                break
        assert app.theme_variables.get("diff-added") == "#00ff00"
        (user / "agent-dark.toml").write_text("name = ")
        await until(pilot, lambda: any("invalid TOML" in str(n.message) for n in app._notifications), timeout=10)
        assert app.theme == "agent-dark"


async def test_page_keys_scroll_the_transcript_from_the_prompt(fake_sessions, make_app) -> None:
    stored(fake_sessions, turns=12)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(TranscriptView)
        # all 24 blocks first: the first paint mounts the newest, the fill-in above comes a frame later
        await until(pilot, lambda: len(blocks(app)) == 24 and view.max_scroll_y > 0)
        await until(pilot, lambda: view.scroll_y == view.max_scroll_y)
        await pilot.press("pageup")
        await until(pilot, lambda: view.scroll_y < view.max_scroll_y)  # the page moved, not the cursor
        assert app.focused is app.query_one(PromptInput)
        for _ in range(5):  # back down a page at a time
            await pilot.press("pagedown")
        await until(pilot, lambda: view.scroll_y == view.max_scroll_y)


async def test_an_unknown_configured_theme_falls_back_and_says_so(fake_sessions, make_app) -> None:
    app = make_app(theme="no-such-theme")
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "agent-dark"
        assert any("no theme 'no-such-theme'" in str(n.message) for n in app._notifications)


async def test_typing_works_before_the_core_opens_and_a_prompt_waits_for_the_runner(fake_sessions, clock) -> None:
    import asyncio

    from agent_tui.tui.services import TuiServices

    from .conftest import FAST

    store_open = asyncio.Event()
    services = TuiServices(sessions=None, location=LOCATION, model="openai/fake", clock=clock, timings=FAST)

    async def connect() -> None:
        await store_open.wait()
        services.connect_to(fake_sessions, runnable=False)  # the runner attaches later

    app = AgentApp(services, connect=connect, watch_themes=False)
    async with app.run_test() as pilot:
        await pilot.press(*"early bird", "enter")  # the store is not even open yet
        assert app.query_one(PromptInput).text == "" and fake_sessions.calls == []
        store_open.set()
        await until(pilot, lambda: services.connected.is_set())
        await pilot.pause()
        assert fake_sessions.calls == []  # the facade reads, but no runner yet: the prompt waits
        await pilot.press(*"second", "enter")  # typed before the first one left: one session, in order
        services.runnable.set()
        await until(pilot, lambda: len([c for c in fake_sessions.calls if c[0] == "prompt"]) == 2)
        assert [c for c in fake_sessions.calls if c[0] in ("create", "prompt")] == [
            ("create", "ses_new1", LOCATION, "openai/fake"),
            ("prompt", "ses_new1", "early bird", "steer"),
            ("prompt", "ses_new1", "second", "steer"),
        ]


@pytest.mark.parametrize("start", [StartMode(continue_latest=True), StartMode(session_id=SID)])
async def test_a_prompt_sent_before_the_start_session_opens_goes_to_it(fake_sessions, clock, start: StartMode) -> None:
    """``agent-tui -c`` (or ``-r ID``) with Enter pressed before that session is on screen: the
    prompt goes to it once it opens. The switch to it cancelled the waiting send, which lost the
    text or left an empty new session behind."""
    import asyncio

    from agent_tui.tui.services import TuiServices

    from .conftest import FAST

    stored(fake_sessions, turns=1)
    store_open = asyncio.Event()
    services = TuiServices(sessions=None, location=LOCATION, model="openai/fake", clock=clock, timings=FAST)

    async def connect() -> None:
        await store_open.wait()
        services.connect_to(fake_sessions)  # with the runner at once, as in a warm launch

    app = AgentApp(services, start=start, connect=connect, watch_themes=False)
    async with app.run_test() as pilot:
        await pilot.press(*"early bird", "enter")
        store_open.set()
        await until(pilot, lambda: any(c[0] == "prompt" for c in fake_sessions.calls) and app.view.session_id == SID)
        await pilot.pause()
        assert [c for c in fake_sessions.calls if c[0] in ("create", "prompt")] == [
            ("prompt", SID, "early bird", "steer")
        ]
        await until(pilot, lambda: [p.text for p in app.view.transcript.pending_inputs] == ["early bird"])


def app_whose_core_fails(clock, error: Exception) -> AgentApp:  # noqa: ANN001
    """An app whose core start-up raises ``error`` once the first frame is up."""
    from agent_tui.tui.services import TuiServices

    from .conftest import FAST

    services = TuiServices(sessions=None, location=LOCATION, model="openai/fake", clock=clock, timings=FAST)

    async def connect() -> None:
        raise error

    return AgentApp(services, connect=connect, watch_themes=False)


async def test_a_startup_failure_after_the_first_frame_exits_with_its_reason(fake_sessions, clock) -> None:
    from agent_tui.tui.services import StartupFailed

    app = app_whose_core_fails(
        clock, StartupFailed("/home/u/config.toml: retry.max_retries: Input should be greater than or equal to 0")
    )
    async with app.run_test() as pilot:
        await until(pilot, lambda: not app.is_running)
    assert app.startup_error is not None and app.startup_error.startswith("/home/u/config.toml: retry.max_retries")
    assert app.return_code == 1 and fake_sessions.calls == []


async def test_sigterm_interrupts_running_sessions_and_exits(fake_sessions, make_app) -> None:
    import signal

    stored(fake_sessions, turns=1)
    fake_sessions.running.add(SID)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: app.view.synced)
        app.stop_for_signal(signal.SIGTERM)
        app.stop_for_signal(signal.SIGHUP)  # a second signal changes nothing
        await until(pilot, lambda: not app.is_running)
    assert app.stopped_by == signal.SIGTERM
    assert [c for c in fake_sessions.calls if c[0] == "interrupt"] == [("interrupt", SID, "shutdown")]


async def test_a_terminal_that_went_away_stops_the_app_as_a_hangup(fake_sessions, make_app) -> None:
    import signal

    app = make_app()
    async with app.run_test() as pilot:
        app.terminal_gone()
        await until(pilot, lambda: not app.is_running)
    assert app.stopped_by == signal.SIGHUP


async def test_a_store_that_will_not_open_keeps_typed_input_and_says_why(fake_sessions, clock) -> None:
    from textual.widgets import OptionList

    from agent_tui.tui.screens.picker import SessionPicker

    app = app_whose_core_fails(
        clock, RuntimeError("database /x/agent-tui.db is corrupt or not an agent-tui database (file is not a database)")
    )
    services = app.services
    async with app.run_test() as pilot:
        await until(pilot, lambda: services.core_error is not None)
        await pilot.press(*"hello", "enter")
        prompt = app.query_one(PromptInput)
        await until(pilot, lambda: prompt.text == "hello")  # given back, not swallowed by a wait
        messages = [str(n.message) for n in app._notifications]
        assert any(m.startswith("not sent: cannot open the session store: database /x/agent-tui.db") for m in messages)
        prompt.clear()
        await pilot.press("ctrl+r")
        await until(pilot, lambda: isinstance(app.screen, SessionPicker))
        picker = app.screen
        await until(pilot, lambda: picker.query_one(OptionList).option_count == 1)
        assert "corrupt" in str(picker.query_one(OptionList).get_option_at_index(0).prompt)
        await pilot.press("escape")
        await app.open_session(SID)  # e.g. a row the picker read from the file before the core failed
        await until(pilot, lambda: any("cannot open session" in str(n.message) for n in app._notifications))
        assert app.is_running and app.view.session_id is None


async def test_ctrl_c_copies_a_selection_and_keeps_the_text(fake_sessions, make_app) -> None:
    from textual.widgets.text_area import Selection

    app = make_app()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"copy this please")
        prompt.selection = Selection((0, 0), (0, 9))
        await pilot.press("ctrl+c")
        assert app.clipboard == "copy this"
        assert prompt.text == "copy this please" and app.is_running
        assert any(str(n.message) == "copied" for n in app._notifications)


async def test_picker_pages_through_more_sessions_than_one_query(fake_sessions, make_app) -> None:
    from agent_tui.tui.screens.picker import PAGE, SessionPicker

    for n in range(PAGE + 12):
        log = LogBuilder(session_id=f"ses_{n:03d}").created(location=LOCATION)
        log.now_ms += n * 1000
        log.turn(f"task {n}", "ok")
        fake_sessions.add_log(log)
    app = make_app(StartMode(picker=True))
    async with app.run_test() as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPicker) and len(app.screen.rows) == PAGE)
        picker = app.screen
        assert [c for c in fake_sessions.calls if c[0] == "list"][-1][3:] == (
            PAGE + 1,
            0,
        )  # one page (+1 to know if more)
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown", "pagedown")
        await until(pilot, lambda: len(picker.rows) == PAGE + 12)
        assert [c for c in fake_sessions.calls if c[0] == "list"][-1][3:] == (PAGE + 1, PAGE)
        assert picker.rows[0].id == f"ses_{PAGE + 11:03d}"  # newest first
        await pilot.press("enter")
        await until(pilot, lambda: app.view.session_id is not None)


async def test_a_patch_appears_as_a_diff_while_it_is_written(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        fake_sessions.delta(ev.ToolInputStarted(session_id=SID, assistant_message_id="m2", index=0, name="apply_patch"))
        fake_sessions.delta(
            ev.ToolInputDelta(
                session_id=SID,
                assistant_message_id="m2",
                index=0,
                delta='{"patch": "*** Begin Patch\\n*** Update File: a.py\\n@@\\n-old\\n+new',
            )
        )
        await until(
            pilot, lambda: app.query(ToolCallView) and app.query_one(ToolCallView).query_one(".tool-diff").display
        )
        await pilot.pause()  # the Static re-renders on the next refresh
        tool = app.query_one(ToolCallView)
        assert "+new" in str(tool.query_one(".tool-diff").render())
        assert "apply_patch  a.py" in str(tool.query_one(".tool-header").render())


async def test_keys_and_streamed_output_postpone_the_quiet_full_collection(fake_sessions, make_app, clock) -> None:
    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        quiet = app.services.quiet_gc
        clock.advance(5)
        assert quiet.last_busy_ms < clock.now_ms()
        await pilot.press("a")
        assert quiet.last_busy_ms == clock.now_ms()
        clock.advance(5)
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        await until(pilot, lambda: quiet.last_busy_ms == clock.now_ms())


async def test_ctrl_o_unfolds_every_detail_in_view_then_folds_them(fake_sessions, make_app) -> None:
    from textual.widgets import Collapsible

    log = LogBuilder(session_id=SID).created(location=LOCATION)
    log.add(ev.ExecutionStarted())
    log.prompt("build it")
    amid = log.step("msg_a")
    log.text(amid, "Thinking about the build.", reasoning=True)
    log.tool(amid, "c1", "bash", {"command": "make"}, output="built\n")
    log.end_step(amid)
    log.add(ev.ExecutionSucceeded())
    fake_sessions.add_log(log)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        await until(pilot, lambda: len(app.query(Collapsible)) == 2)
        folds = list(app.query(Collapsible))
        assert all(fold.collapsed for fold in folds)
        await pilot.press("ctrl+o")
        assert not any(fold.collapsed for fold in folds)
        assert app.query_one(PromptInput).has_focus  # the prompt keeps the keyboard
        await pilot.press("ctrl+o")
        assert all(fold.collapsed for fold in folds)


async def test_overlapping_repaints_never_paint_a_block_before_it_is_mounted(fake_sessions, make_app) -> None:
    """Textual runs timer callbacks in the timer's own task, so two flushes can overlap: the second
    must not paint the widget the first is still mounting (it crashed the app: no ``_spinner``)."""
    import asyncio

    async with opened(fake_sessions, make_app, running=True) as (app, pilot):
        view = app.query_one(TranscriptView)
        log = fake_sessions.logs[SID]  # add() without publish(): the app's feed does not see these
        for event in (
            ev.StepStarted(assistant_message_id="m2", agent="build", model="x"),
            ev.ToolCalled(assistant_message_id="m2", call_id="c1", name="bash", input={"command": "make"}),
        ):
            app.view.transcript.apply(log.add(event))  # folded, not yet painted
        await asyncio.gather(view.sync(), view.sync(), view.sync())
        tool = app.query_one(ToolCallView)
        await until(pilot, lambda: tool.has_class("-running"))


async def test_up_from_the_prompt_walks_the_numbered_strip_to_withdraw_steer_and_back(fake_sessions, make_app) -> None:
    log = stored(fake_sessions)
    log.prompt("first", delivery="queue", promote=False)
    log.prompt("second", delivery="queue", promote=False)
    log.prompt("third", delivery="queue", promote=False)
    fake_sessions.running.add(SID)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        strip = app.query_one(PendingInputStrip)
        await until(pilot, lambda: len(strip.items) == 3)
        assert [line.split()[:2] for line in str(strip.render()).splitlines()[:3]] == [
            ["1", "queued"],
            ["2", "queued"],
            ["3", "queued"],
        ]
        await pilot.press("up")  # the prompt is empty: its first line
        assert strip.has_focus and strip.current.text == "third"
        await pilot.press("up", "delete")
        await until(pilot, lambda: [p.text for p in strip.items] == ["first", "third"])
        assert ("withdraw", SID, "msg_user3") in fake_sessions.calls
        await pilot.press("up", "s")
        await until(
            pilot, lambda: [(p.text, p.delivery.value) for p in strip.items] == [("third", "queue"), ("first", "steer")]
        )
        assert fake_sessions.calls[-1][:4] == ("prompt", SID, "first", "steer")
        await pilot.press("escape")
        assert app.query_one(PromptInput).has_focus and strip.cursor is None
        assert ("interrupt", SID, "user") not in fake_sessions.calls  # Esc in the strip only left it


async def test_ctrl_up_and_down_reorder_queued_items_durably(fake_sessions, make_app) -> None:
    log = stored(fake_sessions)
    for text in ("first", "second", "third"):
        log.prompt(text, delivery="queue", promote=False)
    fake_sessions.running.add(SID)
    app = make_app(StartMode(session_id=SID))
    async with app.run_test() as pilot:
        strip = app.query_one(PendingInputStrip)
        await until(pilot, lambda: len(strip.items) == 3)
        await pilot.press("alt+up", "ctrl+up")
        await until(pilot, lambda: [p.text for p in strip.items] == ["first", "third", "second"])
        assert fake_sessions.calls[-1] == ("reorder_queue", SID, ["msg_user2", "msg_user4", "msg_user3"])
        assert strip.current.text == "third"  # the cursor moves with it
        await pilot.press("ctrl+up", "ctrl+up")  # the second press: already first, nothing to do
        await until(pilot, lambda: [p.text for p in strip.items] == ["third", "first", "second"])
        await pilot.press("ctrl+down")
        await until(pilot, lambda: [p.text for p in strip.items] == ["first", "third", "second"])
        assert [c[0] for c in fake_sessions.calls].count("reorder_queue") == 3


async def test_alt_letters_as_a_terminal_sends_them_run_their_bindings_and_type_nothing(
    fake_sessions, make_app
) -> None:
    """A terminal's Alt+P arrives as ESC P: Textual's key "alt+p" with the printable character "p"
    (Pilot's own press has no character, so it cannot show this). The prompt must not type it."""
    from textual import events

    async with opened(fake_sessions, make_app) as (app, pilot):
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.pause()
        for key in ("alt+p", "alt+t", "alt+w"):
            sent = events.Key(key, key[-1])  # what Textual's parser makes of ESC + letter
            sent.set_sender(app)
            assert app._driver is not None
            app._driver.send_message(sent)  # the way the terminal's keys (and Pilot's) come in
        await until(pilot, lambda: "queue paused" in status(app))
        assert fake_sessions.calls[-1] == ("pause_queue", SID, True)
        assert prompt.text == "", "an Alt binding typed its letter into the prompt"
        plain = events.Key("x", "x")
        plain.set_sender(app)
        app._driver.send_message(plain)  # a plain letter still types
        await until(pilot, lambda: prompt.text == "x")


async def test_alt_p_pauses_and_resumes_the_queue_and_the_status_bar_says_so(fake_sessions, make_app) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        await pilot.press("alt+p")
        await until(pilot, lambda: "queue paused" in status(app))
        assert fake_sessions.calls[-1] == ("pause_queue", SID, True)
        await pilot.press("alt+p")
        await until(pilot, lambda: "queue paused" not in status(app))
        assert fake_sessions.calls[-1] == ("pause_queue", SID, False)


async def test_a_prompt_given_at_launch_is_sent_once_the_app_is_up(fake_sessions, make_app) -> None:
    app = make_app(StartMode(prompt="what does this project do?"))
    async with app.run_test() as pilot:
        await until(pilot, lambda: any(c[0] == "prompt" for c in fake_sessions.calls))
        assert [c for c in fake_sessions.calls if c[0] == "prompt"] == [
            ("prompt", "ses_new1", "what does this project do?", "steer")
        ]
        assert app.query_one(PromptInput).text == ""


async def test_the_first_frame_shows_the_main_keys_before_the_footer_mounts(
    fake_sessions, make_app, monkeypatch
) -> None:
    async def no_footer(self, screen) -> None:  # noqa: ANN001 - the real one swaps the slot for Footer
        return None

    monkeypatch.setattr(AgentApp, "_mount_footer", no_footer)
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.pause()
        slot = str(app.query_one("#footer-slot").render())
        for key in ("esc interrupt", "^r sessions", "^n new", "f1 help"):
            assert key in slot, slot


async def test_a_code_line_wider_than_the_window_wraps_instead_of_being_clipped(fake_sessions, make_app) -> None:
    import html
    import re

    log = LogBuilder(session_id="ses_wide").created(location=LOCATION)
    wide = "x = compute(" + ", ".join(f"arg{n}" for n in range(40)) + ")  # END-OF-LINE"
    log.turn("show code", f"Here:\n\n```python\n{wide}\nprint(x)\n```\n\nDone.")
    fake_sessions.add_log(log)
    app = make_app(StartMode(session_id="ses_wide"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(blocks(app)) == 2)

        def screen() -> str:
            texts = re.findall(r"<text[^>]*>([^<]*)</text>", app.export_screenshot())
            return html.unescape("".join(t if t.strip() else " " for t in texts))

        await until(pilot, lambda: "Done." in screen())
        assert "END-OF-LINE" in screen() and "arg39" in screen()  # the line's end is on screen
