"""Launching ``agent-tui`` both ways in tests: in-process, and through a warm process."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

UNDER_LOAD_S = 120.0
"""The deadline for what takes a second or two alone: with both cores busy, a cold in-process
launch took more than 30 s to reach its first tool call. Only a broken launch waits that long."""


def stop_warm_processes(runtime_dir: Path) -> None:
    """Ask every warm process under ``runtime_dir`` to stop (the tests' own, at the session's end)."""
    from agent_tui.warm import client

    env = {"XDG_RUNTIME_DIR": str(runtime_dir)}
    for path in client.server_sockets(env):
        client.ask(path, "stop")


class LaunchMode:
    """``env`` goes over the environment of every ``agent-tui`` process a test starts."""

    def __init__(self, name: str, runtime_dir: Path) -> None:
        self.name = name
        self.warm = name == "warm"
        self.runtime_dir = runtime_dir
        self._launches_before = 0

    @property
    def env(self) -> dict[str, str]:
        env = {"XDG_RUNTIME_DIR": str(self.runtime_dir)}
        if not self.warm:
            env["AGENT_TUI_NO_WARM"] = "1"
        return env

    def environ(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """``base`` (the test's environment by default) with this mode applied."""
        env = {**(os.environ if base is None else base), **self.env}
        if self.warm:
            env.pop("AGENT_TUI_NO_WARM", None)
        return env

    async def prepare(self) -> None:
        if self.warm:
            self._launches_before = (await self.status())["launches"]

    async def status(self) -> dict:
        """The warm process for this test's environment, started if need be (``agent-tui warm start``)."""
        start = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "agent_tui",
            "warm",
            "start",
            env=self.environ(),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(start.communicate(), 120)
        assert start.returncode == 0, err.decode()
        from agent_tui.warm import client, place

        answer = client.ask(str(place.socket_path(place.launch_key(self.environ()), self.environ())), "status")
        assert answer is not None, out.decode()
        return answer

    async def verify(self) -> None:
        """A warm run's launches were served by the warm process, not started in-process."""
        if self.warm:
            launches = (await self.status())["launches"]
            assert launches > self._launches_before, "no launch of this test went through the warm process"

    async def agent_pid(self, launcher: asyncio.subprocess.Process, timeout: float = UNDER_LOAD_S) -> int:
        """The process running the agent: the launcher itself, or the warm child serving it
        (the test's only running launch)."""
        if not self.warm:
            return launcher.pid
        deadline = asyncio.get_running_loop().time() + timeout
        while len(running := (await self.status())["running"]) != 1:
            assert asyncio.get_running_loop().time() < deadline, f"running launches: {running}"
            await asyncio.sleep(0.05)
        return running[0]

    async def kill_agent(self, launcher: asyncio.subprocess.Process) -> None:
        """SIGKILL the agent (a crash): the launcher then ends as the agent did."""
        os.kill(await self.agent_pid(launcher), 9)

    def __repr__(self) -> str:
        return json.dumps(self.name)
