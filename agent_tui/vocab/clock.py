"""Time as a dependency, so retries, timers and stored times are testable without waiting.

One protocol for every layer: the runner sleeps on it between retries, the
store stamps events with it, the UI reads it for countdowns and grace periods.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """Wall-clock time and real sleeps."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass
class ManualClock:
    """A clock that moves only when told to; ``sleep`` records the wait, moves on by it and returns at once."""

    now: int = 1_700_000_000_000
    sleeps: list[float] = field(default_factory=list)

    def now_ms(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1000)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)
        await asyncio.sleep(0)
