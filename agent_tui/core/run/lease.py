"""Session ownership leases across processes.

A drain holds an exclusive ``flock`` on ``<data dir>/leases/<session>.lock``
and writes its owner (pid + process start time) into it. The kernel drops the
lock when the process dies — even on SIGKILL — so a crashed owner never blocks
recovery, and a pid reused by an unrelated process cannot look alive.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.settings import paths
from agent_tui.core.store.fence import Fence


class SessionOwnedElsewhere(Exception):
    """Another live process is running this session: ``owner`` has its ``pid`` (this machine's
    lock) or its ``owner`` name and lease ``expires_ms`` (a shared database's lease)."""

    def __init__(self, session_id: str, owner: dict[str, object]) -> None:
        self.session_id = session_id
        self.owner = owner
        if "pid" not in owner and "owner" in owner:
            super().__init__(f"session {session_id} is running on {owner['owner']}")
            return
        pid = owner.get("pid", "?")
        super().__init__(f"session {session_id} is running in another process (pid {pid})")


def _process_start_time(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return float(fields[19])  # starttime, clock ticks since boot
    except (OSError, IndexError, ValueError):
        return None


@dataclass
class Lease:
    session_id: str
    fd: int

    @property
    def fence(self) -> Fence | None:
        """None: a local store checks no token (the lock itself keeps other processes out)."""
        return None

    def on_lost(self, lost: Callable[[], None]) -> None:
        """Never called: the kernel holds a ``flock`` for as long as this process lives."""

    async def close(self) -> None:
        self.release()

    def release(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            try:
                os.ftruncate(fd, 0)
            finally:
                os.close(fd)  # closing drops the flock


def _lease_path(session_id: str) -> Path:
    return paths.data_dir() / "leases" / f"{session_id}.lock"


def _acquire(session_id: str) -> Lease:
    path = _lease_path(session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            owner = json.loads(os.pread(fd, 4096, 0) or b"{}")
        except ValueError:
            owner = {}
        os.close(fd)
        raise SessionOwnedElsewhere(session_id, owner) from None
    pid = os.getpid()
    owner_record = {"pid": pid, "start_time": _process_start_time(pid), "since_ms": int(time.time() * 1000)}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(owner_record).encode(), 0)
    return Lease(session_id, fd)


async def acquire(session_id: str) -> Lease:
    """Take the session's lease or raise :class:`SessionOwnedElsewhere`."""
    return await asyncio.to_thread(_acquire, session_id)


def current_owner(session_id: str) -> dict[str, object] | None:
    """The live owner of a session, or None when nobody holds its lease."""
    path = _lease_path(session_id)
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                owner: dict[str, object] = json.loads(os.pread(fd, 4096, 0) or b"{}")
                return owner
            except ValueError:
                return {}
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
