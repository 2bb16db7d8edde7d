"""Permission asks during a run: durable asks, replies from the facade, and what each reply does."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.clock import ManualClock
from agent_tui.vocab.kinds import TOOL_INTERRUPTED

from .conftest import kinds, of_type, settle, stored


@pytest.fixture
async def asking_runtime(open_runtime: Any, clock: ManualClock) -> AsyncIterator[Runtime]:
    """Real tools (bash asks by default), no headless policy: someone must reply."""
    async with await open_runtime(tools="all", clock=clock) as opened:
        yield opened


async def _asked(runtime: Runtime, sid: str) -> list:
    async def first() -> list:
        while not (asks := await runtime.sessions.permissions.pending(sid)):
            await asyncio.sleep(0.01)
        return asks

    return await asyncio.wait_for(first(), 20)


def _bash(call_id: str, command: str) -> dict:
    return {"tool_calls": [{"id": call_id, "name": "bash", "arguments": {"command": command}}]}


async def test_reject_fails_the_tool_and_stops_the_run(asking_runtime: Runtime, fake: FakeProvider, workdir) -> None:
    runtime = asking_runtime
    fake.add(_bash("call_1", "echo hi > created.txt"), {"text": "never"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "make a file")
    asks = await _asked(runtime, sid)
    assert asks[0].action == "bash" and asks[0].detail["command"] == "echo hi > created.txt"
    await runtime.sessions.permissions.reply(asks[0].request_id, "reject")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    assert of_type(log, ev.ToolFailed)[0].error.type == "permission.rejected"
    assert of_type(log, ev.StepFailed)[0].error.type == "permission.rejected"
    assert kinds(log)[-1] == "execution.failed"
    assert not (workdir / "created.txt").exists()
    assert fake.remaining == 1


async def test_reject_with_a_message_goes_back_to_the_model(
    asking_runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    runtime = asking_runtime
    fake.add(_bash("call_1", "rm -rf build"), {"text": "ok, I will not"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "clean up")
    asks = await _asked(runtime, sid)
    await runtime.sessions.permissions.reply(asks[0].request_id, "reject", "keep the build folder")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    assert kinds(log)[-1] == "execution.succeeded"
    tool_result = [m for m in fake.accepted[1].body["messages"] if m["role"] == "tool"][0]
    assert "keep the build folder" in tool_result["content"]


async def test_always_saves_an_approval_for_the_project(asking_runtime: Runtime, fake: FakeProvider, workdir) -> None:
    runtime = asking_runtime
    (workdir / "marker.txt").write_text("x")
    fake.add(_bash("call_1", "ls -a"), _bash("call_2", "ls -1"), {"text": "done"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "list twice")
    asks = await _asked(runtime, sid)
    await runtime.sessions.permissions.reply(asks[0].request_id, "always")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    assert asks[0].save == ["ls *"]
    assert len(of_type(log, ev.PermissionAsked)) == 1  # "ls *" covered the second listing
    assert all("marker.txt" in o.output.text for o in of_type(log, ev.ToolSucceeded))
    assert len(of_type(log, ev.ToolSucceeded)) == 2
    approvals = await runtime._store.approvals(str(workdir.resolve()))
    assert approvals and approvals[0].action == "bash"


async def test_interrupt_kills_a_running_bash_process_group(
    open_runtime: Any, fake: FakeProvider, clock: ManualClock, workdir: Path
) -> None:
    import os

    pidfile = workdir / "pid.txt"
    fake.add(_bash("call_1", f"echo $$ > {pidfile}; sleep 300 & sleep 300"))
    async with await open_runtime(tools="all", policy="allow", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        await runtime.sessions.prompt(sid, "sleep a long time")

        async def started() -> None:
            while not (pidfile.exists() and pidfile.read_text().strip()):
                await asyncio.sleep(0.02)

        await asyncio.wait_for(started(), 20)
        pgid = int(pidfile.read_text())
        await runtime.sessions.interrupt(sid)
        log = await stored(runtime, sid)
    assert of_type(log, ev.ToolFailed)[0].error.message == TOOL_INTERRUPTED
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)


async def test_an_interrupt_closes_an_unanswered_ask(asking_runtime: Runtime, fake: FakeProvider, workdir) -> None:
    runtime = asking_runtime
    fake.add(_bash("call_1", "make deploy"))
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "deploy")
    await _asked(runtime, sid)
    await runtime.sessions.interrupt(sid)
    assert await runtime.sessions.permissions.pending(sid) == []
    log = await stored(runtime, sid)
    replied = of_type(log, ev.PermissionReplied)
    assert replied[0].reply == "reject" and replied[0].message == TOOL_INTERRUPTED
    assert kinds(log)[-1] == "execution.interrupted"


async def test_the_sweep_closes_asks_left_by_a_dead_process(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    sid = (await runtime.sessions.create(location=workdir)).id
    amid = "msg_dead_owner_step"
    await runtime._store.publish_many(
        sid,
        [
            ev.StepStarted(assistant_message_id=amid, agent="build", model="openai/fake-model"),
            ev.ToolCalled(assistant_message_id=amid, call_id="call_1", name="bash", input={"command": "rm x"}),
            ev.PermissionAsked(
                request_id="per_dead", assistant_message_id=amid, call_id="call_1", action="bash", resources=["rm x"]
            ),
        ],
    )
    fake.add({"text": "fresh start"})
    await runtime.sessions.prompt(sid, "hello again")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    order = kinds(log)
    assert order.index("permission.replied") < order.index("tool.failed") < order.index("step.failed")
    assert order.index("step.failed") < order.index("prompt.promoted")
    assert of_type(log, ev.ToolFailed)[0].error.type == "tool.stale"
    assert await runtime.sessions.permissions.pending(sid) == []


async def test_an_interrupted_command_keeps_what_it_printed_for_the_screen_and_the_model(
    open_runtime: Any, fake: FakeProvider, clock: ManualClock, workdir: Path
) -> None:
    fake.add(_bash("call_1", "echo compiling module A; echo 'error: disk full' >&2; sleep 300"), {"text": "I see"})
    async with await open_runtime(tools="all", policy="allow", clock=clock) as runtime:
        sid = (await runtime.sessions.create(location=workdir)).id
        with runtime.sessions.subscribe(sid) as deltas:
            await runtime.sessions.prompt(sid, "build it")

            async def printed() -> None:
                seen = ""
                async for item in deltas:
                    if isinstance(item, ev.ToolOutputDelta):
                        seen += item.delta
                        if "disk full" in seen:
                            return

            await asyncio.wait_for(printed(), 20)
        await runtime.sessions.interrupt(sid)
        log = await stored(runtime, sid)
        (failed,) = of_type(log, ev.ToolFailed)
        assert failed.error.message == TOOL_INTERRUPTED
        assert failed.result_meta["partial_output"] == "compiling module A\nerror: disk full\n"
        await runtime.sessions.prompt(sid, "what happened?")
        await settle(runtime, sid)
    told = json.dumps(fake.requests[-1].body)
    assert "Tool execution interrupted. Its output until then:\\ncompiling module A\\nerror: disk full" in told
