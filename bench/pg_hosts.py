"""How much one PostgreSQL server holds: H hosts (processes, each with its own ``Store`` facade)
writing their own sessions at once, for H = 1, 2, 4, … — total commits/s and its ratio to one host.

Each host is a separate process with its own connections, as a ``serve`` on its own machine would
be, started together (a barrier), each publishing ``--events`` renames (the append, the title, the
search text, the session's head: what an app commit does) one by one into ``--sessions`` sessions
of its own. The figure is all hosts' commits divided by the slowest host's time. The server is a
throwaway local one (``agent_tui/testing/postgres_server.py``), fsync on, ``synchronous_commit``
off (as ``store_backends.py``'s faster variant). On one machine the hosts share its cores with the
server, so the curve flattens where the machine's CPU runs out, which is a lower bound on what a
dedicated server holds (docs/scaling.md reads it).

Usage: ``python bench/pg_hosts.py [--hosts 1,2,4,8] [--events N] [--sessions S] [--rounds R]``;
writes ``bench/results/pg_hosts.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg

from agent_tui.core.log import events as ev
from agent_tui.core.store.pg.store_engine import open_pg_store
from agent_tui.testing import postgres_server

RESULTS = Path(__file__).resolve().parent / "results" / "pg_hosts.json"


async def host_writes(url: str, host: int, events: int, sessions: int, start_at: float) -> float:
    """One host: open its facade, wait for the common start, publish; seconds it took."""
    store = await open_pg_store(url)
    try:
        ids = [f"ses_h{host}_{n}" for n in range(sessions)]
        for sid in ids:
            await store.publish(sid, ev.SessionCreated(location="/bench", project_root="/bench"))
        await asyncio.sleep(max(0.0, start_at - time.time()))
        started = time.perf_counter()

        async def one(session_id: str) -> None:
            for n in range(events // sessions):
                await store.publish(session_id, ev.SessionRenamed(title=f"bench title {n}"))

        await asyncio.gather(*(one(sid) for sid in ids))
        return time.perf_counter() - started
    finally:
        await store.close()


def host_process(args: tuple[str, int, int, int, float]) -> float:
    os.environ.setdefault("AGENT_TUI_HOME", tempfile.mkdtemp(prefix="bench-host-"))
    return asyncio.run(host_writes(*args))


def fresh_database(server: postgres_server.PostgresServer, name: str) -> str:
    with psycopg.connect(server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
        conn.execute(f"ALTER DATABASE {name} SET synchronous_commit = off".encode())
    return server.url(name)


def one_round(url: str, hosts: int, events: int, sessions: int) -> float:
    """Total commits/s of ``hosts`` processes started together on one database."""
    start_at = time.time() + 3.0  # every process imported and connected before the start
    with multiprocessing.get_context("spawn").Pool(hosts) as pool:
        seconds = pool.map(host_process, [(url, h, events, sessions, start_at) for h in range(hosts)])
    per_host = (events // sessions) * sessions
    return hosts * per_host / max(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default="1,2,4,8", help="host counts to measure, comma-separated")
    parser.add_argument("--events", type=int, default=600, help="commits per host and round")
    parser.add_argument("--sessions", type=int, default=4, help="sessions each host writes at once")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    counts = [int(h) for h in args.hosts.split(",")]
    results: dict[str, Any] = {}
    with postgres_server.running(durable=True) as server:
        for hosts in counts:
            rates = [
                one_round(fresh_database(server, f"hosts_{hosts}_{n}"), hosts, args.events, args.sessions)
                for n in range(args.rounds)
            ]
            results[str(hosts)] = {
                "commits_per_s": round(statistics.median(rates)),
                "rounds": [round(r) for r in rates],
            }
    base = results[str(counts[0])]["commits_per_s"]
    print(f"{'hosts':>6}{'commits/s (median)':>22}{f'ratio to {counts[0]} host(s)':>24}")
    for hosts in counts:
        rate = results[str(hosts)]["commits_per_s"]
        print(f"{hosts:>6}{rate:>22}{rate / base:>24.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"args": vars(args), "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
