"""``agent-tui serve`` killed with SIGKILL right after each of its durable commits while one HTTP
client drives the session; a new server is started and the client resumes the session."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import aiohttp
import pytest

from agent_tui.testing.fake_provider import FakeProvider
from tests.server.conftest import SseReader
from tests.warmth import LaunchMode

from .scenario import MODEL, PROMPT, Point, Responder, stored_log
from .sweep import KILLED, Outcome, child_env, recovered, report, session_id, sweep

TOKEN = "crash-sweep-token"
SUCCEEDED = "session.execution.succeeded.1"


class Server:
    def __init__(self, proc: asyncio.subprocess.Process, url: str) -> None:
        self.proc, self.url = proc, url

    @classmethod
    async def start(cls, point: Point, fake: FakeProvider, kill_after: int | None, mode: LaunchMode) -> Server:
        env = {**child_env(point, kill_after, mode), "AGENT_TUI_SERVER_TOKEN": TOKEN}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "agent_tui",
            "--model",
            MODEL,
            "--api-base",
            fake.openai_base,
            "--api-key",
            point.key,
            "serve",
            "--port",
            "0",
            cwd=point.project,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stderr is not None
        while True:
            raw = await asyncio.wait_for(proc.stderr.readline(), 60)
            assert raw, "serve ended before it listened"
            if match := re.match(r"agent-tui: serving (http://127\.0\.0\.1:\d+) ", raw.decode()):
                break
        asyncio.get_running_loop().create_task(proc.stderr.read())  # keep the pipe drained
        return cls(proc, match.group(1))

    def client(self) -> aiohttp.ClientSession:
        return aiohttp.ClientSession(self.url, headers={"Authorization": f"Bearer {TOKEN}"})

    async def stop(self) -> int:
        if self.proc.returncode is None:
            self.proc.terminate()
        return await asyncio.wait_for(self.proc.wait(), 60)


async def follow_until_done(http: aiohttp.ClientSession, sid: str, after: int | None) -> bool:
    """True once the log shows the run succeeded; False when the server went away first."""
    params = {"follow": "1", **({"after": str(after)} if after is not None else {})}
    try:
        async with http.get(f"/api/session/{sid}/log", params=params) as resp:
            reader = SseReader(resp)
            await reader.until(lambda e: e.event == SUCCEEDED, timeout=90)
            return True
    except (aiohttp.ClientError, EOFError):
        return False


@pytest.mark.timeout(900)
async def test_every_commit_point_of_a_served_session_recovers(
    crash_fake: FakeProvider, responder: Responder, tmp_path: Path, launch_mode: LaunchMode
) -> None:
    async def check(n: int, point: Point) -> Outcome:
        server = await Server.start(point, crash_fake, kill_after=n, mode=launch_mode)
        try:
            async with server.client() as http:
                async with http.post("/api/session", json={"location": str(point.project)}) as resp:
                    sid = (await resp.json())["id"]
                async with http.post(f"/api/session/{sid}/prompt", json={"prompt": PROMPT}) as resp:
                    assert resp.status == 202
                finished = await follow_until_done(http, sid, None)
        except (aiohttp.ClientError, KeyError):
            finished = False
        if finished:
            assert await server.stop() == 0
            return Outcome(point, killed=False, problems=[])
        code = await asyncio.wait_for(server.proc.wait(), 60)
        if code != KILLED:
            return Outcome(point, True, [f"the first server exited {code}, not by SIGKILL"])
        sid = session_id(point)
        assert sid is not None, f"commit {n} was made, yet no session exists"
        log = stored_log(point.database)
        admitted = any(e["type"] == "prompt.admitted" for e in log)
        server = await Server.start(point, crash_fake, kill_after=None, mode=launch_mode)
        problems: list[str] = []
        try:
            async with server.client() as http:
                if admitted:
                    async with http.post(f"/api/session/{sid}/resume") as resp:
                        if resp.status != 202:
                            problems.append(f"resume answered {resp.status}: {await resp.text()}")
                else:  # the prompt never became durable: the client sends it again
                    async with http.post(f"/api/session/{sid}/prompt", json={"prompt": PROMPT}) as resp:
                        assert resp.status == 202
                if not await follow_until_done(http, sid, log[-1]["seq"]):
                    problems.append("the resumed run did not succeed")
        finally:
            code = await server.stop()
        if code != 0:
            problems.append(f"the second server exited {code}")
        return Outcome(point, True, problems + await recovered(point, responder))

    report(await sweep(tmp_path, check))
