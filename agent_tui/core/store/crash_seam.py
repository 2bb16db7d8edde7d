"""A test seam: the process kills itself with SIGKILL right after its N-th durable commit.

Set ``AGENT_TUI_TEST_KILL_AFTER_COMMIT=N`` (N >= 1) in a process's environment and
its writer sends itself SIGKILL immediately after the N-th transaction that
appended events has committed — before the caller hears of it, the way a crash
or an ``kill -9`` lands between a commit and whatever was to follow it. The
crash sweep (``tests/crash/``) runs one scripted session once per commit point
this way. Unset (the only way users run), it costs one ``None`` check per commit.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

ENV = "AGENT_TUI_TEST_KILL_AFTER_COMMIT"


def kill_after_commit(environ: dict[str, str] | None = None) -> Callable[[], None] | None:
    """A callable to invoke after each durable commit, or ``None`` when the seam is off."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip()
    if not value:
        return None
    target = int(value)
    if target < 1:
        raise ValueError(f"{ENV} must be a positive commit count, not {value!r}")
    count = 0

    def committed() -> None:
        nonlocal count
        count += 1
        if count == target:
            os.kill(os.getpid(), signal.SIGKILL)

    return committed
