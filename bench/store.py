"""Durable single-event commits per second: ``Store.publish`` vs raw sqlite3.

Both sides commit one event per transaction on a fresh file with the same
PRAGMAs (WAL, synchronous NORMAL, foreign_keys, busy_timeout). The raw side
only does ``BEGIN IMMEDIATE; INSERT; COMMIT``; ``publish`` additionally
allocates the seq, runs the projectors and notifies the bus, and hops to the
writer thread and back once per event. Budget (DESIGN.md §13): >= 5 000/s.

Usage: ``python bench/store.py [--events N] [--rounds R]``; prints medians and
writes ``bench/results/store.json``.
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
from pathlib import Path

from agent_tui.core import events as ev
from agent_tui.core.config import StorageSettings
from agent_tui.core.db import connect
from agent_tui.core.schema import migrate
from agent_tui.core.store import Store
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
    events: list[ev.DurableEvent]
    if step_shaped:  # what a streamed step with one tool call commits, event by event
        events = []
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
    else:
        events = [ev.ModelSelected(model="bench/model")] * count
    start = time.perf_counter()
    for event in events:
        await store.publish("ses_b", event)
    elapsed = time.perf_counter() - start
    await store.close()
    return len(events) / elapsed


async def picker_reads(path: Path, sessions: int) -> dict[str, float]:
    """Median ms of the picker's queries over ``sessions`` sessions (3 messages each)."""
    store = await Store.open(path)
    words = ["parser", "widget", "deploy", "release", "schema", "render", "cache", "token"]
    for n in range(sessions):
        sid = f"ses_{n:06d}"
        location = f"/proj/{n % 20}"
        text = f"{words[n % 8]} task {n} about {words[(n * 3) % 8]}"
        await store.transact(lambda tx, sid=sid, location=location, text=text: [
            tx.append(sid, event) for event in (
                ev.SessionCreated(location=location, project_root=location),
                ev.PromptAdmitted(input_id=f"msg_u{sid}", prompt=ev.text_prompt(text)),
                ev.PromptPromoted(input_id=f"msg_u{sid}"),
                ev.StepStarted(assistant_message_id=f"msg_a{sid}", agent="build", model="m"),
                ev.TextStarted(assistant_message_id=f"msg_a{sid}", ordinal=0),
                ev.TextEnded(assistant_message_id=f"msg_a{sid}", ordinal=0, text=f"Done with {text}."),
            )
        ])

    async def median_ms(call) -> float:  # type: ignore[no-untyped-def]
        times = []
        for _ in range(15):
            start = time.perf_counter()
            await call()
            times.append((time.perf_counter() - start) * 1000)
        return round(statistics.median(times), 2)

    figures = {
        "list_all_first_page_ms": await median_ms(lambda: store.list_sessions(limit=51)),
        "list_location_first_page_ms": await median_ms(lambda: store.list_sessions("/proj/3", limit=51)),
        "search_common_prefix_ms": await median_ms(lambda: store.list_sessions(search="par", limit=51)),
        "search_two_words_ms": await median_ms(lambda: store.list_sessions(search="deploy 77", limit=51)),
    }
    await store.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions for the picker read figures")
    args = parser.parse_args()
    raw, store, steps = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AGENT_TUI_HOME"] = tmp
        for n in range(args.rounds):
            raw.append(raw_rate(Path(tmp) / f"raw{n}.db", args.events))
            store.append(asyncio.run(publish_rate(Path(tmp) / f"store{n}.db", args.events)))
            steps.append(asyncio.run(publish_rate(Path(tmp) / f"steps{n}.db", args.events, step_shaped=True)))
        picker = asyncio.run(picker_reads(Path(tmp) / "picker.db", args.sessions))
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
    print(f"raw sqlite3 (BEGIN IMMEDIATE/INSERT/COMMIT): {result['raw_sqlite3_commits_per_s']:>7} commits/s")
    print(f"Store.publish (seq + projectors + bus):      {result['publish_commits_per_s']:>7} commits/s")
    print(f"Store.publish, step-shaped event mix:        {result['publish_step_shaped_commits_per_s']:>7} commits/s")
    print(f"publish / raw ratio: {result['publish_to_raw_ratio']:.3f}   budget >= {BUDGET}/s: "
          f"{'ok' if result['within_budget'] else 'MISSED'}")
    print(f"picker over {args.sessions} sessions (median ms): " + ", ".join(f"{k[:-3]} {v}" for k, v in picker.items()))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
