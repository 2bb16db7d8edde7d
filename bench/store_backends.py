"""The two store engines side by side through the ``Store`` facade the app uses: medians of one run.

Both engines are measured through the same facade (``Store.publish``, ``tail.log``), so each commit
does what the app's do: claim the next seq, insert the event, project it, commit, announce the
head. SQLite is the file engine (``Store.open``: WAL, synchronous NORMAL, a commit does not fsync).
PostgreSQL is ``open_pg_store`` on a throwaway local server over its Unix socket
(``agent_tui/testing/postgres_server.py``), fsync on, one fresh database per round, measured with
``synchronous_commit`` on (each commit waits for its WAL flush) and off (the closest to SQLite's
NORMAL: a server crash may lose the last few hundred ms, never consistency). Every commit is a
rename (``session.renamed``): the append, the title, the search text and the session's head.

* **commits/s, 1 writer**: one event per transaction into one session, awaited one by one.
* **commits/s, W writers**: W sessions published to at once through the one facade (each engine's
  facade has one write connection on one thread, so they queue there).
* **append→tail ms**: from just before a publish until ``tail.log(follow=True)`` on the same facade
  yields it (woken by the in-process bus on both engines).
* **append→other host ms** (PostgreSQL only): the same, with the tail on a second facade opened on
  the same database, woken by ``NOTIFY`` (what another host sees).

Each figure is the median over the rounds; the ratio rows divide each PostgreSQL median by
SQLite's from the same run.

Usage: ``python bench/store_backends.py [--events N] [--rounds R] [--writers W] [--samples S]
[--no-sync-commit-on]``; writes ``bench/results/store_backends.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from pathlib import Path

import psycopg

from agent_tui.core.log import events as ev
from agent_tui.core.store.pg.store_engine import open_pg_store
from agent_tui.core.store.store import Store
from agent_tui.core.store.tail import Synced, log
from agent_tui.testing import postgres_server

RESULTS = Path(__file__).resolve().parent / "results" / "store_backends.json"
CREATED = ev.SessionCreated(location="/bench", project_root="/bench")
SQLITE = "sqlite"
OTHER_HOST = "other_host_tail_ms"

Opener = Callable[[int], Awaitable[Store]]
"""Opens the facade for round ``n`` (a fresh SQLite file, or a fresh PostgreSQL database)."""


def rename(n: int) -> ev.SessionRenamed:
    return ev.SessionRenamed(title=f"bench title {n}")


async def rate(store: Store, sessions: list[str], count: int) -> float:
    """Commits/s of ``count`` single-event commits spread over ``sessions`` written at once."""

    async def one(session_id: str) -> None:
        for n in range(count // len(sessions)):
            await store.publish(session_id, rename(n))

    start = time.perf_counter()
    await asyncio.gather(*(one(sid) for sid in sessions))
    return (count // len(sessions)) * len(sessions) / (time.perf_counter() - start)


async def following(store: Store, session_id: str) -> AsyncGenerator[ev.StoredEvent | Synced, None]:
    """A tail already past its replay (the ``Synced`` marker consumed)."""
    tail = log(store, session_id, after=await store.head_seq(session_id), follow=True)
    await anext(tail)
    return tail


async def latency_ms(store: Store, session_id: str, events: AsyncIterator[object], samples: int) -> float:
    """Median ms from a publish to the tail yielding it; one unmeasured publish first wakes the tail's watcher."""
    times = []
    for n in range(samples + 1):
        start = time.perf_counter()
        await store.publish(session_id, rename(n))
        await anext(events)
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times[1:]), 3)


async def figures(open_store: Opener, round_: int, events: int, writers: int, samples: int) -> dict[str, float]:
    store = await open_store(round_)
    try:
        sessions = [f"ses_{round_}_{n}" for n in range(writers)]
        for sid in sessions:
            await store.publish(sid, CREATED)
        one = await rate(store, sessions[:1], events)
        many = await rate(store, sessions, events)
        tail = await following(store, sessions[0])
        lag = await latency_ms(store, sessions[0], tail, samples)
        await tail.aclose()
        result = {"commits_per_s_1_writer": round(one), f"commits_per_s_{writers}_writers": round(many), "tail_ms": lag}
        if store.path is None:  # PostgreSQL: a second facade on the same database, as another host
            other = await open_store(round_)
            try:
                tail = await following(other, sessions[0])
                result[OTHER_HOST] = await latency_ms(store, sessions[0], tail, samples)
                await tail.aclose()
            finally:
                await other.close()
    finally:
        await store.close()
    return result


def fresh_database(server: postgres_server.PostgresServer, name: str, synchronous_commit: bool) -> str:
    with psycopg.connect(server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
        conn.execute(f"ALTER DATABASE {name} SET synchronous_commit = {'on' if synchronous_commit else 'off'}".encode())
    return server.url(name)


def medians(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in rounds), 3) for key in rounds[0]}


def ratios(results: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each engine's medians divided by SQLite's of the same run (commits: < 1 is slower; ms: > 1 is slower)."""
    base = results[SQLITE]
    return {
        label: {key: round(value / base[key], 3) for key, value in figures_.items() if key in base}
        for label, figures_ in results.items()
        if label != SQLITE
    }


def table(title: str, rows: dict[str, dict[str, float]], keys: list[str]) -> str:
    lines = [f"{title:<28}" + "".join(f"{k:>26}" for k in keys)]
    for label, values in rows.items():
        lines.append(f"{label:<28}" + "".join(f"{values[k] if k in values else '-':>26}" for k in keys))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2_000, help="commits per figure and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--samples", type=int, default=200, help="append→tail samples per round")
    parser.add_argument(
        "--no-sync-commit-on", action="store_true", help="skip PostgreSQL with synchronous_commit on (the slow one)"
    )
    args = parser.parse_args()
    a = (args.events, args.writers, args.samples)
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp, postgres_server.running(durable=True) as server:
        os.environ["AGENT_TUI_HOME"] = tmp

        async def sqlite_store(n: int) -> Store:
            return await Store.open(Path(tmp) / f"bench{n}.db")

        results[SQLITE] = medians([asyncio.run(figures(sqlite_store, n, *a)) for n in range(args.rounds)])
        variants = (("postgres_sync_commit_off", False),) + (
            () if args.no_sync_commit_on else (("postgres_sync_commit_on", True),)
        )
        for label, sync in variants:
            urls = [fresh_database(server, f"bench_{label[-3:].strip('_')}_{n}", sync) for n in range(args.rounds)]

            async def pg_store(n: int, urls: list[str] = urls) -> Store:
                return await open_pg_store(urls[n])

            results[label] = medians([asyncio.run(figures(pg_store, n, *a)) for n in range(args.rounds)])
    keys = list(results["postgres_sync_commit_off"])
    print(table(f"medians of {args.rounds} rounds", results, keys))
    print(table("ratio to sqlite, same run", ratios(results), keys))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"args": vars(args), "results": results, "ratios": ratios(results)}, indent=2) + "\n")


if __name__ == "__main__":
    main()
