"""Two ``agent-tui serve`` processes, two hosts with their own homes, on one PostgreSQL database.

Prompts are admitted alternately on either, as fast as they answer, while the first ones run (queued,
so each is one turn): whichever host holds the lease when one is admitted drains it, or leaves it to
the holder, and each is drained exactly once, in admission order.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import aiohttp
import psycopg

from agent_tui.testing.fake_provider import FakeProvider
from tests.server.test_serve_cmd import Served, _serve
from tests.warmth import LaunchMode

WAIT_S = 60.0
PROMPTS = 6


async def stop(served: Served) -> None:
    if served.proc.returncode is None:
        served.proc.terminate()
        try:
            await asyncio.wait_for(served.proc.wait(), 30)
        except TimeoutError:
            served.proc.kill()
            await served.proc.wait()


def promoted_and_last(url: str, session_id: str) -> tuple[list[str], str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT type, data_json FROM event WHERE session_id = %s ORDER BY seq", (session_id,)
        ).fetchall()
    promoted = [json.loads(data)["input_id"] for type_, data in rows if type_ == "session.prompt.promoted.1"]
    return promoted, rows[-1][0]


async def test_prompts_admitted_on_either_serve_are_drained_once_in_order(
    workdir: Path, tmp_path: Path, fake: FakeProvider, pg_url: str, runtime_dir: Path
) -> None:
    mode = LaunchMode("in-process", runtime_dir)
    env = {"AGENT_TUI_DATABASE_URL": pg_url}
    homes = [tmp_path / "host-a", tmp_path / "host-b"]
    for home in homes:
        home.mkdir()
    hosts = [await _serve(workdir, home, fake, mode, env=env) for home in homes]
    try:
        clients = [
            aiohttp.ClientSession(
                served.url,
                headers={"Authorization": f"Bearer {json.loads((home / 'server.json').read_text())['token']}"},
            )
            for served, home in zip(hosts, homes, strict=True)
        ]
        try:
            async with clients[0].post("/api/session", json={"location": str(workdir)}) as resp:
                assert resp.status == 201
                sid = (await resp.json())["id"]
            fake.add(*({"text": f"answer {n}"} for n in range(PROMPTS)))
            ids = [f"msg_prompt_{n}" for n in range(PROMPTS)]
            for n, input_id in enumerate(ids):  # alternately on a and b, as fast as they answer
                body = {"id": input_id, "prompt": f"prompt {n}", "delivery": "queue"}
                async with clients[n % 2].post(f"/api/session/{sid}/prompt", json=body) as resp:
                    assert resp.status == 202, await resp.text()

            deadline = time.monotonic() + WAIT_S
            while True:
                promoted, last = promoted_and_last(pg_url, sid)
                if len(promoted) >= PROMPTS and last in ("session.execution.succeeded.1", "session.execution.failed.1"):
                    break
                assert time.monotonic() < deadline, f"not drained: {promoted}, last {last}"
                await asyncio.sleep(0.05)
        finally:
            for client in clients:
                await client.close()
    finally:
        for served in hosts:
            await stop(served)
    promoted, last = promoted_and_last(pg_url, sid)
    assert promoted == ids and last == "session.execution.succeeded.1"  # once each, in admission order
    assert fake.remaining == 0 and len(fake.accepted) == PROMPTS  # one model call per prompt, none twice
    assert [f"prompt {n}" in str(request.body) for n, request in enumerate(fake.accepted)] == [True] * PROMPTS
