"""The two store engines side by side: commits/s and append→tail latency, medians of one run.

SQLite is the existing ``Store`` (one file, WAL, synchronous NORMAL: a commit does not fsync; it
projects every event). PostgreSQL is ``core/store/pg``'s ``PgEventLog`` on a throwaway local
server over its Unix socket (``agent_tui/testing/postgres_server.py``), fsync on, measured with
``synchronous_commit`` on (each commit waits for its WAL flush) and off (the closest to SQLite's
NORMAL: a server crash may lose the last few hundred ms, never consistency). Both engines project
every event in the append's transaction, with the same projectors.

* **commits/s, 1 writer**: one event per transaction into one session, awaited one by one.
* **commits/s, W writers**: W sessions appended at once (W connections on PostgreSQL; SQLite's
  single writer thread serializes them).
* **append→tail ms**: from just before an append until a tail yields the event; SQLite's tail is
  ``tail.log(follow=True)`` woken by the in-process bus, PostgreSQL's a ``PgTail`` on its own
  connection woken by ``NOTIFY`` (what another host would see).

Usage: ``python bench/store_backends.py [--events N] [--rounds R] [--writers W] [--samples S]``;
writes ``bench/results/store_backends.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import psycopg

from agent_tui.core.log import events as ev
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.tail import PgTail
from agent_tui.core.store.store import Store
from agent_tui.core.store.tail import log as sqlite_tail
from agent_tui.testing import postgres_server

RESULTS = Path(__file__).resolve().parent / "results" / "store_backends.json"
TTL_MS = 600_000
CREATED = ev.SessionCreated(location="/bench", project_root="/bench")
EVENT = ev.ModelSelected(model="bench/model")

Writer = Callable[[str], Awaitable[object]]


async def rate(write: Writer, sessions: list[str], count: int) -> float:
    """Commits/s of ``count`` single-event commits spread over ``sessions`` written at once."""

    async def one(session_id: str) -> None:
        for _ in range(count // len(sessions)):
            await write(session_id)

    start = time.perf_counter()
    await asyncio.gather(*(one(sid) for sid in sessions))
    return (count // len(sessions)) * len(sessions) / (time.perf_counter() - start)


async def latency_ms(write: Callable[[], Awaitable[object]], events: AsyncIterator[object], samples: int) -> float:
    """Median ms from an append to the tail yielding it (the tail already caught up)."""
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        await write()
        await anext(events)
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 3)


async def sqlite_figures(tmp: Path, round_: int, events: int, writers: int, samples: int) -> dict[str, float]:
    async with await Store.open(tmp / f"bench{round_}.db") as store:
        sessions = [f"ses_{round_}_{n}" for n in range(writers)]
        for sid in sessions:
            await store.publish(sid, CREATED)

        async def write(sid: str) -> object:
            return await store.publish(sid, EVENT)

        one = await rate(write, sessions[:1], events)
        many = await rate(write, sessions, events)
        tail = sqlite_tail(store, sessions[0], after=await store.head_seq(sessions[0]), follow=True)
        await anext(tail)  # the Synced marker
        lag = await latency_ms(lambda: store.publish(sessions[0], EVENT), tail, samples)
        await tail.aclose()
    return {"commits_per_s_1_writer": round(one), f"commits_per_s_{writers}_writers": round(many), "tail_ms": lag}


async def pg_figures(url: str, round_: int, events: int, writers: int, samples: int) -> dict[str, float]:
    logs = [await PgEventLog.open(url) for _ in range(writers)]
    try:
        sessions = [f"ses_{round_}_{n}" for n in range(writers)]
        tokens = {}
        for log, sid in zip(logs, sessions, strict=True):
            lease = await log.acquire(sid, f"bench-{sid}", TTL_MS)
            tokens[sid] = lease.token
            await log.append(sid, [CREATED], lease.token)
        by_session = dict(zip(sessions, logs, strict=True))

        async def write(sid: str) -> object:
            return await by_session[sid].append(sid, [EVENT], tokens[sid])

        one = await rate(write, sessions[:1], events)
        many = await rate(write, sessions, events)
        tail = PgTail(logs[-1], sessions[0], after=await logs[0].head_seq(sessions[0]))
        events_ = aiter(tail)
        lag = await latency_ms(lambda: write(sessions[0]), events_, samples)
        await events_.aclose()
        await tail.close()
    finally:
        for log in logs:
            await log.close()
    return {"commits_per_s_1_writer": round(one), f"commits_per_s_{writers}_writers": round(many), "tail_ms": lag}


def fresh_database(server: postgres_server.PostgresServer, name: str, synchronous_commit: bool) -> str:
    with psycopg.connect(server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
        conn.execute(f"ALTER DATABASE {name} SET synchronous_commit = {'on' if synchronous_commit else 'off'}".encode())
    return server.url(name)


def medians(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in rounds), 3) for key in rounds[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2_000, help="commits per figure and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--samples", type=int, default=200, help="append→tail samples per round")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp, postgres_server.running(durable=True) as server:
        os.environ["AGENT_TUI_HOME"] = tmp
        a = (args.events, args.writers, args.samples)
        results["sqlite"] = medians([asyncio.run(sqlite_figures(Path(tmp), n, *a)) for n in range(args.rounds)])
        for label, sync in (("postgres_sync_commit_on", True), ("postgres_sync_commit_off", False)):
            rounds = []
            for n in range(args.rounds):
                url = fresh_database(server, f"bench_{label[-3:].strip('_')}_{n}", sync)
                rounds.append(asyncio.run(pg_figures(url, n, *a)))
            results[label] = medians(rounds)
    keys = list(results["sqlite"])
    print(f"{'medians of ' + str(args.rounds) + ' rounds':<28}" + "".join(f"{k:>26}" for k in keys))
    for label, figures in results.items():
        print(f"{label:<28}" + "".join(f"{figures[k]:>26}" for k in keys))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"args": vars(args), "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
