"""Steer and queue delivery, allowance resets, inbox survival."""

from __future__ import annotations

from typing import Any

from agent_tui.core.log import events as ev
from agent_tui.core.request.reminders import STEER_REMINDER, agent_switch_reminder
from agent_tui.core.runtime import Runtime
from agent_tui.llm.lowering import reminder_text as reminder
from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.vocab.kinds import TOOL_INTERRUPTED

from .conftest import kinds, of_type, settle, stored


def _user_texts(body: dict[str, Any]) -> list[str]:
    out = []
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else " ".join(p.get("text", "") for p in content))
    return out


def _echo(call_id: str = "call_1", text: str = "ok") -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "echo", "arguments": {"text": text}}]}


async def test_steer_is_promoted_at_the_next_step_boundary(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({**_echo(), "hold": True}, {"text": "saw the steer"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await fake.wait_for("held")
    await runtime.sessions.prompt(sid, "also do this", delivery="steer")
    fake.release()
    await settle(runtime, sid)
    log = kinds(await stored(runtime, sid))
    assert log.count("execution.started") == 1
    promoted = [i for i, k in enumerate(log) if k == "prompt.promoted"]
    steps = [i for i, k in enumerate(log) if k == "step.started"]
    assert len(promoted) == 2 and promoted[1] > steps[0] and promoted[1] < steps[1]
    assert _user_texts(fake.accepted[1].body) == ["first", "also do this", reminder(STEER_REMINDER)]
    assert _user_texts(fake.accepted[0].body) == ["first"]  # a prompt to an idle session is no steer


async def test_steers_promoted_together_get_one_reminder_that_stays_where_it_was(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({**_echo(), "hold": True}, _echo("call_2"), {"text": "done"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await fake.wait_for("held")
    await runtime.sessions.prompt(sid, "steer one", delivery="steer")
    await runtime.sessions.prompt(sid, "steer two", delivery="steer")
    fake.release()
    await settle(runtime, sid)
    steered = ["first", "steer one", "steer two", reminder(STEER_REMINDER)]
    assert _user_texts(fake.accepted[1].body) == steered
    # the next request keeps it at the same place: the prefix a provider caches does not move
    assert _user_texts(fake.accepted[2].body) == steered
    assert (
        fake.accepted[2].body["messages"][: len(fake.accepted[1].body["messages"])] == fake.accepted[1].body["messages"]
    )
    stored_texts = [getattr(e.event, "text", "") for e in await stored(runtime, sid)]
    assert not any(STEER_REMINDER in text for text in stored_texts)  # derived, never a message of its own


async def test_a_switch_of_agent_is_told_to_the_model_before_its_first_step(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({"text": "planned"}, {"text": "built"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.select_agent(sid, "plan")
    await runtime.sessions.prompt(sid, "make a plan")
    await settle(runtime, sid)
    await runtime.sessions.select_agent(sid, "build")
    await runtime.sessions.prompt(sid, "go ahead")
    await settle(runtime, sid)
    assert _user_texts(fake.accepted[0].body) == ["make a plan"]  # the first step: nothing to switch from
    assert _user_texts(fake.accepted[1].body) == [
        "make a plan",
        "go ahead",
        reminder(agent_switch_reminder("plan", "build")),
    ]


async def test_queued_inputs_promote_fifo_one_at_a_time_when_idle(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({**_echo(), "hold": True}, {"text": "turn one"}, {"text": "q1 answer"}, {"text": "q2 answer"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await fake.wait_for("held")
    q1 = await runtime.sessions.prompt(sid, "queued one", delivery="queue")
    q2 = await runtime.sessions.prompt(sid, "queued two", delivery="queue")
    fake.release()
    await settle(runtime, sid)
    assert _user_texts(fake.accepted[1].body) == ["first"]  # not promoted mid-turn
    assert _user_texts(fake.accepted[2].body) == ["first", "queued one"]
    assert _user_texts(fake.accepted[3].body) == ["first", "queued one", "queued two"]
    log = await stored(runtime, sid)
    promoted = [e.input_id for e in of_type(log, ev.PromptPromoted)]
    assert promoted[1:] == [q1.input_id, q2.input_id]
    assert kinds(log).count("execution.started") == 1


async def test_steers_go_before_an_earlier_queued_input(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({**_echo(), "hold": True}, {"text": "after steer"}, {"text": "after queue"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await fake.wait_for("held")
    await runtime.sessions.prompt(sid, "later, queued", delivery="queue")
    await runtime.sessions.prompt(sid, "now, steer", delivery="steer")
    fake.release()
    await settle(runtime, sid)
    steered = ["first", "now, steer", reminder(STEER_REMINDER)]
    assert _user_texts(fake.accepted[1].body) == steered
    assert _user_texts(fake.accepted[2].body) == [*steered, "later, queued"]  # a queued input is no steer


async def test_inbox_is_kept_after_interrupt(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {}}]})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "block please")
    while not any(isinstance(e.event, ev.ToolCalled) for e in await stored(runtime, sid)):
        await __import__("asyncio").sleep(0.01)
    steer = await runtime.sessions.prompt(sid, "pending steer")
    queued = await runtime.sessions.prompt(sid, "pending queue", delivery="queue")
    await runtime.sessions.interrupt(sid)
    assert sid not in runtime.sessions.active()
    assert [row.id for row in await runtime.sessions.pending(sid)] == [steer.input_id, queued.input_id]
    log = await stored(runtime, sid)
    failed = of_type(log, ev.ToolFailed)
    assert failed and failed[0].error.message == TOOL_INTERRUPTED and failed[0].error.type == "aborted"
    assert kinds(log)[-2:] == ["step.failed", "execution.interrupted"]
