"""Runner steps against the fake provider, asserted on the stored event log."""

from __future__ import annotations

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, of_type, stored


async def _session(runtime: Runtime, workdir) -> str:
    return (await runtime.sessions.create(location=workdir)).id


async def test_text_answer_is_one_step(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({"text": "Hello there, friend.", "chunks": 4})
    sid = await _session(runtime, workdir)
    await runtime.sessions.prompt(sid, "hi", resume=False)
    assert await runtime.sessions.run(sid) is None
    log = await stored(runtime, sid)
    assert kinds(log) == [
        "created",
        "prompt.admitted",
        "execution.started",
        "instructions.baselined",
        "prompt.promoted",
        "step.started",
        "text.started",
        "text.ended",
        "step.ended",
        "execution.succeeded",
    ]
    ended = next(e.event for e in log if isinstance(e.event, ev.TextEnded))
    assert ended.text == "Hello there, friend."
    messages = await runtime._store.messages(sid)
    assert [m.kind for m in messages] == ["user", "assistant"]
    assert messages[1].data["state"] == "ended"


async def test_tool_loop_continues_until_text(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add(
        {"tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"text": "pong"}, "chunks": 3}]},
        {"text": "done"},
    )
    sid = await _session(runtime, workdir)
    await runtime.sessions.prompt(sid, "ping", resume=False)
    assert await runtime.sessions.run(sid) is None
    log = kinds(await stored(runtime, sid))
    assert log.count("step.started") == 2
    assert log.index("tool.called") < log.index("tool.success") < log.index("step.ended")
    second = fake.accepted[1].body
    tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool_messages and tool_messages[0]["content"] == "pong"


async def test_deltas_are_live_only(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({"text": "abcdefghij", "chunks": 10})
    sid = await _session(runtime, workdir)
    seen: list[str] = []
    with runtime.sessions.subscribe(sid) as sub:
        await runtime.sessions.prompt(sid, "hi", resume=False)
        await runtime.sessions.run(sid)
        while (item := sub.get_nowait()) is not None:  # everything the run put on the bus is queued
            if isinstance(item, ev.TextDelta):
                seen.append(item.delta)
    assert "".join(seen) == "abcdefghij"  # the chunks reached the bus live (merged while the reader lags)
    log = await stored(runtime, sid)
    step = kinds(log)[kinds(log).index("step.started") :]
    assert step == ["step.started", "text.started", "text.ended", "step.ended", "execution.succeeded"]
    assert of_type(log, ev.TextEnded)[0].text == "abcdefghij"  # the ended event carries what the deltas said
