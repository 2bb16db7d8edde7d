"""Manual /compact: a barrier that runs when the session would go idle and holds later input."""

from __future__ import annotations

import asyncio

from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import kinds, of_type, settle, stored
from .helpers import SUMMARY, dumped, echo, is_summary_request, roles, user_texts


async def test_barrier_waits_for_the_tool_loop_then_releases_held_input(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add(
        echo("call_1", "pong", reasoning="private chain of thought", hold=True),
        {"text": "loop done"},
        {"text": SUMMARY, "chunks": 5},
        {"text": "after answer"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await fake.wait_for("held")
    barrier = await runtime.sessions.compact(sid)
    later = await runtime.sessions.prompt(sid, "after the compaction", delivery="steer")
    assert [row.id for row in await runtime.sessions.pending(sid)] == [barrier.input_id, later.input_id]
    fake.release()
    await settle(runtime, sid)

    log = await stored(runtime, sid)
    names = kinds(log)
    started = names.index("compaction.started")
    step_ends = [i for i, k in enumerate(names) if k == "step.ended"]
    promoted = [
        i for i, e in enumerate(log) if isinstance(e.event, ev.PromptPromoted) and e.event.input_id == later.input_id
    ]
    assert step_ends[1] < started < names.index("compaction.ended") < promoted[0] < step_ends[2]  # never mid loop
    assert names.count("execution.started") == 1 and names[-1] == "execution.succeeded"
    begun = of_type(log, ev.CompactionStarted)[0]
    assert begun.reason == "manual" and begun.input_id == barrier.input_id and begun.message_id != barrier.input_id
    ended = of_type(log, ev.CompactionEnded)[0]
    assert ended.input_id == barrier.input_id and ended.message_id == begun.message_id
    assert ended.summary.startswith("## Objective\nShip the parser fix.\n\n## Important Details\n(none)")
    assert "## Work State\n(none)" in ended.summary and ended.summary.endswith("## Next Move\nRun the tests.")

    bodies = [r.body for r in fake.accepted]
    assert user_texts(bodies[1]) == ["first"]  # held back while the barrier was pending
    assert is_summary_request(bodies[2]) and "pong" in user_texts(bodies[2])[0]
    after = bodies[3]
    assert roles(after) == ["system", "system", "user", "user"]
    checkpoint, prompt = user_texts(after)
    assert checkpoint.startswith("<system-reminder>") and "Ship the parser fix." in checkpoint
    assert prompt == "after the compaction"
    assert "private chain of thought" not in dumped(after) and "tool_calls" not in dumped(after)

    rows = await runtime._store.messages(sid)
    divider = next(m for m in rows if m.kind == "compaction")
    assert (
        divider.id == begun.message_id and divider.data["state"] == "ended" and divider.data["summary"] == ended.summary
    )
    assert [m.kind for m in rows] == ["user", "assistant", "assistant", "compaction", "user", "assistant"]
    assert await runtime.sessions.pending(sid) == []
    inbox = await runtime._store.input(barrier.input_id)
    assert inbox is not None and inbox.settled_seq is not None


async def test_summary_streams_live_deltas(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({"text": "one"}, {"text": SUMMARY, "chunks": 4})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "hello")
    await settle(runtime, sid)
    subscription = runtime.sessions.subscribe(sid)
    await runtime.sessions.compact(sid)
    await settle(runtime, sid)
    seen: list[ev.CompactionDelta] = []
    while (item := subscription.get_nowait()) is not None:
        if isinstance(item, ev.CompactionDelta):
            seen.append(item)
    ended = of_type(await stored(runtime, sid), ev.CompactionEnded)[0]
    assert seen and "".join(d.delta for d in seen) == SUMMARY  # the raw text, as the model wrote it
    assert {d.message_id for d in seen} == {ended.message_id}


async def test_repeated_compaction_updates_the_previous_summary(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    second = "## Objective\nShip it, then release.\n## Important Details\nv2 tagged"
    fake.add({"text": "one"}, {"text": SUMMARY}, {"text": "two"}, {"text": second}, {"text": "three"})
    sid = (await runtime.sessions.create(location=workdir)).id
    for prompt in ("p1", "p2"):
        await runtime.sessions.prompt(sid, prompt)
        await settle(runtime, sid)
        await runtime.sessions.compact(sid)
        await settle(runtime, sid)
    await runtime.sessions.prompt(sid, "p3")
    await settle(runtime, sid)
    bodies = [r.body for r in fake.accepted]
    assert is_summary_request(bodies[1]) and is_summary_request(bodies[3])
    material = user_texts(bodies[3])[0]
    assert "<previous-checkpoint>\n## Objective\nShip the parser fix." in material and "User:\np2" in material
    final = user_texts(bodies[4])
    assert len(final) == 2 and "Ship it, then release." in final[0] and "Ship the parser fix" not in final[0]
    assert final[1] == "p3"


async def test_nothing_to_compact_settles_the_barrier_as_failed(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    sid = (await runtime.sessions.create(location=workdir)).id
    receipt = await runtime.sessions.compact(sid)
    await settle(runtime, sid)
    failed = of_type(await stored(runtime, sid), ev.CompactionFailed)
    assert [(f.error.type, f.input_id) for f in failed] == [("compaction.empty", receipt.input_id)]
    assert await runtime.sessions.pending(sid) == [] and fake.requests == []
    [divider] = await runtime._store.messages(sid)
    assert divider.data["state"] == "failed" and divider.data["error"]["message"] == "Nothing to compact yet."


async def test_failed_compaction_leaves_history_unchanged(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add(
        echo("call_1", "pong"),
        {"text": "answer one"},
        {"error": {"status": 400, "kind": "invalid_request"}},
        {"text": "answer two"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "one")
    await settle(runtime, sid)
    before = [r.body for r in fake.accepted][1]
    receipt = await runtime.sessions.compact(sid)
    await runtime.sessions.prompt(sid, "two")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    failed = of_type(log, ev.CompactionFailed)
    assert len(failed) == 1 and failed[0].error.type == "provider.invalid-request"
    assert failed[0].input_id == receipt.input_id and not of_type(log, ev.CompactionEnded)
    after = fake.accepted[3].body
    assert after["messages"][: len(before["messages"])] == before["messages"]  # the same prefix, native tool messages
    assert "tool_calls" in dumped(after) and "<system-reminder>" not in dumped(after)
    assert user_texts(after) == ["one", "two"]


async def test_interrupt_during_compaction_fails_it_and_settles_the_barrier(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({"text": "one"}, {"text": SUMMARY, "hold": True})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "hello")
    await settle(runtime, sid)
    receipt = await runtime.sessions.compact(sid)
    await fake.wait_for("held")
    await runtime.sessions.interrupt(sid)
    log = await stored(runtime, sid)
    failed = of_type(log, ev.CompactionFailed)
    assert [(f.error.type, f.input_id) for f in failed] == [("aborted", receipt.input_id)]
    assert kinds(log)[-1] == "execution.interrupted"
    assert await runtime.sessions.pending(sid) == []
    await asyncio.sleep(0)


async def test_a_compaction_left_running_by_a_dead_process_is_failed_at_drain_start(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({"text": "answer"})
    sid = (await runtime.sessions.create(location=workdir)).id
    barrier = await runtime.sessions.compact(sid, resume=False)
    await runtime._store.publish(
        sid, ev.CompactionStarted(message_id="msg_dead", reason="manual", input_id=barrier.input_id)
    )
    await runtime._store.publish(sid, ev.CompactionStarted(message_id="msg_dead_auto", reason="auto"))
    later = await runtime.sessions.prompt(sid, "held behind the barrier", resume=False)
    await runtime.sessions.run(sid)
    log = await stored(runtime, sid)
    failed = of_type(log, ev.CompactionFailed)
    assert [(f.message_id, f.input_id, f.error.type) for f in failed] == [
        ("msg_dead", barrier.input_id, "aborted"),
        ("msg_dead_auto", None, "aborted"),
    ]
    names = kinds(log)
    promoted = [e.event.input_id for e in log if isinstance(e.event, ev.PromptPromoted)]
    assert promoted == [later.input_id] and names.index("compaction.failed") < names.index("prompt.promoted")
    states = {m.id: m.data["state"] for m in await runtime._store.messages(sid) if m.kind == "compaction"}
    assert states == {"msg_dead": "failed", "msg_dead_auto": "failed"}


async def test_projections_rebuilt_from_the_log_equal_the_live_ones(
    runtime: Runtime, fake: FakeProvider, workdir, projection_snapshot
) -> None:
    fake.add(
        echo("call_1", "pong"),
        {"text": "one"},
        {"text": SUMMARY},
        {"text": "two"},
        {"error": {"status": 500, "kind": "internal"}},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "hello")
    await settle(runtime, sid)
    await runtime.sessions.compact(sid)
    await runtime.sessions.prompt(sid, "again")
    await settle(runtime, sid)
    await runtime.sessions.compact(sid)  # this one fails
    await settle(runtime, sid)
    assert kinds(await stored(runtime, sid)).count("compaction.failed") == 1
    live = projection_snapshot(runtime._store.path)
    await runtime._store.rebuild()
    assert projection_snapshot(runtime._store.path) == live


async def test_an_unexpected_error_fails_the_compaction_instead_of_leaving_it_running(
    runtime: Runtime, fake: FakeProvider, workdir, monkeypatch
) -> None:
    from agent_tui.core.request import compaction_text

    def broken(*_: object) -> str:
        raise ValueError("material broke")

    fake.add({"text": "one"}, {"text": "two"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "hello")
    await settle(runtime, sid)
    monkeypatch.setattr(compaction_text, "summary_material", broken)
    receipt = await runtime.sessions.compact(sid)
    later = await runtime.sessions.prompt(sid, "next")
    await settle(runtime, sid)
    log = await stored(runtime, sid)
    [failed] = of_type(log, ev.CompactionFailed)
    assert failed.error.type == "compaction.error" and "material broke" in failed.error.message
    assert failed.input_id == receipt.input_id and failed.message_id is not None
    assert [e.input_id for e in of_type(log, ev.PromptPromoted)][-1] == later.input_id
    assert kinds(log)[-1] == "execution.succeeded"


async def test_a_pending_barrier_holds_back_prompts_admitted_before_it_too(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    """The spec: a pending compaction "blocks all unpromoted prompts" - a steer or a queued
    prompt admitted before /compact waits for the barrier as one admitted after it does."""
    fake.add(
        echo("call_1", "pong", hold=True),
        {"text": "loop done"},
        {"text": SUMMARY},
        {"text": "steer answer"},
        {"text": "queued answer"},
    )
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.prompt(sid, "first")
    await fake.wait_for("held")
    steer = await runtime.sessions.prompt(sid, "steered before the compaction", delivery="steer")
    queued = await runtime.sessions.prompt(sid, "queued before the compaction", delivery="queue")
    await runtime.sessions.compact(sid)
    fake.release()
    await settle(runtime, sid)

    log = await stored(runtime, sid)
    names = kinds(log)
    promoted = {e.event.input_id: i for i, e in enumerate(log) if isinstance(e.event, ev.PromptPromoted)}
    assert names.index("compaction.ended") < promoted[steer.input_id] < promoted[queued.input_id]
    bodies = [r.body for r in fake.accepted]
    assert user_texts(bodies[1]) == ["first"]  # the tool loop went on without the steer
    assert is_summary_request(bodies[2]) and "steered before" not in dumped(bodies[2])
    assert user_texts(bodies[3])[-1] == "steered before the compaction"
    assert user_texts(bodies[4])[-1] == "queued before the compaction"
    assert await runtime.sessions.pending(sid) == []
