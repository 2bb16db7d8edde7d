"""The session feed without Textual: a recording view stands in for the ``SessionView``."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.core.api import events as ev
from agent_tui.tui import session_feed
from agent_tui.tui.block_keys import BlockKey
from agent_tui.tui.services import TuiServices
from agent_tui.tui.session_feed import SessionFeed
from agent_tui.tui.timings import Timings
from agent_tui.tui.transcript_blocks import TextBlock, UserBlock
from agent_tui.vocab.clock import ManualClock
from tests.fakes.logs import LogBuilder
from tests.fakes.pumps import FramePump
from tests.fakes.sessions import FakeSessions
from tests.fakes.views import RecordingFeedView
from tests.waiting import until

SID = "ses_feed"


@pytest.fixture
def fake_sessions() -> FakeSessions:
    return FakeSessions()


@pytest.fixture
async def opened(fake_sessions: FakeSessions):  # type: ignore[no-untyped-def]
    """``opened(session_id)`` -> (feed, view) following it; the feed's work stops after the test."""
    views: list[RecordingFeedView] = []

    def open_(session_id: str | None, flush_interval_s: float = 0.05) -> tuple[SessionFeed, RecordingFeedView]:
        services = TuiServices(
            sessions=fake_sessions,
            location="/tmp/project",
            clock=ManualClock(),
            timings=Timings(flush_interval_s=flush_interval_s),
        )
        view = RecordingFeedView()
        views.append(view)
        feed = SessionFeed(services, view)
        feed.open(session_id)
        feed.follow()
        return feed, view

    yield open_
    for view in views:
        view.stop()


def stored(fake_sessions: FakeSessions, turns: int = 1) -> LogBuilder:
    log = LogBuilder(session_id=SID).created()
    for n in range(turns):
        log.turn(f"question {n}", f"answer {n}")
    fake_sessions.add_log(log)
    return log


async def test_the_first_paint_shows_the_folded_log_once(fake_sessions, opened) -> None:
    stored(fake_sessions, turns=2)
    feed, view = opened(SID)
    await until(lambda: feed.synced)
    [(transcript, fetch_older)] = view.shown
    assert transcript is feed.transcript and fetch_older is None  # the whole log was folded
    assert [type(b) for b in transcript.blocks] == [UserBlock, TextBlock] * 2
    assert transcript.facts.title == "question 0"


async def test_a_burst_of_deltas_costs_one_repaint(fake_sessions, opened) -> None:
    stored(fake_sessions)
    fake_sessions.running.add(SID)
    feed, view = opened(SID)
    await until(lambda: feed.synced)
    fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
    fake_sessions.publish(SID, ev.TextStarted(assistant_message_id="m2", ordinal=0))
    await until(lambda: feed.transcript.get(BlockKey.fragment("m2", 0)) is not None and view.repaints)
    view.repaints.clear()
    for _ in range(1_000):
        fake_sessions.delta(ev.TextDelta(session_id=SID, assistant_message_id="m2", ordinal=0, delta="x"))
    await until(lambda: view.repaints)
    await asyncio.sleep(0.1)  # two flush intervals: nothing more was due
    assert view.repaints == [True]
    assert feed.transcript.get(BlockKey.fragment("m2", 0)).text == "x" * 1_000  # type: ignore[union-attr]


async def test_asks_waiting_in_other_running_sessions_are_counted(fake_sessions, opened) -> None:
    stored(fake_sessions)
    other = LogBuilder(session_id="ses_other").created()
    other.add(ev.PermissionAsked(request_id="perm_1", action="bash", resources=["make"]))
    fake_sessions.add_log(other)
    feed, view = opened(SID)
    await until(lambda: feed.synced)
    await feed.poll()
    assert feed.background_asks == 0  # not running: nothing waits there
    fake_sessions.running.add("ses_other")
    await feed.poll()
    assert feed.background_asks == 1 and view.repaints[-1] is False  # this session is idle


async def test_an_unknown_session_is_reported_and_the_feed_starts_afresh(fake_sessions, opened) -> None:
    feed, view = opened("ses_nope")
    await until(lambda: view.reports)
    assert view.reports[0].startswith("cannot open session ses_nope")
    assert feed.session_id is None and feed.synced and view.shown[-1][0] is feed.transcript


async def test_a_long_log_opens_at_its_end_and_folds_older_segments_on_demand(
    fake_sessions, opened, monkeypatch
) -> None:
    monkeypatch.setattr(session_feed, "TAIL_EVENTS", 30)
    monkeypatch.setattr(session_feed, "OLDER_EVENTS", 30)
    stored(fake_sessions, turns=12)  # 8 events a turn
    feed, view = opened(SID)
    await until(lambda: feed.synced)
    transcript, fetch_older = view.shown[-1]
    assert transcript.start_seq > 1 and fetch_older is not None
    newest = [b.text for b in transcript.blocks]  # type: ignore[attr-defined]
    assert newest[-1] == "answer 11" and "question 0" not in newest
    assert transcript.facts.input_tokens == 12 * 100  # the row's totals stand in for the unfolded prefix
    while transcript.start_seq > 1:
        assert await fetch_older() > 0
    assert [b.text for b in transcript.blocks][:2] == ["question 0", "answer 0"]  # type: ignore[attr-defined]


async def test_a_new_session_is_followed_once_its_first_prompt_names_it(fake_sessions, opened) -> None:
    feed, view = opened(None)
    assert feed.synced and view.tasks == []  # nothing to follow yet
    created = await fake_sessions.create(location="/tmp/project")
    feed.adopt(created.id)
    await fake_sessions.prompt(created.id, ev.text_prompt("hello"))
    await until(lambda: [p.text for p in feed.transcript.pending_inputs] == ["hello"])


async def test_output_waits_for_the_frame_of_a_key_and_then_repaints(fake_sessions, opened) -> None:
    stored(fake_sessions)
    fake_sessions.running.add(SID)
    feed, view = opened(SID)
    await until(lambda: feed.synced)
    view.repaints.clear()
    focused = FramePump()
    feed.services.keys_first.delivered(focused)  # a key on its way to the prompt
    looks = len(view.tasks)
    fake_sessions.delta(ev.TextDelta(session_id=SID, assistant_message_id="m1", ordinal=0, delta="more"))
    await until(lambda: len(view.tasks) >= looks + 5, "the due repaint to look again several times")
    assert view.repaints == []  # held back each time
    focused.paint()
    await until(lambda: view.repaints, "the repaint after the key's frame")
