"""Coordinator semantics with a scripted drainer (the runner has its own tests)."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.core.errors import StaleFence
from agent_tui.core.log import events as ev
from agent_tui.core.run import lease
from agent_tui.core.run.coordinator import Coordinator
from agent_tui.core.store import fence
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import InterruptReason
from tests.fakes.executors import PublishRecorder, ScriptedDrainer, ScriptedTenure
from tests.waiting import until


@pytest.fixture
def parts() -> tuple[ScriptedDrainer, PublishRecorder, Coordinator]:
    drainer, recorder = ScriptedDrainer(), PublishRecorder()
    return drainer, recorder, Coordinator(drainer, recorder)


async def test_concurrent_resumes_join_one_drain(parts) -> None:
    drainer, recorder, coordinator = parts
    first = asyncio.create_task(coordinator.run("ses_a"))
    second = asyncio.create_task(coordinator.run("ses_a"))
    await drainer.started.wait()
    assert coordinator.active() == {"ses_a": {"type": "running"}}
    drainer.release.set()
    assert await asyncio.gather(first, second) == [None, None]
    assert drainer.calls == [("ses_a", True)]
    assert recorder.types() == ["started", "succeeded"]
    assert coordinator.active() == {}


async def test_wake_while_idle_starts_an_unforced_drain(parts) -> None:
    drainer, recorder, coordinator = parts
    assert await coordinator.wake("ses_a") is True
    await drainer.started.wait()
    joined = asyncio.create_task(coordinator.run("ses_a"))  # a run while the wake's drain runs joins it
    await asyncio.sleep(0)
    assert not joined.done() and drainer.calls == [("ses_a", False)]  # unforced, and not re-run
    drainer.release.set()
    assert await joined is None
    assert drainer.calls == [("ses_a", False)] and recorder.types() == ["started", "succeeded"]


async def test_a_wake_after_shutdown_starts_nothing(parts) -> None:
    drainer, recorder, coordinator = parts
    await coordinator.shutdown()
    assert await coordinator.wake("ses_a") is False  # a cluster host adopting a lease while it closes
    assert coordinator.active() == {} and drainer.calls == [] and recorder.types() == []


async def test_wakes_coalesce_into_one_follow_up(parts) -> None:
    drainer, recorder, coordinator = parts
    await coordinator.wake("ses_a")
    await drainer.started.wait()
    for _ in range(5):
        await coordinator.wake("ses_a")
    drainer.release.set()
    await coordinator.run("ses_a")
    while coordinator.active():
        await asyncio.sleep(0)
    assert drainer.calls == [("ses_a", False), ("ses_a", False)]
    assert recorder.types() == ["started", "succeeded"]


async def test_interrupt_when_idle_is_a_noop(parts) -> None:
    drainer, recorder, coordinator = parts
    await coordinator.interrupt("ses_missing")
    assert recorder.events == []
    drainer.release.set()
    assert await coordinator.run("ses_missing") is None  # the idle interrupt is not kept for a later run
    assert recorder.types("ses_missing") == ["started", "succeeded"]


async def test_interrupt_cancels_clears_follow_up_and_waits_for_terminal_event(parts) -> None:
    drainer, recorder, coordinator = parts
    await coordinator.wake("ses_a")
    await drainer.started.wait()
    await coordinator.wake("ses_a")  # a follow-up that the interrupt must clear
    await coordinator.interrupt("ses_a")
    assert recorder.types() == ["started", "interrupted"]
    assert drainer.cancelled == 1
    assert coordinator.active() == {}
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(drainer.calls) == 1


async def test_failed_drain_is_one_failed_execution(parts) -> None:
    drainer, recorder, coordinator = parts
    error = ErrorInfo(type="provider.auth", message="bad key")
    drainer.results = [error]
    drainer.release.set()
    assert await coordinator.run("ses_a") == error
    assert recorder.types() == ["started", "failed"]


async def test_different_sessions_drain_concurrently(parts) -> None:
    drainer, recorder, coordinator = parts
    await coordinator.wake("ses_a")
    await coordinator.wake("ses_b")
    for _ in range(5):
        await asyncio.sleep(0)
    assert set(coordinator.active()) == {"ses_a", "ses_b"}
    drainer.release.set()
    await asyncio.gather(coordinator.run("ses_a"), coordinator.run("ses_b"))
    assert {s for s, _ in drainer.calls} == {"ses_a", "ses_b"}


async def test_a_session_owned_elsewhere_is_not_drained(parts) -> None:
    drainer, recorder, _ = parts
    held = await lease.acquire("ses_a")  # another open file description = another owner
    try:
        coordinator = Coordinator(drainer, recorder)
        with pytest.raises(lease.SessionOwnedElsewhere, match="ses_a"):
            await coordinator.run("ses_a")
        assert await coordinator.wake("ses_a") is False
        assert drainer.calls == [] and recorder.events == []
        assert lease.current_owner("ses_a")["pid"] > 0
    finally:
        held.release()
    assert lease.current_owner("ses_a") is None


async def test_input_left_by_another_process_while_finishing_is_picked_up() -> None:
    drainer, recorder = ScriptedDrainer(), PublishRecorder()
    drainer.release.set()
    pending = {"ses_a": [True]}

    async def has_pending(session_id: str) -> bool:
        return bool(pending[session_id] and pending[session_id].pop())

    coordinator = Coordinator(drainer, recorder, has_pending=has_pending)
    await coordinator.run("ses_a")
    for _ in range(20):
        await asyncio.sleep(0)
    while coordinator.active():
        await asyncio.sleep(0)
    assert drainer.calls == [("ses_a", True), ("ses_a", False)]
    assert recorder.types() == ["started", "succeeded", "started", "succeeded"]


@pytest.fixture
async def session_store(store, tmp_path):
    """The real store with ``ses_a`` created (lifecycle events need their session)."""
    await store.publish("ses_a", ev.SessionCreated(location=str(tmp_path), project_root=str(tmp_path)))
    return store


async def lifecycle(store) -> list[str]:
    """The stored ``session.execution.*`` event kinds of ``ses_a``."""
    return [
        e.type.removeprefix("session.execution.").removesuffix(".1")
        for e in await store.events("ses_a", limit=None)
        if e.type.startswith("session.execution.")
    ]


async def test_a_wake_during_interrupt_cleanup_starts_a_successor_drain(parts) -> None:
    drainer, recorder, coordinator = parts
    drainer.cleanup = asyncio.Event()
    await coordinator.wake("ses_a")
    await drainer.started.wait()
    await coordinator.wake("ses_a")  # registered before the interrupt: cleared by it
    interrupting = asyncio.create_task(coordinator.interrupt("ses_a"))
    await drainer.cleaning.wait()
    await coordinator.wake("ses_a")  # registered after the interrupt: new work, kept
    drainer.release.set()
    drainer.cleanup.set()
    await interrupting
    await until(lambda: len(drainer.calls) == 2 and not coordinator.active())
    assert drainer.calls == [("ses_a", False), ("ses_a", False)]
    assert recorder.types() == ["started", "interrupted", "started", "succeeded"]


async def test_an_interrupt_while_succeeded_is_published_adds_no_second_terminal(parts) -> None:
    drainer, recorder, coordinator = parts
    entered, release = recorder.hold("succeeded")
    drainer.release.set()
    running = asyncio.create_task(coordinator.run("ses_a"))
    await entered.wait()
    release.set()  # the write landed; its acknowledgement is on its way when...
    await coordinator.interrupt("ses_a")  # ...the interrupt lands
    assert await running is None
    assert recorder.types() == ["started", "succeeded"]
    assert coordinator.active() == {}


async def test_an_interrupt_during_a_real_succeeded_write_adds_no_second_terminal(session_store) -> None:
    """The same race against the store: a cancelled awaiter does not undo a write in flight."""
    drainer = ScriptedDrainer()
    drainer.release.set()
    writing = asyncio.Event()

    async def publish(session_id: str, event: ev.DurableEvent) -> None:
        write = asyncio.ensure_future(session_store.publish(session_id, event))
        if isinstance(event, ev.ExecutionSucceeded):
            writing.set()
        await write

    coordinator = Coordinator(drainer, publish)
    running = asyncio.create_task(coordinator.run("ses_a"))
    await asyncio.wait_for(writing.wait(), 5)
    await coordinator.interrupt("ses_a")
    await running
    assert await lifecycle(session_store) == ["started", "succeeded"]


async def test_a_cancelled_joiner_does_not_cancel_the_run_it_joined(parts) -> None:
    drainer, recorder, coordinator = parts
    first = asyncio.create_task(coordinator.run("ses_a"))
    await drainer.started.wait()
    joiner = asyncio.create_task(coordinator.run("ses_a"))
    await asyncio.sleep(0)  # one loop turn: the joiner reaches its wait on the busy period
    joiner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await joiner
    assert coordinator.is_active("ses_a") and drainer.cancelled == 0
    drainer.release.set()
    assert await first is None
    assert recorder.types() == ["started", "succeeded"]


async def test_a_starter_cancelled_while_taking_the_lease_leaves_the_run_going_and_no_lease_behind() -> None:
    drainer, recorder = ScriptedDrainer(), PublishRecorder()
    drainer.release.set()
    asked, granted = asyncio.Event(), asyncio.Event()

    async def acquire(session_id: str) -> lease.Lease:
        asked.set()
        await granted.wait()
        return await lease.acquire(session_id)

    coordinator = Coordinator(drainer, recorder, acquire_lease=acquire)
    starter = asyncio.create_task(coordinator.run("ses_a"))
    await asked.wait()
    joiner = asyncio.create_task(coordinator.run("ses_a"))
    starter.cancel()
    granted.set()
    with pytest.raises(asyncio.CancelledError):
        await starter
    assert await joiner is None
    assert recorder.types() == ["started", "succeeded"]
    assert lease.current_owner("ses_a") is None


async def test_a_starter_cancelled_inside_the_real_lease_take_leaves_no_lease_held(parts) -> None:
    drainer, recorder, coordinator = parts
    drainer.release.set()
    starter = asyncio.create_task(coordinator.run("ses_a"))
    await asyncio.sleep(0)  # one loop turn: the flock is being taken in a thread
    starter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starter
    await until(lambda: not coordinator.active())
    assert await Coordinator(drainer, recorder).run("ses_a") is None  # not "owned elsewhere" by ourselves
    assert recorder.types() == ["started", "succeeded", "started", "succeeded"]


@pytest.mark.parametrize("when", ["during the drain", "while failed is published"])
async def test_a_wake_racing_a_failed_drain_gives_one_follow_up_drain(parts, when: str) -> None:
    drainer, recorder, coordinator = parts
    drainer.results = [ErrorInfo(type="provider.auth", message="bad key")]
    entered, release = recorder.hold("failed")
    await coordinator.wake("ses_a")
    await drainer.started.wait()
    if when == "during the drain":
        await coordinator.wake("ses_a")
        await coordinator.wake("ses_a")
    drainer.release.set()
    await entered.wait()
    if when != "during the drain":
        await coordinator.wake("ses_a")
        await coordinator.wake("ses_a")
    release.set()
    await until(lambda: len(drainer.calls) == 2 and not coordinator.active())
    assert drainer.calls == [("ses_a", False), ("ses_a", False)]
    assert recorder.types() == ["started", "failed", "started", "succeeded"]


async def test_a_drain_that_raises_is_one_failed_execution(session_store) -> None:
    drainer = ScriptedDrainer()
    drainer.results = [KeyError("step")]
    drainer.release.set()
    coordinator = Coordinator(drainer, session_store.publish)
    result = await coordinator.run("ses_a")
    assert result is not None and result.type == "internal" and "KeyError" in result.message
    assert coordinator.active() == {}
    assert await lifecycle(session_store) == ["started", "failed"]
    assert (await session_store.events("ses_a", limit=None))[-1].event.error == result


async def test_a_run_after_an_idle_interrupt_is_not_interrupted(parts) -> None:
    drainer, recorder, coordinator = parts
    await coordinator.interrupt("ses_a")
    drainer.release.set()
    assert await coordinator.run("ses_a") is None
    assert recorder.types() == ["started", "succeeded"] and drainer.cancelled == 0


async def test_an_interrupt_while_started_is_published_ends_the_period_before_any_drain(parts) -> None:
    drainer, recorder, coordinator = parts
    entered, release = recorder.hold("started")
    running = asyncio.create_task(coordinator.run("ses_a"))
    await entered.wait()
    release.set()
    await coordinator.interrupt("ses_a")
    result = await running
    assert result is not None and result.type == "aborted"
    assert recorder.types() == ["started", "interrupted"]
    assert drainer.calls == [] and coordinator.active() == {}


async def test_a_late_input_check_that_finds_a_period_running_leaves_it_to_that_period() -> None:
    """Period 1 ends and asks, in the background, whether another process left input. Before the
    answer comes, this process's own prompt starts period 2 (which drains that input). The late
    check must not register a follow-up on period 2: it would add an empty third period after it."""
    drainer, recorder = ScriptedDrainer(), PublishRecorder()
    drainer.release.set()
    asked, answer = asyncio.Event(), asyncio.Event()

    async def has_pending(session_id: str) -> bool:
        asked.set()
        await answer.wait()
        return True

    coordinator = Coordinator(drainer, recorder, has_pending=has_pending)
    await coordinator.run("ses_a")
    await asyncio.wait_for(asked.wait(), 5)  # period 1's late-input check is waiting on the store
    drainer.release.clear()
    drainer.results = [ErrorInfo(type="provider.context-overflow", message="too long")]
    await coordinator.wake("ses_a")  # period 2, as a prompt admitted here starts it
    await until(lambda: len(drainer.calls) == 2)
    answer.set()
    for _ in range(20):
        await asyncio.sleep(0)
    drainer.release.set()
    await until(lambda: not coordinator.active())
    for _ in range(20):
        await asyncio.sleep(0)
    assert drainer.calls == [("ses_a", True), ("ses_a", False)]
    assert recorder.types() == ["started", "succeeded", "started", "failed"]


@pytest.mark.parametrize("entry", ["run", "resume"])
async def test_a_run_during_interrupt_cleanup_starts_a_fresh_drain_after_it(parts, entry: str) -> None:
    """An explicit run that arrives while an interrupt is still cleaning up does not join the
    dying period (and end as aborted): it waits for the cleanup, then drains afresh."""
    drainer, recorder, coordinator = parts
    drainer.cleanup = asyncio.Event()
    await coordinator.wake("ses_a")
    await drainer.started.wait()
    interrupting = asyncio.create_task(coordinator.interrupt("ses_a"))
    await drainer.cleaning.wait()
    running = asyncio.create_task(getattr(coordinator, entry)("ses_a"))
    await asyncio.sleep(0)
    assert not running.done()  # it waits for the cleanup
    drainer.release.set()
    drainer.cleanup.set()
    await interrupting
    assert await running in (None, True)
    await until(lambda: len(drainer.calls) == 2 and not coordinator.active())
    assert drainer.calls == [("ses_a", False), ("ses_a", True)]
    assert recorder.types() == ["started", "interrupted", "started", "succeeded"]


async def test_a_period_under_a_fenced_lease_carries_its_token_on_every_publish() -> None:
    drainer, recorder = ScriptedDrainer(), PublishRecorder()
    tenures: list[ScriptedTenure] = []

    async def acquire(session_id: str) -> ScriptedTenure:
        tenures.append(ScriptedTenure(session_id, 40 + len(tenures)))
        return tenures[-1]

    coordinator = Coordinator(drainer, recorder, acquire_lease=acquire)
    drainer.release.set()
    assert await coordinator.run("ses_a") is None
    assert await coordinator.run("ses_a") is None
    assert recorder.types() == ["started", "succeeded", "started", "succeeded"]
    assert recorder.fences == [40, 40, 41, 41]
    assert [t.closed for t in tenures] == [True, True] and fence.current() is None


async def test_a_lost_lease_stops_the_drain_as_superseded_and_publishes_nothing_more() -> None:
    drainer, recorder = ScriptedDrainer(), PublishRecorder()
    tenure = ScriptedTenure("ses_a", 7)

    async def acquire(session_id: str) -> ScriptedTenure:
        return tenure

    coordinator = Coordinator(drainer, recorder, acquire_lease=acquire, has_pending=lambda _sid: _true())
    running = asyncio.create_task(coordinator.run("ses_a"))
    await drainer.started.wait()
    await coordinator.wake("ses_a")  # a follow-up: the new owner's to drain, not ours
    tenure.lose()
    error = await running
    assert error is not None and error.message == "interrupted (superseded)"
    assert drainer.cancelled == 1 and tenure.closed
    assert recorder.types() == ["started"]  # no terminal event: another owner writes the session now
    await asyncio.sleep(0)  # (a successor would be scheduled by now)
    assert coordinator.active() == {} and drainer.calls == [("ses_a", True)]


async def test_a_write_refused_inside_the_drain_stops_it_too() -> None:
    drainer, recorder = ScriptedDrainer(), PublishRecorder()

    async def acquire(session_id: str) -> ScriptedTenure:
        return ScriptedTenure(session_id, 7)

    async def refused_write(token: int | None) -> None:
        raise StaleFence("ses_a", token or 0)  # what the database answers a token another host retired

    drainer.during = lambda: fence.fenced("ses_a", refused_write)
    coordinator = Coordinator(drainer, recorder, acquire_lease=acquire)
    running = asyncio.create_task(coordinator.run("ses_a"))
    error = await running
    assert error is not None and error.message == "interrupted (superseded)"
    assert recorder.types() == ["started"]


async def test_an_interrupt_of_a_session_not_running_here_goes_to_its_owner(parts) -> None:
    drainer, recorder, _ = parts
    asked: list[tuple[str, str]] = []

    async def elsewhere(session_id: str, reason: InterruptReason) -> None:
        asked.append((session_id, reason))

    coordinator = Coordinator(drainer, recorder, interrupt_elsewhere=elsewhere)
    await coordinator.interrupt("ses_b", "shutdown")
    assert asked == [("ses_b", InterruptReason.SHUTDOWN)] and recorder.events == []


async def _true() -> bool:
    return True
