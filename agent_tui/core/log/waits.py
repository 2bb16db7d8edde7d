"""How long a piece of work waited for what it shares with the rest of the process (contention).

Every session of a process shares the store's one writer (a queue in front of one connection, or
the PostgreSQL log's writer connection), its few reader connections and the default thread pool
that file reads go through; concurrent sessions, subagents and a server's clients queue for them.
A caller that wants to know how much of its time went to such queueing (the instruction
observation's contention metric, reference 001's operational metrics) opens a :func:`ledger`; the
store and :func:`in_thread` add every wait of the work started inside it (the ledger travels in a
context variable, so tasks and threads started from there see it). Outside a ledger nothing is
recorded and nothing costs more than one context-variable read.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

WRITER = "store.writer"
"""Waiting for the store's writer to start this job's transaction (behind other sessions' writes)."""
READER = "store.reader"
"""Waiting for one of the store's reader connections."""
THREADS = "threads"
"""Waiting for a worker thread of the default pool (file reads) to start."""


class WaitLedger:
    """Seconds waited, by what was waited for; added to from the loop and the writer's thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seconds: dict[str, float] = {}

    def add(self, resource: str, seconds: float) -> None:
        with self._lock:
            self._seconds[resource] = self._seconds.get(resource, 0.0) + max(seconds, 0.0)

    def seconds(self) -> dict[str, float]:
        with self._lock:
            return dict(self._seconds)


_current: contextvars.ContextVar[WaitLedger | None] = contextvars.ContextVar("agent_tui_waits", default=None)


@contextmanager
def ledger() -> Iterator[WaitLedger]:
    """Record the waits of the work done inside (and of tasks and threads started from it)."""
    opened = WaitLedger()
    token = _current.set(opened)
    try:
        yield opened
    finally:
        _current.reset(token)


def current() -> WaitLedger | None:
    """The ledger the work running now records its waits in, if one is open."""
    return _current.get()


async def in_thread(function: Callable[..., T], *args: object) -> T:
    """``asyncio.to_thread`` that records how long the call waited for a worker thread."""
    waits, queued = current(), time.perf_counter()

    def timed() -> T:
        if waits is not None:
            waits.add(THREADS, time.perf_counter() - queued)
        return function(*args)

    return await asyncio.to_thread(timed)
