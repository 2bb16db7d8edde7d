"""Durable single-event commits per second: ``Store.publish`` vs raw sqlite3.

Both sides commit one event per transaction on a fresh file with the same
PRAGMAs (WAL, synchronous NORMAL, foreign_keys, busy_timeout). The raw side
only does ``BEGIN IMMEDIATE; INSERT; COMMIT``; ``publish`` additionally
allocates the seq, runs the projectors and notifies the bus, and hops to the
writer thread and back once per event. Budget (DESIGN.md §13): >= 5 000/s.

Reads: the picker's queries over many sessions, and a log replay — a
step-shaped session of ``--replay`` events read back through ``Store.events``
pages, through ``tail.log`` (what ``agent-tui log`` and the SSE replay do) and
as one full ``Store.messages`` history (what the runner reads per step), with
the longest event-loop stall a 1 ms ticker saw during the ``tail.log`` replay
and the full history read.

Usage: ``python bench/store.py [--events N] [--rounds R] [--sessions S] [--replay E]``;
prints medians and writes ``bench/results/store.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent_tui.core.log import events as ev
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store.db import connect
from agent_tui.core.store.schema import migrate
from agent_tui.core.store.store import Store
from agent_tui.core.store.writer import Tx
from agent_tui.vocab.tool_output import ToolOutput
from agent_tui.vocab.usage import Usage

BUDGET = 5_000
RESULTS = Path(__file__).resolve().parent / "results" / "store.json"


def raw_rate(path: Path, count: int) -> float:
    conn = connect(path, StorageSettings())
    conn.execute("PRAGMA journal_mode = WAL")
    migrate(conn, path)
    _, data = ev.encode(ev.ModelSelected(model="bench/model"))
    start = time.perf_counter()
    for seq in range(1, count + 1):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(
            "INSERT INTO event (session_id, seq, type, created_ms, data_json) VALUES (?, ?, ?, ?, ?)",
            ("ses_raw", seq, "session.model.selected.1", time.time_ns() // 1_000_000, data),
        )
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return count / elapsed


async def publish_rate(path: Path, count: int, step_shaped: bool = False) -> float:
    store = await Store.open(path)
    await store.publish("ses_b", ev.SessionCreated(location="/bench", project_root="/bench"))
    events = step_events(count) if step_shaped else [ev.ModelSelected(model="bench/model")] * count
    start = time.perf_counter()
    for event in events:
        await store.publish("ses_b", event)
    elapsed = time.perf_counter() - start
    await store.close()
    return len(events) / elapsed


def step_events(count: int) -> list[ev.DurableEvent]:
    """What streamed steps with one tool call each commit, ``count // 6`` steps."""
    events: list[ev.DurableEvent] = []
    for n in range(count // 6):
        mid = f"msg_{n}"
        events += [
            ev.StepStarted(assistant_message_id=mid, agent="build", model="m"),
            ev.TextStarted(assistant_message_id=mid, ordinal=0),
            ev.TextEnded(assistant_message_id=mid, ordinal=0, text="Let me look at that file. " * 8),
            ev.ToolCalled(assistant_message_id=mid, call_id="call_0", name="read", input={"path": "a.py"}),
            ev.ToolSucceeded(assistant_message_id=mid, call_id="call_0", output=ToolOutput(text="x" * 400)),
            ev.StepEnded(assistant_message_id=mid, finish="tool_calls", usage=Usage(input_tokens=9)),
        ]
    return events


async def picker_reads(path: Path, sessions: int) -> dict[str, float]:
    """Median ms of the picker's queries over ``sessions`` sessions (3 messages each)."""
    store = await Store.open(path)
    words = ["parser", "widget", "deploy", "release", "schema", "render", "cache", "token"]
    for n in range(sessions):
        sid = f"ses_{n:06d}"
        location = f"/proj/{n % 20}"
        text = f"{words[n % 8]} task {n} about {words[(n * 3) % 8]}"

        def job(tx: Tx, sid: str = sid, location: str = location, text: str = text) -> None:
            for event in (
                ev.SessionCreated(location=location, project_root=location),
                ev.PromptAdmitted(input_id=f"msg_u{sid}", prompt=ev.text_prompt(text)),
                ev.PromptPromoted(input_id=f"msg_u{sid}"),
                ev.StepStarted(assistant_message_id=f"msg_a{sid}", agent="build", model="m"),
                ev.TextStarted(assistant_message_id=f"msg_a{sid}", ordinal=0),
                ev.TextEnded(assistant_message_id=f"msg_a{sid}", ordinal=0, text=f"Done with {text}."),
            ):
                tx.append(sid, event)

        await store.transact(job)

    figures = {
        "list_all_first_page_ms": await median_ms(lambda: store.list_sessions(limit=51)),
        "list_location_first_page_ms": await median_ms(lambda: store.list_sessions("/proj/3", limit=51)),
        "search_common_prefix_ms": await median_ms(lambda: store.list_sessions(search="par", limit=51)),
        "search_two_words_ms": await median_ms(lambda: store.list_sessions(search="deploy 77", limit=51)),
    }
    await store.close()
    return figures


async def median_ms(call: Callable[[], Awaitable[object]], rounds: int = 15) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


async def replay_reads(path: Path, count: int) -> dict[str, float]:
    """Median ms to read a ``count``-event session back, and the loop's longest stall meanwhile."""
    from agent_tui.core.store.tail import log

    store = await Store.open(path)
    await store.publish("ses_r", ev.SessionCreated(location="/bench", project_root="/bench"))
    events = step_events(count - 1)
    for start in range(0, len(events), 600):
        await store.publish_many("ses_r", events[start : start + 600])
    head = await store.head_seq("ses_r")

    async def pages() -> None:
        cursor = 0
        while batch := await store.events("ses_r", after=cursor):
            cursor = batch[-1].seq
        assert cursor == head

    async def tail_replay() -> None:
        seen = 0
        async for _ in log(store, "ses_r"):
            seen += 1
        assert seen == head + 1  # the events and one Synced

    async def stall_ms(call: Callable[[], Awaitable[object]]) -> float:
        """The longest gap a 1 ms ticker sees while ``call()`` runs (loop blocked), median of 5."""
        stalls = []
        for _ in range(5):
            done = asyncio.Event()

            async def ticker(done: asyncio.Event) -> float:
                worst, last = 0.0, time.perf_counter()
                while not done.is_set():
                    await asyncio.sleep(0.001)
                    now = time.perf_counter()
                    worst, last = max(worst, now - last), now
                return worst * 1000

            task = asyncio.create_task(ticker(done))
            await call()
            done.set()
            stalls.append(await task)
        return round(statistics.median(stalls), 2)

    figures = {
        "replay_events": head,
        "replay_events_pages_ms": await median_ms(pages, 5),
        "replay_tail_log_ms": await median_ms(tail_replay, 5),
        "replay_messages_all_ms": await median_ms(lambda: store.messages("ses_r"), 5),
    }
    figures["replay_tail_log_loop_stall_max_ms"] = await stall_ms(tail_replay)
    figures["replay_messages_all_loop_stall_max_ms"] = await stall_ms(lambda: store.messages("ses_r"))
    await store.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions for the picker read figures")
    parser.add_argument("--replay", type=int, default=10_000, help="events in the replayed session")
    args = parser.parse_args()
    raw, store, steps = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = tmp
        for n in range(args.rounds):
            raw.append(raw_rate(Path(tmp) / f"raw{n}.db", args.events))
            store.append(asyncio.run(publish_rate(Path(tmp) / f"store{n}.db", args.events)))
            steps.append(asyncio.run(publish_rate(Path(tmp) / f"steps{n}.db", args.events, step_shaped=True)))
        picker = asyncio.run(picker_reads(Path(tmp) / "picker.db", args.sessions))
        replay = asyncio.run(replay_reads(Path(tmp) / "replay.db", args.replay))
    result = {
        "events_per_round": args.events,
        "rounds": args.rounds,
        "sqlite_version": sqlite3.sqlite_version,
        "raw_sqlite3_commits_per_s": round(statistics.median(raw)),
        "publish_commits_per_s": round(statistics.median(store)),
        "publish_step_shaped_commits_per_s": round(statistics.median(steps)),
        "publish_to_raw_ratio": round(statistics.median(store) / statistics.median(raw), 3),
        "budget_commits_per_s": BUDGET,
    }
    result["within_budget"] = result["publish_commits_per_s"] >= BUDGET
    result["picker_sessions"] = args.sessions
    result.update(picker)
    result.update(replay)
    print(f"raw sqlite3 (BEGIN IMMEDIATE/INSERT/COMMIT): {result['raw_sqlite3_commits_per_s']:>7} commits/s")
    print(f"Store.publish (seq + projectors + bus):      {result['publish_commits_per_s']:>7} commits/s")
    print(f"Store.publish, step-shaped event mix:        {result['publish_step_shaped_commits_per_s']:>7} commits/s")
    print(
        f"publish / raw ratio: {result['publish_to_raw_ratio']:.3f}   budget >= {BUDGET}/s: "
        f"{'ok' if result['within_budget'] else 'MISSED'}"
    )
    print(f"picker over {args.sessions} sessions (median ms): " + ", ".join(f"{k[:-3]} {v}" for k, v in picker.items()))
    print(
        f"replay of {replay['replay_events']} events (median ms): "
        + ", ".join(f"{k[7:-3]} {v}" for k, v in replay.items() if k.endswith("_ms"))
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
