"""Coordinator semantics with a scripted drainer (the runner has its own tests)."""

from __future__ import annotations

import asyncio

import pytest

from agent_tui.core import events as ev
from agent_tui.core import lease
from agent_tui.core.coordinator import Coordinator
from agent_tui.vocab.error_info import ErrorInfo
from tests.fakes.executors import PublishRecorder, ScriptedDrainer


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
    drainer.release.set()
    assert await coordinator.wake("ses_a") is True
    await coordinator.run("ses_a")  # joins or re-runs; either way the first drain was unforced
    assert drainer.calls[0] == ("ses_a", False)


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
    _, recorder, coordinator = parts
    await coordinator.interrupt("ses_missing")
    assert recorder.events == []


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
