"""Eager concurrent tools, settlement order, tool errors the model can read."""

from __future__ import annotations

import asyncio

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, of_type, settle, stored


def _tool_results(body: dict) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}


async def test_tools_start_eagerly_run_concurrently_and_settle_before_step_end(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(
        {
            "tool_calls": [
                {"id": "call_a", "name": "sleep", "arguments": {"ms": 300, "label": "a"}},
                {"id": "call_b", "name": "sleep", "arguments": {"ms": 300, "label": "b"}},
            ]
        },
        {"text": "both slept"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "sleep twice")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    done = {e.call_id: e.output.data for e in of_type(log, ev.ToolSucceeded)}
    a, b = done["call_a"], done["call_b"]
    assert a["started"] < b["ended"] and b["started"] < a["ended"], "the two tools overlapped in time"
    first_step = kinds(log)[: kinds(log).index("step.ended") + 1]
    assert first_step.count("tool.success") == 2
    assert first_step.index("tool.called") < first_step.index("tool.success")


async def test_call_ids_may_repeat_across_steps(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add(
        {"tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"text": "one"}}]},
        {"tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"text": "two"}}]},
        {"text": "done"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "go")
    await settle(runtime, sid)
    calls = await runtime._store.tool_calls(sid)
    assert [(c.call_id, c.output["text"]) for c in calls] == [("call_1", "one"), ("call_1", "two")]
    assert len({c.assistant_message_id for c in calls}) == 2
    log = await stored(runtime, sid)
    assert kinds(log)[-1] == "execution.succeeded", [e.event for e in log[-3:]]


async def test_unknown_tool_and_tool_exception_go_back_to_the_model(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(
        {
            "tool_calls": [
                {"id": "call_x", "name": "teleport", "arguments": {}},
                {"id": "call_y", "name": "boom", "arguments": {"message": "kaput"}},
                {"id": "call_z", "name": "echo", "arguments": "{not json"},
            ]
        },
        {"text": "recovered"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "try things")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    errors = {e.call_id: e.error for e in of_type(log, ev.ToolFailed)}
    assert errors["call_x"].type == "tool.unknown" and "teleport" in errors["call_x"].message
    assert errors["call_y"].type == "tool.execution" and "kaput" in errors["call_y"].message
    assert errors["call_z"].type == "tool.input"
    results = _tool_results(fake.accepted[1].body)
    assert "teleport" in results["call_x"] and "kaput" in results["call_y"] and results["call_z"]
    assert kinds(log)[-1] == "execution.succeeded"


async def test_two_sessions_drain_concurrently(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({"text": "slow one", "hold": True}, {"text": "slow two", "hold": True})
    first = (await runtime.sessions.create(location=workdir)).id
    second = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(first, "a")
    await runtime.sessions.prompt(second, "b")
    await fake.wait_for("held", 2)
    assert set(runtime.sessions.active()) == {first, second}
    fake.release(2)
    await asyncio.gather(settle(runtime, first), settle(runtime, second))
    for sid in (first, second):
        assert kinds(await stored(runtime, sid))[-1] == "execution.succeeded"
