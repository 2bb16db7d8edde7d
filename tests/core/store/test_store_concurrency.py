"""Seq allocation stays gapless and unique under concurrent writers."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

from agent_tui.core.log import events as ev
from agent_tui.core.store.store import Store

WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from agent_tui.core.log import events as ev
    from agent_tui.core.store.store import Store

    async def main(path, tag, count):
        store = await Store.open(path)
        try:
            print("ready", flush=True)
            sys.stdin.readline()
            for n in range(count):
                await store.publish("ses_1", ev.ModelSelected(model=f"{tag}-{n}"))
        finally:
            await store.close()

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    """
)


async def test_seq_is_monotonic_under_concurrent_tasks(store: Store) -> None:
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))

    async def writer(tag: str) -> list[int]:
        return [(await store.publish("ses_1", ev.ModelSelected(model=f"{tag}-{n}"))).seq for n in range(50)]

    results = await asyncio.gather(*(writer(f"t{i}") for i in range(8)))
    for seqs in results:
        assert seqs == sorted(seqs)
    assert sorted(s for seqs in results for s in seqs) == list(range(2, 2 + 8 * 50))
    assert await store.head_seq("ses_1") == 401


async def test_seq_is_monotonic_across_two_processes(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    store = await Store.open(path)
    await store.publish("ses_1", ev.SessionCreated(location="/w", project_root="/w"))
    count = 150
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            WRITER,
            str(path),
            tag,
            str(count),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        for tag in ("pa", "pb")
    ]
    try:
        for proc in procs:  # both open, then both start at once
            assert (await proc.stdout.readline()).strip() == b"ready"  # type: ignore[union-attr]
        for proc in procs:
            proc.stdin.write(b"go\n")  # type: ignore[union-attr]
            await proc.stdin.drain()  # type: ignore[union-attr]
        local = [(await store.publish("ses_1", ev.ModelSelected(model=f"pc-{n}"))).seq for n in range(count)]
        assert [await proc.wait() for proc in procs] == [0, 0]
        stored = await store.events("ses_1", limit=None)
    finally:
        await store.close()
    assert [e.seq for e in stored] == list(range(1, 2 + 3 * count))
    assert local == sorted(local)
    by_tag: dict[str, list[int]] = {}
    for event in stored[1:]:
        assert isinstance(event.event, ev.ModelSelected)
        tag, n = event.event.model.split("-")
        by_tag.setdefault(tag, []).append(int(n))
    assert by_tag == {tag: list(range(count)) for tag in ("pa", "pb", "pc")}
    reopened = await Store.open(path)
    try:
        record = await reopened.session("ses_1")
    finally:
        await reopened.close()
    assert record is not None and record.head_seq == 1 + 3 * count
