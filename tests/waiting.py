"""One way for a test to wait: on a condition it can observe, never for a fixed time.

``until`` polls a condition (a plain or an async callable) until it holds, and fails naming what
never happened. Pilot tests pass ``pause=pilot.pause`` so the app gets its turns between polls.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any

Condition = Callable[[], object] | Callable[[], Awaitable[object]]


async def until(
    condition: Condition,
    what: str = "the condition",
    *,
    timeout: float = 10.0,
    every: float = 0.01,
    pause: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> Any:
    """Poll ``condition`` every ``every`` seconds until it returns something truthy, and return that;
    after ``timeout`` seconds, fail with ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if inspect.isawaitable(found):
            found = await found
        if found:
            return found
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await pause(every)
