"""The installed ``agent-tui serve`` in a real process: port 0, token file, a real run, SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import stat
import sys
from pathlib import Path

import aiohttp
import pytest

from agent_tui.commands.serve_cmd import is_loopback
from agent_tui.core.api import open_sessions
from agent_tui.testing.fake_provider import FakeProvider
from tests.warmth import LaunchMode

from .conftest import SseReader, short


class Served:
    def __init__(self, proc: asyncio.subprocess.Process, url: str, lines: list[str]) -> None:
        self.proc, self.url, self.lines = proc, url, lines


async def _serve(
    workdir: Path,
    home: Path,
    fake: FakeProvider,
    mode: LaunchMode,
    *flags: str,
    env: dict[str, str] | None = None,
    ignoring: tuple[int, ...] = (),
) -> Served:
    (home / "config.toml").write_text('[[permission]]\naction = "test"\npattern = "*"\neffect = "allow"\n')
    environ = {
        **mode.environ(),
        "AGENT_TUI_HOME": str(home),
        "LITELLM_OFFLINE_MODE": "true",
        "AGENT_TUI_TEST_TOOLS": "agent_tui.testing.test_tools:register",
        **(env or {}),
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent_tui",
        "--model",
        "openai/fake-model",
        "--api-base",
        fake.openai_base,
        "--api-key",
        "test-key",
        "serve",
        "--port",
        "0",
        *flags,
        cwd=workdir,
        env=environ,
        stdin=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=(lambda: [signal.signal(signum, signal.SIG_IGN) for signum in ignoring]) if ignoring else None,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    while not any(line.startswith("agent-tui: url and token written to") for line in lines):
        raw = await asyncio.wait_for(proc.stderr.readline(), 30)
        assert raw, f"serve ended early: {lines}"
        lines.append(raw.decode().rstrip("\n"))
    match = next(m for line in lines if (m := re.match(r"agent-tui: serving (http://127\.0\.0\.1:(\d+)) ", line)))
    assert int(match.group(2)) > 0
    return Served(proc, match.group(1), lines)


async def test_serve_runs_prompts_and_shuts_down_cleanly(
    workdir: Path, agent_home: Path, fake: FakeProvider, launch_mode: LaunchMode
) -> None:
    served = await _serve(workdir, agent_home, fake, launch_mode)
    info_path = agent_home / "server.json"
    info = json.loads(info_path.read_text())
    assert stat.S_IMODE(info_path.stat().st_mode) == 0o600
    assert info["url"] == served.url and info["pid"] == await launch_mode.agent_pid(served.proc)
    assert f"agent-tui: token {info['token']}" in served.lines
    assert not any("WARNING" in line for line in served.lines)
    headers = {"Authorization": f"Bearer {info['token']}"}
    try:
        async with aiohttp.ClientSession(served.url, headers=headers) as http:
            async with http.get("/api/session", headers={"Authorization": "Bearer wrong"}) as resp:
                assert resp.status == 401
            async with http.post("/api/session", json={"location": str(workdir)}) as resp:
                assert resp.status == 201
                sid = (await resp.json())["id"]
            fake.add(
                {"text": "served answer", "chunks": 3},
                {"tool_calls": [{"id": "call_1", "name": "block", "arguments": {}}]},
            )
            async with http.get(f"/api/session/{sid}/log", params={"follow": "1"}) as log:
                reader = SseReader(log)
                await reader.until(lambda e: e.event == "log.synced")
                async with http.post(f"/api/session/{sid}/prompt", json={"prompt": "hello"}) as resp:
                    assert resp.status == 202
                run = await reader.until(lambda e: e.event == "session.execution.succeeded.1")
                text = next(e.json()["data"]["text"] for e in run if e.event == "session.text.ended.1")
                assert text == "served answer"
                async with http.post(f"/api/session/{sid}/prompt", json={"prompt": "now block"}) as resp:
                    assert resp.status == 202
                await reader.until(lambda e: e.event == "session.tool.called.1")
                served.proc.send_signal(signal.SIGTERM)
                tail = await reader.rest()  # the stream ends when the server shuts down
        assert await asyncio.wait_for(served.proc.wait(), 30) == 0
    finally:
        if served.proc.returncode is None:
            served.proc.kill()
            await served.proc.wait()
    assert "session.execution.interrupted.1" in [e.event for e in tail]
    assert not info_path.exists()
    sessions = await open_sessions(path=agent_home / "agent-tui.db")
    try:
        events = (await sessions.history(sid, limit=100)).data
    finally:
        await sessions.close()
    assert short(events[-1].type) == "execution.interrupted" and events[-1].event.reason == "shutdown"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP])  # Ctrl+C; its terminal closing
async def test_serve_uses_the_token_from_the_environment(
    workdir: Path, agent_home: Path, fake: FakeProvider, stop: int, launch_mode: LaunchMode
) -> None:
    served = await _serve(workdir, agent_home, fake, launch_mode, env={"AGENT_TUI_SERVER_TOKEN": "from-env-token"})
    try:
        assert "agent-tui: token from AGENT_TUI_SERVER_TOKEN" in served.lines
        assert not any("from-env-token" in line for line in served.lines)
        async with aiohttp.ClientSession(served.url) as http:
            async with http.get("/api/session/active", headers={"Authorization": "Bearer from-env-token"}) as resp:
                assert resp.status == 200 and await resp.json() == {}
        served.proc.send_signal(stop)
        assert await asyncio.wait_for(served.proc.wait(), 30) == 0
    finally:
        if served.proc.returncode is None:
            served.proc.kill()
            await served.proc.wait()


async def test_a_busy_port_is_one_clear_error(workdir: Path, agent_home: Path, launch_mode: LaunchMode) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "agent_tui",
            "serve",
            "--port",
            str(port),
            cwd=workdir,
            env={**launch_mode.environ(), "AGENT_TUI_HOME": str(agent_home)},
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 1
    assert err.decode().strip().startswith(f"agent-tui: cannot listen on 127.0.0.1:{port}:")
    assert not (agent_home / "server.json").exists()


def test_loopback_detection() -> None:
    assert all(is_loopback(host) for host in ("127.0.0.1", "127.1.2.3", "::1", "localhost"))
    assert not any(is_loopback(host) for host in ("0.0.0.0", "192.168.1.4", "::", "example.com"))


async def test_under_nohup_serve_goes_on_through_a_hang_up(
    workdir: Path, agent_home: Path, fake: FakeProvider, launch_mode: LaunchMode
) -> None:
    """A launch keeps the caller's signal dispositions: SIGHUP ignored (nohup) stays ignored, warm or not."""
    served = await _serve(workdir, agent_home, fake, launch_mode, ignoring=(signal.SIGHUP,))
    token = json.loads((agent_home / "server.json").read_text())["token"]
    try:
        from tests.commands.test_run_cmd import dispositions

        ignoring, catching = dispositions(await launch_mode.agent_pid(served.proc))
        assert signal.SIGHUP in ignoring and signal.SIGHUP not in catching
        served.proc.send_signal(signal.SIGHUP)
        os.kill(await launch_mode.agent_pid(served.proc), signal.SIGHUP)  # the server itself, when warm
        async with aiohttp.ClientSession(served.url, headers={"Authorization": f"Bearer {token}"}) as http:
            async with http.get("/api/session") as resp:
                assert resp.status == 200  # still serving
        assert served.proc.returncode is None
        served.proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(served.proc.wait(), 30) == 0
    finally:
        if served.proc.returncode is None:
            served.proc.kill()
            await served.proc.wait()
