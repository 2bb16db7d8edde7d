"""Process-global execution coordinator: one drain per session.

A *busy period* starts when a session goes from idle to draining and ends when
no follow-up is pending. It is bracketed by exactly one ``execution.started``
and one of ``succeeded`` / ``failed`` / ``interrupted``. Wakes that arrive
while a drain runs coalesce into one follow-up; ``run`` joins an active busy
period or starts a forced drain. Liveness is only ever this process's
in-memory registry (``active()``), never the durable log.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Protocol

from agent_tui.core import events as ev
from agent_tui.core import lease as leases
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import ErrorType, InterruptReason

Publish = Callable[[str, ev.DurableEvent], Awaitable[Any]]


class Drainer(Protocol):
    async def drain(self, session_id: str, force: bool) -> ErrorInfo | None:
        """Run steps until idle. Returns an error for a failed execution."""


AcquireLease = Callable[[str], Awaitable[leases.Lease]]
HasPending = Callable[[str], Awaitable[bool]]


async def _never_pending(session_id: str) -> bool:
    return False


@dataclass
class _Busy:
    task: asyncio.Task[ErrorInfo | None] | None = None
    follow_up: bool = False
    interrupt_reason: InterruptReason | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    result: ErrorInfo | None = None


class Coordinator:
    def __init__(self, drainer: Drainer, publish: Publish, acquire_lease: AcquireLease = leases.acquire,
                 has_pending: HasPending = _never_pending) -> None:
        self._drainer = drainer
        self._publish = publish
        self._acquire_lease = acquire_lease
        self._has_pending = has_pending
        self._busy: dict[str, _Busy] = {}

    def active(self) -> dict[str, dict[str, str]]:
        return {session_id: {"type": "running"} for session_id in self._busy}

    def is_active(self, session_id: str) -> bool:
        return session_id in self._busy

    async def run(self, session_id: str) -> ErrorInfo | None:
        """Explicit resume: join the active busy period or start a forced drain.

        Raises :class:`lease.SessionOwnedElsewhere` when another process runs it.
        """
        busy = self._busy.get(session_id)
        if busy is None:
            busy = await self._start(session_id, force=True)
        await busy.done.wait()
        return busy.result

    async def wake(self, session_id: str) -> bool:
        """Report new durable inbox work. Returns False if another process owns it."""
        busy = self._busy.get(session_id)
        if busy is not None:
            busy.follow_up = True
            return True
        try:
            await self._start(session_id, force=False)
        except leases.SessionOwnedElsewhere:
            return False
        return True

    async def interrupt(self, session_id: str, reason: InterruptReason | str = InterruptReason.USER) -> None:
        """Cancel the drain, drop the follow-up, wait for the terminal event."""
        busy = self._busy.get(session_id)
        if busy is None:
            return
        busy.follow_up = False
        if busy.interrupt_reason is None:
            busy.interrupt_reason = InterruptReason(reason)
        if busy.task is not None:
            busy.task.cancel()
        await busy.done.wait()

    async def shutdown(self) -> None:
        await asyncio.gather(
            *(self.interrupt(sid, InterruptReason.SHUTDOWN) for sid in list(self._busy))
        )

    async def _start(self, session_id: str, force: bool) -> _Busy:
        busy = _Busy()
        self._busy[session_id] = busy  # claim synchronously: concurrent callers join
        try:
            lease = await self._acquire_lease(session_id)
        except BaseException:
            del self._busy[session_id]
            busy.done.set()
            raise
        if busy.interrupt_reason is not None:  # interrupted before anything started
            lease.release()
            del self._busy[session_id]
            busy.done.set()
            return busy
        busy.task = asyncio.create_task(self._busy_period(session_id, busy, force, lease))
        return busy

    async def _busy_period(self, session_id: str, busy: _Busy, force: bool, lease: leases.Lease) -> ErrorInfo | None:
        try:
            await self._publish(session_id, ev.ExecutionStarted())
            while True:
                error = await self._drainer.drain(session_id, force)
                if error is not None:
                    busy.result = error
                    await self._publish(session_id, ev.ExecutionFailed(error=error))
                    break
                if not busy.follow_up:
                    await self._publish(session_id, ev.ExecutionSucceeded())
                    break
                busy.follow_up, force = False, False
        except asyncio.CancelledError:
            reason = busy.interrupt_reason or InterruptReason.SHUTDOWN
            busy.result = ErrorInfo(type=ErrorType.ABORTED, message=f"interrupted ({reason})")
            with contextlib.suppress(Exception):
                await asyncio.shield(self._publish(session_id, ev.ExecutionInterrupted(reason=reason)))
        except Exception as error:  # a bug in the drain: record it, never leave the period open
            busy.result = ErrorInfo(type="internal", message=f"{type(error).__name__}: {error}")
            with contextlib.suppress(Exception):
                await self._publish(session_id, ev.ExecutionFailed(error=busy.result))
        finally:
            lease.release()
            follow_up = busy.follow_up and busy.interrupt_reason is None
            del self._busy[session_id]
            busy.done.set()
            if follow_up:  # work admitted during a failed period gets its own period
                asyncio.get_running_loop().create_task(self.wake(session_id))
            elif busy.result is None and busy.interrupt_reason is None:
                asyncio.get_running_loop().create_task(self._late_input(session_id))
        return busy.result

    async def _late_input(self, session_id: str) -> None:
        """Input admitted by another process while this one was finishing (it saw the
        lease held and left its prompt to us) is drained here, not stranded."""
        try:
            if session_id not in self._busy and await self._has_pending(session_id):
                await self.wake(session_id)
        except Exception:  # noqa: BLE001 - a closed store at shutdown: nothing to pick up
            pass
