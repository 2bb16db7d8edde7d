"""A host in another process dies (kill -9) or stalls (SIGSTOP) mid-tool: the other takes over."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from agent_tui.core.store.pg import lease as pg_lease
from tests.core.run.cluster_helpers import CALL, WAIT_S, Host, create_session, fences, until_lease

ROOT = Path(__file__).resolve().parents[3]
CHILD_TTL_MS = 600
LONG_MS = 30_000
CHILD_TOKEN, TAKEOVER_TOKEN = 2, 3  # the session was created under token 1


@asynccontextmanager
async def child_running_a_tool(url: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``host-child`` (a process of its own) runs ``ses_1`` and is mid-tool."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).with_name("cluster_host.py")), url, str(CHILD_TTL_MS),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env, cwd=ROOT,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        assert await asyncio.wait_for(child.stdout.readline(), WAIT_S) == b"running\n"
        yield child
    finally:
        if child.returncode is None:
            os.kill(child.pid, signal.SIGCONT)
            child.kill()
            await child.wait()


@pytest.fixture
async def b(pg_url: str) -> AsyncIterator[Host]:
    """The other host, in this process, with ``ses_1`` created."""
    host = await Host.open(pg_url, "host-b", LONG_MS)
    try:
        await create_session(host.log, "ses_1")
        yield host
    finally:
        await host.close()


async def test_kill_9_of_the_owner_mid_tool_then_takeover_fails_the_stale_tool_once(pg_url: str, b: Host) -> None:
    async with child_running_a_tool(pg_url) as child:
        child.kill()
        assert await child.wait() == -signal.SIGKILL
    await until_lease(b.log, "ses_1", held=False)  # runs out: nobody released it
    abandoned = await b.leases.statement(pg_lease.abandoned)
    assert [(lease.session_id, lease.owner) for lease in abandoned] == [("ses_1", "host-child")]
    assert await b.run_when_free("ses_1") is None
    assert b.drainer.swept == [2]  # the stale tool failed and its step closed, first thing
    assert await fences(b.log, "ses_1") == [
        ("created", 1), ("execution.started", CHILD_TOKEN), ("step.started", CHILD_TOKEN),
        ("tool.called", CHILD_TOKEN), ("execution.started", TAKEOVER_TOKEN), ("tool.failed", TAKEOVER_TOKEN),
        ("step.failed", TAKEOVER_TOKEN), ("execution.succeeded", TAKEOVER_TOKEN),
    ]  # fmt: skip
    calls = await b.store.tool_calls("ses_1")
    assert [(c.call_id, c.state, (c.error or {}).get("type")) for c in calls] == [(CALL, "failed", "tool.stale")]
    assert await b.coordinator.run("ses_1") is None  # a later drain has nothing left to sweep
    assert b.drainer.swept == [2, 0]


async def test_an_owner_stopped_past_expiry_is_refused_when_it_wakes_and_stops(pg_url: str, b: Host) -> None:
    async with child_running_a_tool(pg_url) as child:
        os.kill(child.pid, signal.SIGSTOP)  # no renewal, no progress
        assert await b.run_when_free("ses_1") is None  # after expiry: swept, drained, released
        taken_over = await fences(b.log, "ses_1")
        os.kill(child.pid, signal.SIGCONT)
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(b"finish\n")  # its tool ends: the result would be its next write
        outcome = json.loads(await asyncio.wait_for(child.stdout.readline(), WAIT_S))
        assert await asyncio.wait_for(child.wait(), WAIT_S) == 0
    assert outcome["error"]["message"] == "interrupted (superseded)"
    assert outcome["lost_by"] in ("renewal", "write")  # whichever of its next statements came first
    assert await fences(b.log, "ses_1") == taken_over  # nothing of the old owner's landed after
    assert ("tool.failed", TAKEOVER_TOKEN) in taken_over and ("tool.success", CHILD_TOKEN) not in taken_over
