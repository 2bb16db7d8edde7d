"""Workspace snapshots and rewinds: what a snapshot before each tool and a rewind cost.

- snapshot of an unchanged ``--files``-file tree (budget: well under 100 ms);
- snapshot after ``--changed`` files of that tree changed;
- restore of those changed files (the files part of a rewind);
- the conversation part of a rewind in a ``--messages``-message session
  (one ``session.rewound`` event whose projector hides every message after
  the first prompt), and an undo of it (a re-projection of the session);
- a fork at the head of a ``--fork-messages``-message session (the fork's two
  events, whose projector copies every message and tool call).

Usage: ``python bench/snapshots.py [--files N] [--changed C] [--rounds R] [--messages M] [--fork-messages F]``;
prints medians and writes ``bench/results/snapshots.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

from agent_tui.core.log import events as ev
from agent_tui.core.store.store import Store
from agent_tui.core.workspace.snapshots import WorkspaceSnapshots

RESULTS = Path(__file__).resolve().parent / "results" / "snapshots.json"
BUDGET_MS = 100.0


def make_tree(root: Path, files: int) -> list[Path]:
    made = []
    per_dir = 100
    for i in range(files):
        directory = root / f"pkg{i // per_dir:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"module{i % per_dir:03d}.py"
        path.write_text(f"# file {i}\nVALUE = {i}\n")
        made.append(path)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    return made


T = TypeVar("T")


async def timed(job: Awaitable[T]) -> tuple[float, T]:
    start = time.perf_counter()
    result = await job
    return (time.perf_counter() - start) * 1000, result


async def bench_snapshots(root: Path, files: int, changed: int, rounds: int) -> dict[str, float]:
    made = make_tree(root, files)
    snaps = WorkspaceSnapshots()
    cold, _ = await timed(snaps.take(root))
    unchanged = [(await timed(snaps.take(root)))[0] for _ in range(rounds)]
    after_change, restore = [], []
    for r in range(rounds):
        base = await snaps.take(root)
        for path in made[r * changed : (r + 1) * changed]:
            path.write_text(path.read_text() + f"# round {r}\n")
        ms, _ = await timed(snaps.take(root))
        after_change.append(ms)
        ms, (_, changes) = await timed(snaps.restore(root, base))
        assert len(changes) == changed, changes
        restore.append(ms)
    return {
        "first_snapshot_ms": round(cold, 1),
        "unchanged_snapshot_median_ms": round(statistics.median(unchanged), 1),
        "changed_snapshot_median_ms": round(statistics.median(after_change), 1),
        "restore_changed_median_ms": round(statistics.median(restore), 1),
    }


def _turn(n: int) -> list[ev.DurableEvent]:
    user, assistant = f"msg_u{n:06d}", f"msg_a{n:06d}"
    return [
        ev.PromptAdmitted(input_id=user, prompt=ev.text_prompt(f"prompt number {n}")),
        ev.PromptPromoted(input_id=user),
        ev.StepStarted(assistant_message_id=assistant, agent="build", model="bench/model"),
        ev.TextStarted(assistant_message_id=assistant, ordinal=0),
        ev.TextEnded(assistant_message_id=assistant, ordinal=0, text=f"answer number {n} " * 5),
        ev.StepEnded(assistant_message_id=assistant, finish="stop"),
    ]


async def bench_rewind(root: Path, messages: int, rounds: int) -> dict[str, float]:
    store = await Store.open(root / "bench.db")
    rewinds, undos = [], []
    try:
        for r in range(rounds):
            sid = f"ses_bench{r}"
            await store.publish(sid, ev.SessionCreated(location=str(root), project_root=str(root)))
            batch: list[ev.DurableEvent] = []
            for n in range(messages // 2):
                batch.extend(_turn(r * messages + n))
            await store.publish_many(sid, batch)
            first = f"msg_u{r * messages:06d}"
            target = next(m for m in await store.messages(sid, limit=1) if m.id == first)
            ms, stored = await timed(store.publish(sid, ev.SessionRewound(message_id=first, boundary_seq=target.seq)))
            rewinds.append(ms)
            ms, _ = await timed(store.publish(sid, ev.RewindUndone(rewind_seq=stored.seq)))
            undos.append(ms)
            assert len(await store.messages(sid)) == messages
    finally:
        await store.close()
    return {
        "rewind_conversation_median_ms": round(statistics.median(rewinds), 1),
        "undo_rewind_median_ms": round(statistics.median(undos), 1),
    }


async def bench_fork(root: Path, messages: int, rounds: int) -> dict[str, float]:
    from agent_tui.core.history.fork import fork
    from agent_tui.core.history.rewind import Rewinder
    from agent_tui.core.run.executor import IdleExecutor

    store = await Store.open(root / "fork.db")
    try:
        sid = "ses_forkbench"
        await store.publish(sid, ev.SessionCreated(location=str(root), project_root=str(root)))
        batch: list[ev.DurableEvent] = []
        for n in range(messages // 2):
            batch.extend(_turn(10_000_000 + n))
        await store.publish_many(sid, batch)
        rewinder = Rewinder(store, IdleExecutor(), WorkspaceSnapshots())
        times = []
        for _ in range(rounds):
            parent = await store.session(sid)
            assert parent is not None
            ms, child = await timed(fork(store, IdleExecutor(), rewinder, parent))
            times.append(ms)
            assert len(await store.messages(child)) == messages
    finally:
        await store.close()
    return {"fork_median_ms": round(statistics.median(times), 1)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--messages", type=int, default=1_000)
    parser.add_argument("--fork-messages", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["AGENT_TUI_HOME"] = home
        tree = Path(home) / "tree"
        result = {"files": args.files, "changed": args.changed, "rounds": args.rounds, "messages": args.messages}
        result.update(await bench_snapshots(tree, args.files, args.changed, args.rounds))
        small = Path(home) / "small"
        make_tree(small, 100)
        snaps = WorkspaceSnapshots()
        await snaps.take(small)
        result["unchanged_100_file_snapshot_median_ms"] = round(
            statistics.median([(await timed(snaps.take(small)))[0] for _ in range(args.rounds)]), 1
        )
        result.update(await bench_rewind(Path(home), args.messages, min(args.rounds, 5)))
        result["fork_messages"] = args.fork_messages
        result.update(await bench_fork(Path(home), args.fork_messages, min(args.rounds, 5)))
    for key, value in result.items():
        print(f"{key:>40}: {value}")
    verdict = "within" if result["unchanged_snapshot_median_ms"] < BUDGET_MS else "OVER"
    print(f"unchanged {args.files}-file snapshot {verdict} the {BUDGET_MS:.0f} ms budget")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
