"""A reordered queue is promoted in its new order; a reorder that misses the queue is refused."""

from __future__ import annotations

import pytest

from agent_tui.core.errors import EventRejected
from agent_tui.core.log import events as ev
from agent_tui.core.runtime import Runtime
from agent_tui.testing.fake_provider import FakeProvider

from .conftest import of_type, settle, stored


async def test_the_runner_promotes_queued_inputs_in_the_reordered_order(
    runtime: Runtime, fake: FakeProvider, workdir
) -> None:
    fake.add({"text": "one"}, {"text": "two"}, {"text": "three"})
    sid = (await runtime.sessions.create(location=workdir)).id
    ids = [(await runtime.sessions.prompt(sid, text, delivery="queue", resume=False)).input_id for text in "abc"]
    await runtime.sessions.reorder_queue(sid, [ids[2], ids[0], ids[1]])
    assert [row.id for row in await runtime.sessions.pending(sid)] == ids  # the inbox keeps admission order
    assert await runtime.sessions.run(sid) is None
    promoted = [e.input_id for e in of_type(await stored(runtime, sid), ev.PromptPromoted)]
    assert promoted == [ids[2], ids[0], ids[1]]
    firsts = [[m for m in r.body["messages"] if m["role"] == "user"][-1]["content"][0]["text"] for r in fake.accepted]
    assert firsts == ["c", "a", "b"]


async def test_a_reorder_must_name_every_queued_input_once(runtime: Runtime, workdir) -> None:
    sid = (await runtime.sessions.create(location=workdir)).id
    a = (await runtime.sessions.prompt(sid, "a", delivery="queue", resume=False)).input_id
    b = (await runtime.sessions.prompt(sid, "b", delivery="queue", resume=False)).input_id
    for order in ([a], [a, a, b], [a, b, "msg_nope"]):
        with pytest.raises(EventRejected, match="every queued input"):
            await runtime.sessions.reorder_queue(sid, order)


async def test_a_paused_queue_holds_queued_inputs_until_resumed(runtime: Runtime, fake: FakeProvider, workdir) -> None:
    fake.add({"text": "steered"}, {"text": "queued one"})
    sid = (await runtime.sessions.create(location=workdir)).id
    await runtime.sessions.pause_queue(sid)
    queued = (await runtime.sessions.prompt(sid, "later", delivery="queue", resume=False)).input_id
    await runtime.sessions.prompt(sid, "now", resume=False)
    assert await runtime.sessions.run(sid) is None
    assert [row.id for row in await runtime.sessions.pending(sid)] == [queued]  # the steer ran, the queue waits
    assert len(fake.accepted) == 1
    await runtime.sessions.pause_queue(sid, False)  # resuming wakes the session
    await settle(runtime, sid)
    assert await runtime.sessions.pending(sid) == [] and len(fake.accepted) == 2
