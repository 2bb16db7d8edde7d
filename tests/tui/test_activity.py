"""Something moves while the model thinks: a spinner with the seconds since Enter, the streamed
tokens, then how long the turn took (issue 32). The state without Textual, then on screen."""

from __future__ import annotations

from agent_tui.core.api import events as ev
from agent_tui.tui.activity import Activity, duration, streamed_tokens
from agent_tui.tui.widgets.activity import ActivityLine
from agent_tui.vocab.kinds import InterruptReason

from .test_app import SID, opened, until
from .test_child_progress import app as real_app  # noqa: F401 - fixtures: the app over a real Runtime
from .test_child_progress import fake, runtime  # noqa: F401


def test_durations_read_as_a_person_says_them() -> None:
    assert [duration(ms) for ms in (0, 999, 12_400, 185_000, 3_725_000)] == ["0s", "0s", "12s", "3m 05s", "1h 02m"]
    assert [streamed_tokens(c) for c in (3, 400, 5_000)] == ["~0", "~100", "~1.2k"]


def test_a_turn_runs_from_enter_to_idle_and_says_how_long() -> None:
    turn = Activity()
    turn.begin(now_ms=1_000, ends=0, chars=0)
    turn.observe(active=False, now_ms=1_050, ends=0, chars=0)  # not running yet: still the same turn
    assert turn.spinning and (turn.line(4_100, 0) or "").endswith("thinking… 3s · Esc or Ctrl+C to interrupt")
    turn.observe(active=True, now_ms=2_000, ends=0, chars=0)
    assert "working… 9s · ↓ ~100 tokens" in (turn.line(10_000, 400) or "")
    turn.observe(active=False, now_ms=13_500, ends=1, chars=400)
    assert not turn.spinning and turn.line(20_000, 400) == "worked for 12s"


def test_a_turn_too_short_to_be_seen_running_ends_with_its_busy_period() -> None:
    turn = Activity()
    turn.begin(now_ms=0, ends=3, chars=0)
    turn.observe(active=False, now_ms=700, ends=4, chars=10)
    assert turn.line(800, 10) == "worked for 0s"


def test_a_prompt_not_sent_stops_the_spinner_and_a_new_session_forgets_the_last_turn() -> None:
    turn = Activity()
    turn.begin(now_ms=0, ends=0, chars=0)
    turn.cancel()
    assert turn.line(5_000, 0) is None
    turn.observe(active=True, now_ms=0, ends=0, chars=0)
    turn.observe(active=False, now_ms=2_000, ends=0, chars=0)
    assert turn.line(2_000, 0) == "worked for 2s"
    turn.reset()
    assert turn.line(2_000, 0) is None


def test_a_turn_first_seen_running_works_rather_than_thinks() -> None:
    """Opened while it runs (a tool, a subagent): not waiting for a first token of ours."""
    turn = Activity()
    turn.observe(active=True, now_ms=0, ends=0, chars=0)
    assert (turn.line(1_000, 0) or "").startswith("⠼ working… 1s")  # the frame follows the clock


def line(app) -> str:
    widget = app.query_one(ActivityLine)
    return str(widget.render()) if widget.display else ""


async def test_the_line_spins_with_the_clock_counts_streamed_tokens_then_says_how_long(
    fake_sessions, make_app, clock
) -> None:
    async with opened(fake_sessions, make_app) as (app, pilot):
        assert line(app) == ""  # idle, no turn yet: the line takes no row
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: "thinking… 0s" in line(app))
        fake_sessions.running.add(SID)  # the runner takes it
        clock.advance(7)
        await until(pilot, lambda: "thinking… 7s" in line(app))  # the widget's own timer repaints it
        fake_sessions.publish(SID, ev.StepStarted(assistant_message_id="m2", agent="build", model="x"))
        fake_sessions.publish(SID, ev.TextStarted(assistant_message_id="m2", ordinal=0))
        fake_sessions.delta(ev.TextDelta(session_id=SID, assistant_message_id="m2", ordinal=0, delta="x" * 800))
        await until(pilot, lambda: "working… 7s · ↓ ~200 tokens" in line(app))
        clock.advance(5)
        fake_sessions.running.discard(SID)
        fake_sessions.publish(SID, ev.ExecutionInterrupted(reason=InterruptReason.USER))
        await until(pilot, lambda: line(app) == "worked for 12s")
        widget = app.query_one(ActivityLine)
        assert widget.has_class("-done") and widget._timer is None  # idle: no timer left running


async def test_a_prompt_that_could_not_be_sent_leaves_nothing_spinning(fake_sessions, make_app) -> None:
    async def refused(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the store is read-only")

    async with opened(fake_sessions, make_app) as (app, pilot):
        fake_sessions.prompt = refused  # type: ignore[method-assign]
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: any("not sent" in str(n.message) for n in app._notifications))
        await until(pilot, lambda: line(app) == "")


async def test_against_the_runtime_the_spinner_waits_for_the_first_token_then_the_turn_is_timed(
    real_app, routes, fake, clock
) -> None:
    """A real runner and the fake provider holding its answer: from Enter the line counts seconds
    (the app's clock, so no test waits for them); once the answer is in, it says how long it took."""
    routes.add("SLOW", {"text": "here it is", "hold": True})
    async with real_app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"SLOW: answer", "enter")
        await fake.wait_for("held", timeout=30)
        await until(pilot, lambda: "thinking… 0s" in line(real_app))
        clock.advance(3)
        await until(pilot, lambda: "thinking… 3s" in line(real_app))
        fake.release()
        await until(pilot, lambda: line(real_app) == "worked for 3s", timeout=30)
