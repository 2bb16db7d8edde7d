"""Stopping a command's whole process group, and leaving nothing behind.

Commands run as leaders of their own process group. Stopping sends SIGTERM
to the group, then SIGKILL after a grace period, and waits until the group is
really gone. Orphaned members are re-parented to this process (Linux child
subreaper) and reaped here, so they do not linger as zombies where the
system's init does not reap (containers, micro-VMs).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Literal

POLL_S = 0.02
KILL_WAIT_S = 5.0
_PR_SET_CHILD_SUBREAPER = 36
_subreaper_set = False
_groups: dict[int, int] = {}
"""Process groups this process started (pgid -> leader) that may still have members."""


def become_subreaper() -> None:
    """Adopt orphaned descendants so their exit can be reaped (Linux only; idempotent)."""
    global _subreaper_set
    if _subreaper_set or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    _subreaper_set = True


async def shell_exited(proc: asyncio.subprocess.Process) -> None:
    """Return when the process itself has exited, even while its children keep
    the output pipes open (``Process.wait`` also waits for the pipes)."""
    if proc.returncode is not None:
        return
    try:
        fd = os.pidfd_open(proc.pid)
    except ProcessLookupError:  # already exited and reaped: the return code is moments away
        while proc.returncode is None:
            await asyncio.sleep(0.001)
        return
    except (AttributeError, OSError):  # no pidfd here: poll
        while proc.returncode is None:
            await asyncio.sleep(0.05)
        return
    loop = asyncio.get_running_loop()
    exited: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not exited.done():
            exited.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await exited
    finally:
        loop.remove_reader(fd)
        os.close(fd)


def _members(pgid: int) -> list[tuple[int, int, str]]:
    """``(pid, ppid, state)`` of every process in the group (via /proc)."""
    found: list[tuple[int, int, str]] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read().decode("ascii", errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid:
            found.append((int(name), int(fields[1]), fields[0]))
    return found


TOOL_MARK_ENV = "AGENT_TUI_TOOL"
"""Set in every command's environment to ``<session id>/<call id>``: its descendants inherit it, so
the processes of a call whose agent died (SIGKILL, power cut of the terminal) can be found later."""


def tool_mark(session_id: str, call_id: str) -> str:
    return f"{session_id}/{call_id}"


def marked_processes() -> dict[str, list[int]]:
    """Every process of this machine that carries a tool mark, by mark (``<session>/<call>``).

    Scans /proc (Linux); processes of other users are unreadable and skipped. Call it in a thread.
    """
    prefix = f"{TOOL_MARK_ENV}=".encode()
    found: dict[str, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    me = os.getpid()
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        for entry in environ.split(b"\0"):
            if entry.startswith(prefix):
                found.setdefault(entry[len(prefix) :].decode(errors="replace"), []).append(int(name))
                break
    return found


def kill_marked(marks: set[str]) -> int:
    """SIGKILL every process whose environment carries one of ``marks``; how many there were.

    For crash recovery: the agent that started them is gone, so nothing else will stop them.
    Call it in a thread (it scans /proc: :func:`marked_processes`).
    """
    if not marks:
        return 0
    killed = 0
    for mark, pids in marked_processes().items():
        if mark not in marks:
            continue
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
    return killed


def reap_orphans(pgid: int, leader: int) -> None:
    """Reap exited members of ``pgid`` that were re-parented to us (never the leader:
    asyncio's child watcher owns it)."""
    me = os.getpid()
    for pid, ppid, state in _members(pgid):
        if pid != leader and ppid == me and state == "Z":
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


def track(pgid: int, leader: int) -> None:
    _groups[pgid] = leader


def sweep() -> None:
    """Reap exited background members of earlier commands; forget groups that are gone.

    Cheap when every group is gone (one ``kill(0)`` each); scans /proc only
    for groups that still have members. Call it in a thread.
    """
    for pgid, leader in list(_groups.items()):
        if group_alive(pgid):
            reap_orphans(pgid, leader)
        if not group_alive(pgid):
            _groups.pop(pgid, None)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _wait_gone(pgid: int, leader: int, seconds: float) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        await asyncio.to_thread(reap_orphans, pgid, leader)
        if not group_alive(pgid):
            return True
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(POLL_S)


async def stop_group(pgid: int, leader: int, grace_s: float) -> Literal["gone", "SIGTERM", "SIGKILL"]:
    """SIGTERM the group, SIGKILL it after ``grace_s``; return the signal that ended it."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return "gone"
    if await _wait_gone(pgid, leader, grace_s):
        return "SIGTERM"
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return "SIGTERM"
    await _wait_gone(pgid, leader, KILL_WAIT_S)
    return "SIGKILL"
