"""The launcher's signals while its warm child starts: a signal that comes after the request and
before the child's pid is known is held, then delivered to the child (not lost, and not the end of
the launcher alone, which left the child to be hung up on); with no child, this process takes it."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakes.held_warm import HeldWarm, recorder_command

from .helpers import Warm, start_agent


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
async def test_a_signal_before_the_child_is_known_reaches_the_child(
    sig: int, warms: Callable[..., Warm], workdir: Path, agent_home: Path
) -> None:
    warm = warms()
    held = HeldWarm(warm.socket)
    recorder = await asyncio.create_subprocess_exec(*recorder_command(), stdout=asyncio.subprocess.PIPE)
    try:
        assert await asyncio.wait_for(recorder.stdout.readline(), 30) == b"ready\n"
        launcher = await start_agent(warm.launch_env(agent_home), "run", "hi", cwd=workdir)
        request = await asyncio.to_thread(held.take)
        assert request["op"] == "launch"
        launcher.send_signal(sig)  # the launcher waits for the child's pid
        held.reply({"pid": recorder.pid})
        assert await asyncio.wait_for(recorder.stdout.readline(), 30) == f"{sig}\n".encode()
        held.reply({"exit": 128 + sig})
        await asyncio.wait_for(launcher.wait(), 30)
        assert launcher.returncode == 128 + sig
    finally:
        held.close()
        with contextlib.suppress(ProcessLookupError):
            recorder.kill()
        await recorder.wait()


async def test_a_signal_held_for_a_launch_the_warm_process_refused_lands_in_the_launcher(
    warms: Callable[..., Warm], workdir: Path, agent_home: Path
) -> None:
    warm = warms()
    held = HeldWarm(warm.socket)
    try:
        launcher = await start_agent(warm.launch_env(agent_home), "run", "hi", cwd=workdir)
        await asyncio.to_thread(held.take)
        launcher.send_signal(signal.SIGTERM)
        held.reply({"refused": "no child ready"})
        await asyncio.wait_for(launcher.wait(), 30)
        assert launcher.returncode == -signal.SIGTERM  # as a fresh process starting up ends on it
    finally:
        held.close()
