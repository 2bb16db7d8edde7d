"""Doubles for what executes sessions: the facade's executor and the coordinator's drainer and publish."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from agent_tui.core.api import Sessions
from agent_tui.core.api import events as ev
from agent_tui.core.run import lease
from agent_tui.core.store import fence
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import InterruptReason


class RecordingExecutor:
    """The facade's executor: records calls and says which sessions run.

    ``interrupt`` of a running session publishes the terminal event, as the coordinator does,
    when ``sessions`` is set.
    """

    def __init__(self) -> None:
        self.running: set[str] = set()
        self.parents: dict[str, str] = {}  # a running subagent's session -> its parent, as ``active()`` names it
        self.sessions: Sessions | None = None
        self.calls: list[tuple[str, ...]] = []

    async def run(self, session_id: str) -> None:
        self.calls.append(("run", session_id))

    async def wake(self, session_id: str) -> None:
        self.calls.append(("wake", session_id))

    async def resume(self, session_id: str) -> bool:
        self.calls.append(("resume", session_id))
        return session_id not in self.running

    async def interrupt(self, session_id: str, reason: str = "user") -> None:
        self.calls.append(("interrupt", session_id, reason))
        if session_id in self.running and self.sessions is not None:
            self.running.discard(session_id)
            await self.sessions._store.publish(session_id, ev.ExecutionInterrupted(reason=InterruptReason(reason)))

    def active(self) -> dict[str, dict[str, Any]]:
        return {
            sid: {"type": "running", **({"parent": self.parents[sid]} if sid in self.parents else {})}
            for sid in self.running
        }

    async def shutdown(self) -> None:
        for session_id in list(self.running):
            await self.interrupt(session_id, InterruptReason.SHUTDOWN)

    async def hold(self, session_id: str) -> lease.Lease:
        """This machine's real lease, as the coordinator's default hook takes it."""
        self.calls.append(("hold", session_id))
        return await lease.acquire(session_id)


class ScriptedDrainer:
    """The coordinator's drainer: each drain waits for a release and returns a scripted result.

    A scripted result that is an exception is raised instead. Setting ``cleanup`` makes a
    cancelled drain hold its cleanup (as the runner settles tools) until that event is set;
    ``cleaning`` is set when the hold begins.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[str, bool]] = []
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.results: list[ErrorInfo | BaseException | None] = []
        self.cancelled = 0
        self.cleanup: asyncio.Event | None = None
        self.cleaning = asyncio.Event()
        self.during: Callable[[], Awaitable[object]] | None = None  # run inside each drain, before its wait

    async def drain(self, session_id: str, force: bool) -> ErrorInfo | None:
        self.calls.append((session_id, force))
        self.started.set()
        if self.during is not None:
            await self.during()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            if self.cleanup is not None:
                self.cleaning.set()
                await self.cleanup.wait()
            raise
        result = self.results.pop(0) if self.results else None
        if isinstance(result, BaseException):
            raise result
        return result


class PublishRecorder:
    """The coordinator's publish: keeps ``(session_id, event type)`` instead of writing.

    ``hold(kind)`` makes the next publish of that kind record its event (the write has
    landed) and then wait for the returned release before returning (the acknowledgement).
    """

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        self.fences: list[int | None] = []  # the token each publish carried (``fence.token_for``)
        self._holds: dict[str, tuple[asyncio.Event, asyncio.Event]] = {}

    def hold(self, kind: str) -> tuple[asyncio.Event, asyncio.Event]:
        """``(entered, release)`` for the next publish of ``kind`` (e.g. ``"succeeded"``)."""
        gate = self._holds[kind] = (asyncio.Event(), asyncio.Event())
        return gate

    async def __call__(self, session_id: str, event: ev.DurableEvent) -> None:
        self.events.append((session_id, event.TYPE))
        self.fences.append(fence.token_for(session_id))
        gate = self._holds.pop(event.TYPE.removeprefix("session.execution.").removesuffix(".1"), None)
        if gate is not None:
            gate[0].set()
            await gate[1].wait()

    def types(self, session_id: str = "ses_a") -> list[str]:
        return [t.removeprefix("session.execution.").removesuffix(".1") for s, t in self.events if s == session_id]


class ScriptedTenure:
    """The coordinator's ``Tenure`` of a database lease, lost when the test says (``lose``)."""

    def __init__(self, session_id: str, token: int) -> None:
        self.fence = fence.Fence(session_id, token, refused=self.lose)
        self.closed = False
        self._lost: list[Callable[[], None]] = []

    def on_lost(self, lost: Callable[[], None]) -> None:
        self._lost.append(lost)

    def lose(self) -> None:
        for lost in self._lost:
            lost()

    async def close(self) -> None:
        self.closed = True
