"""Retries, provider failures, content filter, interrupts: the stored log tells."""

from __future__ import annotations

import asyncio

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock

from .conftest import kinds, of_type, settle, stored

RATE = {"error": {"status": 429, "kind": "rate_limit", "retry_after": 5}}
BUSY = {"error": {"status": 500, "kind": "internal"}}


async def _run(runtime: Runtime, workdir, text: str = "go") -> str:
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, text)
    await settle(runtime, sid)
    return sid


async def test_retry_backs_off_raised_to_retry_after_and_reuses_the_message(
    runtime: Runtime, fake: FakeProvider, clock: ManualClock, workdir
) -> None:
    fake.add(RATE, BUSY, BUSY, BUSY, {"text": "finally"})
    sid = await _run(runtime, workdir)
    log = await stored(runtime, sid)
    assert clock.sleeps == [5.0, 4.0, 8.0, 16.0]  # 2 s doubling, the first raised to retry-after
    started = of_type(log, ev.StepStarted)
    assert [s.attempt for s in started] == [1, 2, 3, 4, 5]
    assert len({s.assistant_message_id for s in started}) == 1
    scheduled = of_type(log, ev.RetryScheduled)
    assert [r.attempt for r in scheduled] == [2, 3, 4, 5]
    assert scheduled[0].error.type == "provider.rate-limit"
    assert kinds(log).count("step.ended") == 1 and "step.failed" not in kinds(log)
    messages = await runtime._store.messages(sid)
    assert [m.kind for m in messages] == ["user", "assistant"]  # no empty retry messages
    assert messages[1].data["retry"] is None


async def test_five_attempts_at_most(runtime: Runtime, fake: FakeProvider, clock: ManualClock, workdir) -> None:
    fake.add(BUSY, BUSY, BUSY, BUSY, BUSY, {"text": "never reached"})
    sid = await _run(runtime, workdir)
    log = await stored(runtime, sid)
    assert len(of_type(log, ev.StepStarted)) == 5
    failed = of_type(log, ev.StepFailed)
    assert len(failed) == 1 and failed[0].error.type == "provider.internal"
    assert kinds(log)[-1] == "execution.failed"
    assert fake.remaining == 1


async def test_no_retry_after_output(runtime: Runtime, fake: FakeProvider, clock: ManualClock, workdir) -> None:
    fake.add(
        {"text": "partial answer here", "chunks": 6, "fail": {"after": 3, "kind": "overloaded"}}, {"text": "never"}
    )
    sid = await _run(runtime, workdir)
    log = await stored(runtime, sid)
    assert clock.sleeps == []
    ended = of_type(log, ev.TextEnded)
    assert len(ended) == 1 and ended[0].text and "partial answer here".startswith(ended[0].text)
    assert kinds(log).index("text.ended") < kinds(log).index("step.failed")
    assert kinds(log)[-1] == "execution.failed"


async def test_non_retryable_errors_are_not_retried(
    runtime: Runtime, fake: FakeProvider, clock: ManualClock, workdir
) -> None:
    fake.add({"error": {"status": 401, "kind": "auth"}}, {"text": "never"})
    sid = await _run(runtime, workdir)
    log = await stored(runtime, sid)
    assert clock.sleeps == [] and len(of_type(log, ev.StepStarted)) == 1
    assert of_type(log, ev.StepFailed)[0].error.type == "provider.auth"


async def test_content_filter_fails_the_step_and_keeps_partial_text(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({"text": "I was saying", "finish": "content_filter"}, {"text": "never"})
    sid = await _run(runtime, workdir)
    log = await stored(runtime, sid)
    assert of_type(log, ev.TextEnded)[0].text == "I was saying"
    failed = of_type(log, ev.StepFailed)
    assert len(failed) == 1 and failed[0].error.type == "provider.content-filter"
    assert "step.ended" not in kinds(log) and fake.remaining == 1


async def test_stream_failure_after_a_tool_call_settles_the_tool_first(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    # The first call is complete once the second starts; then the connection drops.
    fake.add(
        {
            "tool_calls": [
                {"id": "call_1", "name": "sleep", "arguments": {"ms": 50}},
                {"id": "call_2", "name": "echo", "arguments": {"text": "never finished"}, "chunks": 4},
            ],
            "fail": {"after": 2, "mode": "drop"},
        },
        {"text": "never: the run stops at the failed step"},
    )
    sid = await _run(runtime, workdir)
    log = await stored(runtime, sid)
    assert [c.call_id for c in of_type(log, ev.ToolCalled)] == ["call_1"]
    order = kinds(log)
    assert order[order.index("step.started") :] == [
        "step.started",
        "tool.called",
        "tool.success",
        "step.failed",
        "execution.failed",
    ]
    assert of_type(log, ev.StepFailed)[0].error.type == "provider.transport"
    assert fake.remaining == 1  # no retry after durable output, no continuation step


async def test_interrupt_mid_text_closes_the_fragment_with_partial_text(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({"text": "a b c d e f g h i j k l m n o p", "chunks": 16, "delay_ms": 100})
    sid = (await runtime.sessions.create(location=workdir)).id
    with runtime.sessions.subscribe(sid) as sub:
        await runtime.sessions.prompt(sid, "go")
        while not isinstance(await asyncio.wait_for(sub.get(), 5), ev.TextDelta):
            pass
    await runtime.sessions.interrupt(sid)
    log = await stored(runtime, sid)
    text = of_type(log, ev.TextEnded)
    assert len(text) == 1 and text[0].text and len(text[0].text) < len("a b c d e f g h i j k l m n o p")
    assert kinds(log)[-3:] == ["text.ended", "step.failed", "execution.interrupted"]
    assert of_type(log, ev.StepFailed)[0].error.type == "aborted"
    assert of_type(log, ev.ExecutionInterrupted)[0].reason == "user"
