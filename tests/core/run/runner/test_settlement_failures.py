"""The store refuses a tool's settlement (disk full, locked database): no tool left running under a closed step
unless the store refuses that too, and then the next drain's sweep settles it; the user sees why."""

from __future__ import annotations

from typing import Any

from agent_tui.core.errors import DatabaseLocked
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, of_type, settle, stored

ECHO = {"tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"text": "pong"}}]}


def refuse(runtime: Runtime, refused: type | tuple[type, ...], times: int) -> list[str]:
    """The store raises ``DatabaseLocked`` for the next ``times`` writes holding a ``refused`` event."""
    store = runtime._store
    real_one, real_many, left, seen = store.publish, store.publish_many, [times], []

    def check(events: list[Any]) -> None:
        hit = [e for e in events if isinstance(e, refused)]
        if hit and left[0] > 0:
            left[0] -= 1
            seen.extend(e.TYPE for e in hit)
            raise DatabaseLocked(store.path, 5000)

    async def publish(session_id: str, event: Any) -> Any:
        check([event])
        return await real_one(session_id, event)

    async def publish_many(session_id: str, events: Any) -> Any:
        check(list(events))
        return await real_many(session_id, events)

    store.publish, store.publish_many = publish, publish_many  # type: ignore[method-assign]
    return seen


async def _run(runtime: Runtime, sid: str, text: str) -> None:
    await runtime.sessions.prompt(sid, text)
    await settle(runtime, sid)


def _tool_states(log: list[ev.StoredEvent]) -> list[str]:
    return [k for k in kinds(log) if k.startswith("tool.") or k.startswith("step.") or k.startswith("execution.")]


async def test_a_refused_success_is_settled_as_failed_with_the_reason_and_the_step_fails(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(ECHO, {"text": "never"})
    sid = (await runtime.sessions.create(location=workdir)).id
    refused = refuse(runtime, ev.ToolSucceeded, times=1)
    await _run(runtime, sid, "go")
    log = await stored(runtime, sid)
    assert refused == ["session.tool.success.1"]
    assert _tool_states(log) == [
        "execution.started",
        "step.started",
        "tool.called",
        "tool.failed",
        "step.failed",
        "execution.failed",
    ]
    [failed] = of_type(log, ev.ToolFailed)
    assert failed.error.type == "store.write" and "echo ran, but its result could not be saved" in failed.error.message
    assert "locked" in failed.error.message
    assert of_type(log, ev.StepFailed)[0].error == failed.error  # the user sees why the step stopped
    assert of_type(log, ev.ExecutionFailed)[0].error.type == "store.write"
    assert [c.state for c in await runtime._store.tool_calls(sid)] == ["failed"]
    assert fake.remaining == 1  # the model was not called again over an unrecorded result


async def test_a_tool_the_store_will_not_settle_is_settled_by_the_next_drain_sweep(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(ECHO, {"text": "after the sweep"})
    sid = (await runtime.sessions.create(location=workdir)).id
    refuse(runtime, (ev.ToolSucceeded, ev.ToolFailed), times=2)  # the settlement and its retry
    await _run(runtime, sid, "go")
    log = await stored(runtime, sid)
    assert _tool_states(log) == ["execution.started", "step.started", "tool.called", "step.failed", "execution.failed"]
    assert of_type(log, ev.StepFailed)[0].error.type == "store.write"
    assert [c.state for c in await runtime._store.tool_calls(sid)] == ["running"]

    await _run(runtime, sid, "again")  # the store writes again
    log = await stored(runtime, sid)
    [settled] = of_type(log, ev.ToolFailed)
    assert settled.call_id == "call_1" and settled.error.message == "Tool execution interrupted"
    after = kinds(log)[kinds(log).index("execution.failed") + 1 :]
    assert after.index("tool.failed") < after.index("step.started")  # swept before the next step
    assert kinds(log)[-1] == "execution.succeeded"
    assert [c.state for c in await runtime._store.tool_calls(sid)] == ["failed"]
