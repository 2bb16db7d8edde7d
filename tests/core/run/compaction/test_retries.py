"""Transient provider errors during a compaction: retried like a step's, never after summary text."""

from __future__ import annotations

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from .conftest import of_type, settle, stored
from .helpers import SUMMARY, echo


async def _compact_after_one_turn(runtime: Runtime, workdir) -> tuple[str, str]:  # noqa: ANN001
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "one")
    await settle(runtime, sid)
    receipt = await runtime.sessions.compact(sid)
    await settle(runtime, sid)
    return sid, receipt.input_id


async def test_rate_limits_and_server_errors_before_the_summary_are_retried(
    runtime: Runtime, fake: FakeProvider, clock: ManualClock, workdir
) -> None:
    fake.add(
        echo("call_1", "pong"),
        {"text": "answer one"},
        {"error": {"status": 429, "retry_after": 3}},
        {"error": {"status": 500, "kind": "internal"}},
        {"text": SUMMARY, "chunks": 4},
    )
    sid, barrier = await _compact_after_one_turn(runtime, workdir)
    log = await stored(runtime, sid)
    ended = of_type(log, ev.CompactionEnded)
    assert len(ended) == 1 and ended[0].input_id == barrier and not of_type(log, ev.CompactionFailed)
    assert len(of_type(log, ev.CompactionStarted)) == 1  # one divider, however many attempts
    assert clock.sleeps == [3.0, 4.0]  # retry-after raised the first wait; then 2 s * 2
    assert fake.remaining == 0


async def test_a_failure_after_summary_text_has_streamed_is_final(
    runtime: Runtime, fake: FakeProvider, clock: ManualClock, workdir
) -> None:
    fake.add(
        echo("call_1", "pong"),
        {"text": "answer one"},
        {"text": SUMMARY, "chunks": 6, "fail": {"after": 2, "mode": "error_event", "kind": "overloaded"}},
        {"text": SUMMARY},
    )
    sid, barrier = await _compact_after_one_turn(runtime, workdir)
    failed = of_type(await stored(runtime, sid), ev.CompactionFailed)
    assert [(f.input_id, f.error.type.startswith("provider.")) for f in failed] == [(barrier, True)]
    assert clock.sleeps == [] and fake.remaining == 1


@pytest.mark.parametrize("settings_overrides", [{"retry": {"max_retries": 1}}])
async def test_retries_stop_at_the_configured_limit(
    runtime: Runtime, fake: FakeProvider, clock: ManualClock, workdir
) -> None:
    fake.add(
        echo("call_1", "pong"),
        {"text": "answer one"},
        {"error": {"status": 503, "kind": "overloaded"}},
        {"error": {"status": 503, "kind": "overloaded"}},
        {"text": SUMMARY},
    )
    sid, barrier = await _compact_after_one_turn(runtime, workdir)
    failed = of_type(await stored(runtime, sid), ev.CompactionFailed)
    assert [f.input_id for f in failed] == [barrier] and len(clock.sleeps) == 1 and fake.remaining == 1


async def test_an_error_that_is_not_transient_is_not_retried(
    runtime: Runtime, fake: FakeProvider, clock: ManualClock, workdir
) -> None:
    fake.add(
        echo("call_1", "pong"), {"text": "answer one"}, {"error": {"status": 401, "kind": "auth"}}, {"text": SUMMARY}
    )
    sid, _ = await _compact_after_one_turn(runtime, workdir)
    failed = of_type(await stored(runtime, sid), ev.CompactionFailed)
    assert [f.error.type for f in failed] == ["provider.auth"] and clock.sleeps == [] and fake.remaining == 1
