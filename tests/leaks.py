"""Processes a test run started and left running: found when the run ends, killed and reported.

The run marks its own environment (:data:`RUN_MARK_ENV`, one value per run); every process it
starts inherits the mark (launchers, warm processes and the children they fork, the agent's
commands and MCP servers), so ``/proc`` tells them apart from other runs' processes on the same
machine, even once their parent is gone. A warm child shows the environment its warm process was
started with, which carries the mark too."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from pathlib import Path

RUN_MARK_ENV = "PYTEST_AGENT_TUI_RUN"  # not AGENT_TUI_*: the tests strip those from launches' environments
PAUSE_S = 0.05


def mark_this_run() -> str:
    """Mark this process's environment (inherited by all it starts); the run's mark."""
    mark = os.environ.get(RUN_MARK_ENV) or f"{os.getpid()}-{secrets.token_hex(6)}"
    os.environ[RUN_MARK_ENV] = mark
    return mark


def left_running(mark: str) -> dict[int, str]:
    """Live processes (not zombies) carrying ``mark``, but this one: pid -> command line."""
    wanted = f"{RUN_MARK_ENV}={mark}".encode()
    found = {}
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        proc = Path("/proc", name)
        try:
            if wanted not in proc.joinpath("environ").read_bytes().split(b"\0"):
                continue
            if proc.joinpath("stat").read_bytes().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                continue
            found[int(name)] = proc.joinpath("cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue  # ended meanwhile, or not ours to read
    return found


def sweep(mark: str, grace_s: float) -> dict[int, str]:
    """What still runs after ``grace_s`` seconds (a warm process finishing its stop, a child its
    warm process hung up on), SIGKILLed; pid -> command line of each one killed."""
    deadline = time.monotonic() + grace_s
    while (left := left_running(mark)) and time.monotonic() < deadline:
        time.sleep(PAUSE_S)
    killed: dict[int, str] = {}
    for _ in range(20):  # a warm process may fork a spare while its siblings are being killed
        if not left:
            break
        for pid, command in left.items():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed[pid] = command
        time.sleep(PAUSE_S)
        left = left_running(mark)
    return killed
