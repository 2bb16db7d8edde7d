"""A process told to end ends, even when its clean-up cannot finish.

SIGTERM and SIGHUP (and SIGINT for ``run``) are caught so that a run is interrupted cleanly and
its tools' process groups are stopped. But a clean-up can wedge: a worker thread stuck on an
import lock or a call that never returns keeps ``asyncio.run`` waiting for its executor, and the
loop's handlers then swallow every further SIGTERM; only SIGKILL ended such a process. Once a
signal was caught, :func:`arm` gives the clean-up :data:`GRACE_S` seconds, then ends the process
with ``128 + signum``, as the signal was promised to."""

from __future__ import annotations

import os
import threading
import time

GRACE_S = 10.0  # a clean-up takes well under a second; the warm process also gives a hung-up child 10 s
_armed = threading.Lock()


def arm(signum: int, grace_s: float = GRACE_S) -> None:
    """After the first caught signal: end this process ``grace_s`` seconds from now unless it ended
    by itself (a daemon thread, which the process's own exit does not wait for)."""
    if _armed.acquire(blocking=False):
        threading.Thread(target=_end_after, args=(signum, grace_s), name="exit-grace", daemon=True).start()


def _end_after(signum: int, grace_s: float) -> None:
    time.sleep(grace_s)
    try:
        os.write(2, f"agent-tui: still not ended {grace_s:.0f} s after signal {signum}; ending now\n".encode())
    except OSError:
        pass
    os._exit(128 + signum)
