"""One hook command: ``bash -c`` as leader of its own process group, one JSON object on stdin.

Bounded by its timeout; a timeout or a cancel (an interrupt) stops the whole group
(``tools.process_group.stop_group``: SIGTERM, then SIGKILL) before returning or re-raising.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.process_group import become_subreaper, stop_group, track

KILL_GRACE_S = 1.0
KEEP_CHARS = 16_000
"""Of a hook's stdout and stderr, each: what the log and the model get at most."""


@dataclass(frozen=True)
class HookExit:
    code: int | None
    """The exit code (negative: the signal that killed it); None when it timed out or never started."""
    stdout: str
    stderr: str
    duration_ms: int
    timed_out: bool = False
    failed_to_start: str | None = None


def _text(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    return text if len(text) <= KEEP_CHARS else text[:KEEP_CHARS] + "\n[… cut]"


async def run_hook_command(
    command: str, payload: str, cwd: Path, timeout_s: float, env: dict[str, str] | None = None
) -> HookExit:
    started = time.monotonic()

    def took() -> int:
        return round((time.monotonic() - started) * 1000)

    become_subreaper()
    starting = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            "bash",
            "-c",
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env if env is not None else dict(os.environ),
            start_new_session=True,
        )
    )
    try:
        proc = await asyncio.shield(starting)
    except asyncio.CancelledError:
        try:
            started_proc = await starting
        except Exception:  # noqa: BLE001 - it never started: nothing to stop
            pass
        else:
            await asyncio.shield(_stop(started_proc))
        raise
    except OSError as error:
        return HookExit(None, "", "", took(), failed_to_start=str(error))
    track(proc.pid, proc.pid)
    try:
        async with asyncio.timeout(timeout_s):
            out, err = await proc.communicate(payload.encode())
    except TimeoutError:
        await _stop(proc)
        return HookExit(None, "", "", took(), timed_out=True)
    except BaseException:
        await asyncio.shield(_stop(proc))
        raise
    return HookExit(proc.returncode, _text(out), _text(err), took())


async def _stop(proc: asyncio.subprocess.Process) -> None:
    await stop_group(proc.pid, proc.pid, KILL_GRACE_S)
    await proc.wait()
