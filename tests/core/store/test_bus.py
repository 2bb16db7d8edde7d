"""Live deltas are bounded and coalesced; head notifications are a dirty flag."""

from __future__ import annotations

import asyncio

from agent_tui.core.log import events as ev
from agent_tui.core.store.bus import Bus
from agent_tui.core.store.store import Store


def _text(delta: str, ordinal: int = 0, sid: str = "ses_1") -> ev.TextDelta:
    return ev.TextDelta(session_id=sid, assistant_message_id="msg_a", ordinal=ordinal, delta=delta)


async def test_a_slow_subscriber_gets_coalesced_deltas_without_blocking() -> None:
    bus = Bus()
    slow = bus.subscribe("ses_1")
    for n in range(10_000):
        bus.publish(_text(str(n % 10)))
    item = slow.get_nowait()
    assert isinstance(item, ev.TextDelta) and len(item.delta) == 10_000
    assert slow.get_nowait() is None


async def test_deltas_past_capacity_drop_the_oldest_and_count() -> None:
    bus = Bus()
    sub = bus.subscribe("ses_1", capacity=3)
    for ordinal in range(5):  # distinct fragments cannot be merged
        bus.publish(_text("x", ordinal=ordinal))
    got = [sub.get_nowait() for _ in range(3)]
    assert [d.ordinal for d in got] == [2, 3, 4]
    assert sub.dropped == 2 and sub.get_nowait() is None


async def test_heads_coalesce_into_one_wake_per_session() -> None:
    bus = Bus()
    sub = bus.subscribe(None, deltas=False)
    for head in (1, 2, 3):
        bus.notify_head("ses_1", head)
    bus.notify_head("ses_2", 7)
    bus.publish(_text("ignored"))
    assert sub.get_nowait() == ev.HeadAdvanced(session_id="ses_1", head_seq=3)
    assert sub.get_nowait() == ev.HeadAdvanced(session_id="ses_2", head_seq=7)
    assert sub.get_nowait() is None
    bus.notify_head("ses_1", 2)  # stale heads never wake anyone
    assert sub.get_nowait() is None


async def test_subscribers_see_only_their_session_and_closing_unsubscribes() -> None:
    bus = Bus()
    one, every = bus.subscribe("ses_1"), bus.subscribe()
    bus.publish(_text("a", sid="ses_2"))
    assert one.get_nowait() is None and isinstance(every.get_nowait(), ev.TextDelta)
    one.close()
    every.close()
    assert not bus.watching.is_set()
    bus.publish(_text("b"))
    assert every.get_nowait() is None


async def test_store_notifies_only_after_commit(store: Store) -> None:
    sub = store.bus.subscribe("ses_1", deltas=False)
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    assert sub.get_nowait() == ev.HeadAdvanced(session_id="ses_1", head_seq=1)
    try:
        await store.publish("ses_1", ev.PromptPromoted(input_id="msg_missing"))
    except Exception:
        pass
    assert sub.get_nowait() is None  # a rolled-back transaction announces nothing
    waiter = asyncio.create_task(sub.get())
    await asyncio.sleep(0)
    await store.publish_many("ses_1", [ev.ModelSelected(model="a"), ev.ModelSelected(model="b")])
    assert await asyncio.wait_for(waiter, 5) == ev.HeadAdvanced(session_id="ses_1", head_seq=3)


async def test_a_failing_notification_never_undoes_the_commit(store: Store, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def explode(session_id: str, head_seq: int) -> None:
        raise RuntimeError("subscriber bug")

    monkeypatch.setattr(store.bus, "notify_head", explode)
    stored = await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    assert stored.seq == 1 and await store.head_seq("ses_1") == 1
    assert (await store.publish("ses_1", ev.ModelSelected(model="m"))).seq == 2
