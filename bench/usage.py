"""``agent-tui usage`` over 10 000 sessions: the report's SQL sums, and the command end to end.

    .venv/bin/python bench/usage.py [--sessions 10000] [--steps 8] [--runs 7]

A store is made in a temporary ``AGENT_TUI_HOME`` through ``Store.open`` (so its schema is the
real one), then filled with direct SQL inserts: N session rows over 5 projects and 180 days,
each with ``--steps`` ``step_usage`` rows over 3 models and 2 agents, one model without a price.
Each grouping's ``Sessions.usage_report`` is timed (median of ``--runs``) on that store and, as
the baseline in the same process, on an empty one; then ``agent-tui usage --by GROUP`` runs as a
process (median of 3), which adds the interpreter, the imports and opening the store.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.core.api import Sessions, open_sessions  # noqa: E402

GROUPINGS = ("day", "week", "month", "model", "agent", "project", "session")
MODELS = (("anthropic/claude-sonnet-4-5", 3.0, 15.0), ("openai/gpt-4o", 2.5, 10.0), ("local/qwen", None, None))
DAY_MS = 86_400_000
RESULTS = Path(__file__).resolve().parent / "results"


def fill(path: Path, sessions: int, steps: int, seed: int = 30) -> int:
    """Session and ``step_usage`` rows in one transaction; returns the step rows written."""
    rng = random.Random(seed)
    now = int(time.time() * 1000)
    conn = sqlite3.connect(path)
    conn.execute("BEGIN")
    session_rows, step_rows = [], []
    for n in range(sessions):
        sid = f"ses_{n:06d}"
        root = f"/home/dev/project{n % 5}"
        created = now - rng.randrange(180 * DAY_MS)
        session_rows.append((sid, f"session {n}", root, root, "build", MODELS[n % 3][0], created, created))
        for s in range(steps):
            model, price_in, price_out = MODELS[(n + s) % 3]
            tokens_in, tokens_out = rng.randrange(2_000, 60_000), rng.randrange(50, 4_000)
            cost = None if price_in is None else (tokens_in * price_in + tokens_out * (price_out or 0)) / 1e6
            source = None if cost is None else "price_map"
            agent = "explore" if s % 4 == 3 else "build"
            at = created + s * 30_000
            step_rows.append((sid, s + 2, at, model, agent, tokens_in, tokens_out, 0, tokens_in // 2, 0, cost, source))
    conn.executemany(
        "INSERT INTO session (id, title, location, project_root, agent, model, created, updated)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        session_rows,
    )
    conn.executemany("INSERT INTO step_usage VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", step_rows)
    conn.execute("COMMIT")
    conn.close()
    return len(step_rows)


async def time_report(sessions: Sessions, by: str, runs: int) -> tuple[float, int]:
    """Median seconds of ``usage_report(by)`` over ``runs`` (after one warm-up run), and its row count."""
    rows = await sessions.usage_report(by)  # type: ignore[arg-type]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await sessions.usage_report(by)  # type: ignore[arg-type]
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(rows)


async def measure(path: Path, runs: int) -> dict[str, tuple[float, int]]:
    sessions = await open_sessions(path=path)
    try:
        return {by: await time_report(sessions, by, runs) for by in GROUPINGS}
    finally:
        await sessions.close()


def command_seconds(home: Path, by: str, runs: int = 3) -> float:
    env = {**os.environ, "AGENT_TUI_HOME": str(home)}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "agent_tui", "usage", "--by", by], env=env, check=True, capture_output=True
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as empty_home, tempfile.TemporaryDirectory() as home:
        empty_path, path = Path(empty_home) / "agent-tui.db", Path(home) / "agent-tui.db"
        os.environ["AGENT_TUI_HOME"] = home
        baseline = asyncio.run(measure(empty_path, args.runs))  # creates the empty store, schema and all
        asyncio.run(measure(path, 1))  # creates the store to fill
        start = time.perf_counter()
        steps = fill(path, args.sessions, args.steps)
        print(f"filled {args.sessions:,} sessions, {steps:,} steps in {time.perf_counter() - start:.1f} s")
        full = asyncio.run(measure(path, args.runs))
        print(
            f"{'--by':<8} {'empty store':>12} {f'{args.sessions:,} sessions':>16} {'rows':>7} {'agent-tui usage':>16}"
        )
        figures = {}
        for by in GROUPINGS:
            seconds, rows = full[by]
            process = command_seconds(Path(home), by)
            print(f"{by:<8} {baseline[by][0] * 1000:>9.2f} ms {seconds * 1000:>13.1f} ms {rows:>7,} {process:>14.2f} s")
            figures[by] = {"empty_s": baseline[by][0], "report_s": seconds, "rows": rows, "command_s": process}
    RESULTS.mkdir(exist_ok=True)
    record = {"sessions": args.sessions, "steps": args.sessions * args.steps, "by": figures}
    (RESULTS / "usage.json").write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
