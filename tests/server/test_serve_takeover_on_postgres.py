"""Two ``agent-tui serve`` processes on one PostgreSQL database: the owner of a running session dies
or stalls mid-tool, and the other host takes the session over once the lease has run out.

Nothing but the lease's expiry tells the other host: no prompt is sent to it. It finds the abandoned
lease itself (``ClusterHost`` looks every second), wins it, and its drain's stale-tool sweep fails
the tool the owner left running; the tool never runs again and the model is not called again. An
owner that was only stopped (SIGSTOP) and comes back (SIGCONT) finds its token stale and stops,
writing nothing more. The lease's TTL is the setting ``storage.lease_ttl_ms``, short here.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import psycopg
import pytest

from agent_tui.testing.fake_provider import FakeProvider
from agent_tui.testing.test_tools import MARK_ENV, marks_file
from tests.server.test_serve_cmd import Served, _serve
from tests.server.test_serve_on_postgres import stop
from tests.waiting import until
from tests.warmth import LaunchMode

WAIT_S = 60.0
TTL_MS = 2_000


@dataclass
class Host:
    served: Served
    client: aiohttp.ClientSession


@dataclass
class Row:
    seq: int
    type: str
    fence: int | None
    data: dict[str, object]


def log_rows(url: str, session_id: str) -> list[Row]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT seq, type, fence, data_json FROM event WHERE session_id = %s ORDER BY seq", (session_id,)
        ).fetchall()
    return [Row(seq, type_, fence, json.loads(data)) for seq, type_, fence, data in rows]


def lease_row(url: str, session_id: str) -> tuple[str | None, int]:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT owner, token FROM session_lease WHERE session_id = %s", (session_id,)).fetchone()
    assert row is not None, f"no lease for {session_id}"
    return row[0], row[1]


@dataclass
class MidTool:
    """A session whose prompt, sent to the first host, is running the ``block`` tool."""

    session_id: str
    owner: Host
    other: Host
    token: int
    """The owner's lease token: every write of its period carries it."""


@pytest.fixture
async def mid_tool(
    workdir: Path, tmp_path: Path, fake: FakeProvider, pg_url: str, runtime_dir: Path
) -> AsyncIterator[MidTool]:
    """Two ``serve`` hosts on one database, one of them running a session mid-tool."""
    mode = LaunchMode("in-process", runtime_dir)
    env = {
        "AGENT_TUI_DATABASE_URL": pg_url,
        "AGENT_TUI_STORAGE__LEASE_TTL_MS": str(TTL_MS),
        MARK_ENV: str(marks_file(tmp_path)),
    }
    hosts: list[Host] = []
    try:
        for name in ("host-a", "host-b"):
            home = tmp_path / name
            home.mkdir()
            served = await _serve(workdir, home, fake, mode, env=env)
            token = json.loads((home / "server.json").read_text())["token"]
            hosts.append(Host(served, aiohttp.ClientSession(served.url, headers={"Authorization": f"Bearer {token}"})))
        async with hosts[0].client.post("/api/session", json={"location": str(workdir)}) as resp:
            assert resp.status == 201
            sid = (await resp.json())["id"]
        fake.add({"tool_calls": [{"id": "call_1", "name": "block", "arguments": {"label": "owner"}}]})
        async with hosts[0].client.post(f"/api/session/{sid}/prompt", json={"prompt": "block"}) as resp:
            assert resp.status == 202, await resp.text()
        await until(
            lambda: any(row.type == "session.tool.called.1" for row in log_rows(pg_url, sid)),
            "the tool call",
            timeout=WAIT_S,
            every=0.05,
        )
        owner_name, lease_token = lease_row(pg_url, sid)
        assert owner_name is not None
        owner = next(host for host in hosts if f":{host.served.proc.pid}:" in owner_name)
        yield MidTool(sid, owner, next(host for host in hosts if host is not owner), lease_token)
    finally:
        for host in hosts:
            await host.client.close()
            if host.served.proc.returncode is None:
                os.kill(host.served.proc.pid, signal.SIGCONT)
            await stop(host.served)


def ended_elsewhere(pg_url: str, sid: str, token: int) -> bool:
    """Another token than ``token`` closed a period and released the lease."""
    rows = log_rows(pg_url, sid)
    owner_name, _ = lease_row(pg_url, sid)
    return (
        owner_name is None
        and rows[-1].type in ("session.execution.succeeded.1", "session.execution.failed.1")
        and rows[-1].fence not in (None, token)
    )


def assert_taken_over_once(pg_url: str, sid: str, old_token: int, marks: Path, fake: FakeProvider) -> list[Row]:
    """The stale tool failed once by the new owner, never run again, and no further model call."""
    rows = log_rows(pg_url, sid)
    fences = [row.fence for row in rows if row.fence is not None]  # the session's creation and prompt are unfenced
    # the old owner's rows all come first (nothing it wrote after the takeover), then one newer token's
    assert fences == sorted(fences) and fences[0] == old_token and len(set(fences)) == 2
    failed = [row for row in rows if row.type == "session.tool.failed.1"]
    assert len(failed) == 1 and failed[0].fence != old_token
    assert failed[0].data["call_id"] == "call_1"
    assert failed[0].data["error"]["type"] == "tool.stale"  # type: ignore[index]
    assert [row.type for row in rows].count("session.tool.called.1") == 1
    assert marks.read_text().splitlines()[0].startswith("block owner ") and len(marks.read_text().splitlines()) == 1
    assert len(fake.accepted) == 1 and fake.remaining == 0  # the model was not asked again
    return rows


async def test_the_other_serve_takes_over_a_killed_owners_session_and_never_reruns_its_tool(
    mid_tool: MidTool, tmp_path: Path, fake: FakeProvider, pg_url: str
) -> None:
    sid, owner, other, token = mid_tool.session_id, mid_tool.owner, mid_tool.other, mid_tool.token
    owner.served.proc.kill()
    assert await owner.served.proc.wait() == -signal.SIGKILL
    await until(lambda: ended_elsewhere(pg_url, sid, token), "the other host's takeover", timeout=WAIT_S, every=0.05)
    async with other.client.get("/api/session/active") as resp:  # it still serves, and the run is over
        assert resp.status == 200 and sid not in await resp.json()
    assert_taken_over_once(pg_url, sid, token, marks_file(tmp_path), fake)


async def test_a_stopped_owner_taken_over_past_its_lease_writes_nothing_more_when_it_resumes(
    mid_tool: MidTool, tmp_path: Path, fake: FakeProvider, pg_url: str
) -> None:
    sid, owner, other, token = mid_tool.session_id, mid_tool.owner, mid_tool.other, mid_tool.token
    os.kill(owner.served.proc.pid, signal.SIGSTOP)  # no renewal, no progress
    await until(lambda: ended_elsewhere(pg_url, sid, token), "the other host's takeover", timeout=WAIT_S, every=0.05)
    taken_over = log_rows(pg_url, sid)
    os.kill(owner.served.proc.pid, signal.SIGCONT)

    async def owner_stopped_its_run() -> bool:
        async with owner.client.get("/api/session/active") as resp:
            assert resp.status == 200  # the old owner lives on and serves
            return sid not in await resp.json()

    # its renewal finds the token stale: the drain stops
    await until(owner_stopped_its_run, "the old owner to stop its run", timeout=WAIT_S, every=0.05)
    assert owner.served.proc.returncode is None and other.served.proc.returncode is None
    assert log_rows(pg_url, sid) == taken_over  # the old owner wrote nothing after it came back
    assert_taken_over_once(pg_url, sid, token, marks_file(tmp_path), fake)
