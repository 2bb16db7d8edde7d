"""``log``: replay in pages, one Synced marker, live tail without gap or duplicate."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest

from agent_tui.core.errors import UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.store.store import Store
from agent_tui.core.store.tail import Synced, log


async def _seed(store: Store, count: int) -> None:
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    await store.publish_many("ses_1", [ev.ModelSelected(model=f"m{n}") for n in range(count - 1)])


async def test_replay_without_follow_ends_at_synced(store: Store) -> None:
    await _seed(store, 7)
    items = [item async for item in log(store, "ses_1", after=2, page=2)]
    assert [i.seq for i in items[:-1]] == [3, 4, 5, 6, 7]
    assert items[-1] == Synced(seq=7)


async def test_unknown_session_is_an_error(store: Store) -> None:
    with pytest.raises(UnknownSession, match="ses_nope"):
        async for _ in log(store, "ses_nope"):
            pass


async def test_commits_during_replay_arrive_once_after_synced(store: Store) -> None:
    await _seed(store, 20)
    stream = log(store, "ses_1", follow=True, page=3)
    seen: list[int] = []
    synced: list[Synced] = []
    writer_started = asyncio.Event()

    async def writer() -> None:
        writer_started.set()
        for n in range(30):
            await store.publish("ses_1", ev.ModelSelected(model=f"late{n}"))
            await asyncio.sleep(0)

    task = None
    async for item in stream:
        if isinstance(item, Synced):
            synced.append(item)
        else:
            seen.append(item.seq)
        if task is None:  # start committing as soon as replay has begun
            task = asyncio.create_task(writer())
            await writer_started.wait()
        await asyncio.sleep(0)
        if len(seen) == 50:
            break
    await stream.aclose()
    await task  # type: ignore[misc]
    assert seen == list(range(1, 51))
    assert len(synced) == 1 and synced[0].seq is not None and 20 <= synced[0].seq < 50


async def test_empty_log_syncs_with_none_then_tails(store: Store) -> None:
    await store.publish("ses_0", ev.SessionCreated(location="/w", project_root="/w"))
    stream = log(store, "ses_0", after=1, follow=True)
    assert await anext(stream) == Synced(seq=1)
    await store.publish("ses_0", ev.ModelSelected(model="m"))
    item = await asyncio.wait_for(anext(stream), 5)
    assert isinstance(item, ev.StoredEvent) and item.seq == 2
    await stream.aclose()


PUBLISHER = textwrap.dedent(
    """
    import asyncio, sys
    from agent_tui.core.log import events as ev
    from agent_tui.core.store.store import Store

    async def main(path):
        store = await Store.open(path)
        await store.publish_many("ses_1", [ev.ModelSelected(model="other-process")] * 3)
        await store.close()

    asyncio.run(main(sys.argv[1]))
    """
)


async def test_tail_wakes_on_commits_from_another_process(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    store = await Store.open(path)
    try:
        await _seed(store, 2)
        stream = log(store, "ses_1", follow=True)
        assert [(await anext(stream)).seq for _ in range(3)] == [1, 2, 2]  # 2 then Synced(2)
        proc = await asyncio.create_subprocess_exec(sys.executable, "-c", PUBLISHER, str(path))
        assert await proc.wait() == 0
        tailed = [await asyncio.wait_for(anext(stream), 10) for _ in range(3)]
        assert [(t.seq, t.event.model) for t in tailed] == [(n, "other-process") for n in (3, 4, 5)]  # type: ignore[union-attr]
        await stream.aclose()
    finally:
        await store.close()


async def test_a_commit_right_after_the_watermark_is_not_missed(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The subscription exists before the watermark is read, so this commit wakes the tail."""
    await _seed(store, 3)
    original = store.head_seq
    calls = 0

    async def head_then_commit(session_id: str) -> int:
        nonlocal calls
        head = await original(session_id)
        calls += 1
        if calls == 1:  # the watermark read
            await store.publish(session_id, ev.ModelSelected(model="racing"))
        return head

    monkeypatch.setattr(store, "head_seq", head_then_commit)
    stream = log(store, "ses_1", follow=True)
    items = [await asyncio.wait_for(anext(stream), 5) for _ in range(5)]
    await stream.aclose()
    assert [i.seq for i in items] == [1, 2, 3, 3, 4]
    assert isinstance(items[3], Synced) and items[4].event == ev.ModelSelected(model="racing")  # type: ignore[union-attr]
