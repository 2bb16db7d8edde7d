"""Drive the sweep: kill at commit 1, 2, … until a run reaches its end without being killed."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.api import Settings, open_sessions
from agent_tui.core.store.crash_seam import ENV as KILL_ENV
from tests.core.conftest import snapshot
from tests.warmth import LaunchMode

from .scenario import Point, Responder, check_log, describe, prepare_point, stored_log

PARALLEL = 2  # the CI machine's cores; each point is two short processes


@dataclass
class Outcome:
    point: Point
    killed: bool
    problems: list[str]


def child_env(point: Point, kill_after: int | None, mode: LaunchMode) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_TUI_")}
    env.update({"AGENT_TUI_HOME": str(point.home), "LITELLM_OFFLINE_MODE": "true"})
    env = mode.environ(env)
    if kill_after is not None:
        env[KILL_ENV] = str(kill_after)
    return env


async def agent_tui(
    point: Point, *args: str, mode: LaunchMode, kill_after: int | None = None, timeout: float = 90
) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_tui",
        *args,
        cwd=point.project,
        env=child_env(point, kill_after, mode),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.communicate()
        raise
    return proc.returncode if proc.returncode is not None else -1, out.decode(), err.decode()


def session_id(point: Point) -> str | None:
    if not point.database.exists():
        return None
    conn = sqlite3.connect(point.database)
    try:
        row = conn.execute("SELECT id FROM session").fetchone()
    finally:
        conn.close()
    return row[0] if row else None


KILLED = -signal.SIGKILL

PointCheck = Callable[[int, Point], Awaitable[Outcome]]


async def sweep(root: Path, check_point: PointCheck) -> list[Outcome]:
    """Points in parallel, ``PARALLEL`` at a time, until one is not killed (past the last commit)."""
    outcomes: list[Outcome] = []
    gate = asyncio.Semaphore(PARALLEL)
    done = asyncio.Event()

    async def one(n: int) -> Outcome | None:
        async with gate:
            if done.is_set():
                return None
            outcome = await check_point(n, prepare_point(root, n))
            if not outcome.killed:
                done.set()
            return outcome

    n, batch = 0, []
    while not done.is_set():
        batch = [asyncio.create_task(one(n + i + 1)) for i in range(PARALLEL * 2)]
        n += len(batch)
        outcomes += [o for o in await asyncio.gather(*batch) if o is not None]
    return sorted(outcomes, key=lambda o: o.point.index)


async def recovered(point: Point, responder: Responder) -> list[str]:
    """What is wrong with the point's log and disk after its continuation (empty: recovered)."""
    log = stored_log(point.database)
    problems = check_log(log, point, responder.requests[point.key])
    live = snapshot(point.database)
    sessions = await open_sessions(Settings(), path=point.database)
    try:
        await sessions.rebuild()
    finally:
        await sessions.close()
    if snapshot(point.database) != live:
        problems.append("db rebuild differs from the live projections")
    return problems + [f"log: {describe(log)}"] if problems else []


def report(outcomes: list[Outcome]) -> None:
    killed = [o for o in outcomes if o.killed]
    print(f"\n{len(killed)} commit points, {sum(1 for o in killed if not o.problems)} recovered")
    failures = {o.point.index: o.problems for o in killed if o.problems}
    assert not failures, failures
    assert len(killed) >= 20  # the scenario commits more often than this; fewer means the seam missed commits
