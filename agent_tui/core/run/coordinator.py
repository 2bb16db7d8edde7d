"""Process-global execution coordinator: one drain per session.

A *busy period* starts when a session goes from idle to draining and ends when
no follow-up is pending. It is bracketed by exactly one ``execution.started``
and one of ``succeeded`` / ``failed`` / ``interrupted``. Wakes that arrive
while a drain runs coalesce into one follow-up; ``run`` joins an active busy
period or starts a forced drain (a period being interrupted is waited out
first, never joined). Liveness is only ever this process's
in-memory registry (``active()``), never the durable log.

A period runs under a lease (``AcquireLease``): the per-machine ``flock`` by default, a database
lease across hosts (``cluster_lease.py``). A database lease's fencing token is set around the period
(``store/fence.py``) so every write inside it carries the token; when the lease is lost (another
host took over: a renewal or a write found the token stale) the drain is cancelled as
``superseded`` and the period publishes nothing more, its terminal event included (the database
would refuse it, and the session is the new owner's now).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tui.core.log import events as ev
from agent_tui.core.run import lease as leases
from agent_tui.core.store import fence as fences
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import ErrorType, InterruptReason

Publish = Callable[[str, ev.DurableEvent], Awaitable[Any]]


class Drainer(Protocol):
    async def drain(self, session_id: str, force: bool) -> ErrorInfo | None:
        """Run steps until idle. Returns an error for a failed execution."""


class Tenure(Protocol):
    """What a busy period holds while it runs: ``lease.Lease`` on one machine, a
    ``cluster_lease.ClusterTenure`` on a shared database."""

    @property
    def fence(self) -> fences.Fence | None:
        """The token the period's writes carry; None when the store does not check one."""

    def on_lost(self, lost: Callable[[], None]) -> None:
        """Call ``lost`` once if the lease goes to another owner while held."""

    async def close(self) -> None:
        """Give the lease up (the next acquire, here or elsewhere, succeeds at once)."""


AcquireLease = Callable[[str], Awaitable[Tenure]]
HasPending = Callable[[str], Awaitable[bool]]
InterruptElsewhere = Callable[[str, InterruptReason], Awaitable[None]]
"""Ask the host running a session that this process does not run to interrupt it."""


async def _never_pending(session_id: str) -> bool:
    return False


async def _nowhere_else(session_id: str, reason: InterruptReason) -> None:
    return None  # one machine: a session not running here is not running (the spec's no-op)


@dataclass
class _Busy:
    task: asyncio.Task[None] | None = None
    follow_up: bool = False
    interrupt_reason: InterruptReason | None = None
    draining: bool = False  # only a drain is ever cancelled: lifecycle publishes run to the end
    leased: asyncio.Event = field(default_factory=asyncio.Event)
    refused: Exception | None = None  # why the lease was not taken
    fence: fences.Fence | None = None  # the token of its lease, while held
    done: asyncio.Event = field(default_factory=asyncio.Event)
    result: ErrorInfo | None = None


class Coordinator:
    def __init__(
        self,
        drainer: Drainer,
        publish: Publish,
        acquire_lease: AcquireLease = leases.acquire,
        has_pending: HasPending = _never_pending,
        interrupt_elsewhere: InterruptElsewhere = _nowhere_else,
    ) -> None:
        self._drainer = drainer
        self._publish = publish
        self._acquire_lease = acquire_lease
        self._has_pending = has_pending
        self._interrupt_elsewhere = interrupt_elsewhere
        self._busy: dict[str, _Busy] = {}
        self._parents: dict[str, str] = {}  # a subagent's session -> the session whose task call runs it
        self._background: set[asyncio.Task[None]] = set()
        self._closed = False

    def active(self) -> dict[str, dict[str, str]]:
        """Every session draining in this process; a subagent's names its ``parent`` (reference 001:
        a child never adds its parent here)."""
        return {
            session_id: {
                "type": "running",
                **({"parent": self._parents[session_id]} if session_id in self._parents else {}),
            }
            for session_id in self._busy
        }

    async def hold(self, session_id: str) -> Tenure:
        """The session's lease without a drain (``history.delete`` holds it while it deletes), through
        the same hook as a period: held elsewhere is ``SessionOwnedElsewhere``."""
        return await self._acquire_lease(session_id)

    def is_active(self, session_id: str) -> bool:
        return session_id in self._busy

    def fence(self, session_id: str) -> fences.Fence | None:
        """The fence of the session's period here, for a write to it made outside the period's
        tasks (an API call answering a permission ask of a session this host runs)."""
        busy = self._busy.get(session_id)
        return None if busy is None else busy.fence

    async def run(self, session_id: str, *, parent: str | None = None) -> ErrorInfo | None:
        """Explicit resume: join the active busy period or start a forced drain.

        Cancelling a caller only stops its wait: the period itself ends by ``interrupt``.
        Raises :class:`lease.SessionOwnedElsewhere` when another process runs it. ``parent``:
        the session whose ``task`` call runs this one, named in ``active()`` while it runs.
        """
        busy = await self._live_period(session_id) or self._start(session_id, force=True)
        if parent is not None:
            self._parents[session_id] = parent  # until the period ends (``_finish``)
        await busy.done.wait()
        if busy.refused is not None:
            raise busy.refused
        return busy.result

    async def resume(self, session_id: str) -> bool:
        """``run`` for callers that follow the log instead of waiting (the HTTP API): returns once
        the period holds the lease."""
        if await self._live_period(session_id) is not None:
            return False
        busy = self._start(session_id, force=True)
        await busy.leased.wait()
        if busy.refused is not None:
            raise busy.refused
        return True

    async def _live_period(self, session_id: str) -> _Busy | None:
        """The period an explicit run may join: one being interrupted is dying (it would end the
        run as aborted), so wait for its cleanup and take whatever period follows it, if any."""
        while (busy := self._busy.get(session_id)) is not None and busy.interrupt_reason is not None:
            await busy.done.wait()
        return busy

    async def wake(self, session_id: str) -> bool:
        """Report new durable inbox work. Returns False if another process owns it, or this one is
        shutting down (the work stays pending for whoever runs the session next)."""
        if self._closed:
            return False
        busy = self._busy.get(session_id)
        if busy is not None:
            busy.follow_up = True
            return True
        busy = self._start(session_id, force=False)
        await busy.leased.wait()
        if isinstance(busy.refused, leases.SessionOwnedElsewhere):
            return False
        if busy.refused is not None:
            raise busy.refused
        return True

    async def interrupt(self, session_id: str, reason: InterruptReason | str = InterruptReason.USER) -> None:
        """Stop the period, drop the follow-up registered so far, wait for the terminal event.

        Only a running drain is cancelled; a period already publishing its terminal event
        just finishes, so it keeps exactly one. Wakes after this call get their own period.
        A session this process does not run is handed to ``interrupt_elsewhere`` (the host that
        holds its lease, on a shared database).
        """
        busy = self._busy.get(session_id)
        if busy is None:
            await self._interrupt_elsewhere(session_id, InterruptReason(reason))
            return
        busy.follow_up = False
        if busy.interrupt_reason is None:
            busy.interrupt_reason = InterruptReason(reason)
        if busy.draining and busy.task is not None:
            busy.task.cancel()
        await busy.done.wait()

    async def shutdown(self) -> None:
        self._closed = True  # no successor or late-input period after this
        await asyncio.gather(*(self.interrupt(sid, InterruptReason.SHUTDOWN) for sid in list(self._busy)))

    def _start(self, session_id: str, force: bool) -> _Busy:
        """Claim the session synchronously (concurrent callers join) and run its period."""
        busy = self._busy[session_id] = _Busy()
        busy.task = asyncio.get_running_loop().create_task(self._busy_period(session_id, busy, force))
        return busy

    async def _busy_period(self, session_id: str, busy: _Busy, force: bool) -> None:
        try:
            lease = await self._acquire_lease(session_id)
        except Exception as error:  # noqa: BLE001 - handed to the callers waiting on the period
            busy.refused = error
            self._finish(session_id, busy)
            return
        except asyncio.CancelledError:  # the loop is going away: leave no claim behind
            self._finish(session_id, busy)
            raise
        finally:
            busy.leased.set()
        busy.fence = lease.fence
        lease.on_lost(lambda: self._superseded(busy))
        terminal: ev.DurableEvent | None = None
        with fences.fencing(lease.fence):
            try:
                if busy.interrupt_reason is None:  # else interrupted before anything started
                    await self._publish(session_id, ev.ExecutionStarted())
                    terminal = await self._drains(session_id, busy, force)
            except asyncio.CancelledError:
                terminal = self._interrupted(busy)
            except Exception as error:  # a bug in the drain: record it, never leave the period open
                busy.result = ErrorInfo(type="internal", message=f"{type(error).__name__}: {error}")
                terminal = ev.ExecutionFailed(error=busy.result)
            finally:
                try:
                    if busy.interrupt_reason is InterruptReason.SUPERSEDED:
                        terminal = self._interrupted(busy)  # for ``run``'s answer; another owner writes on
                    elif terminal is not None:
                        with contextlib.suppress(Exception):
                            await self._publish_terminal(session_id, terminal)
                finally:
                    busy.fence = None
                    try:
                        await asyncio.shield(lease.close())
                    finally:
                        self._finish(session_id, busy)

    def _superseded(self, busy: _Busy) -> None:
        """The lease went to another owner: stop the drain; nothing more is written, and no
        follow-up or successor runs here (the new owner drains what is pending)."""
        if busy.done.is_set():
            return
        busy.follow_up = False
        busy.interrupt_reason = InterruptReason.SUPERSEDED
        # told from inside the drain (its own write refused): cancel at its next await, not in the
        # period's cleanup should the refusal end the drain first
        asyncio.get_running_loop().call_soon(self._cancel_drain, busy)

    @staticmethod
    def _cancel_drain(busy: _Busy) -> None:
        if busy.draining and busy.task is not None:
            busy.task.cancel()

    async def _drains(self, session_id: str, busy: _Busy, force: bool) -> ev.DurableEvent:
        """Drain, then once per coalesced follow-up; returns the period's terminal event."""
        while busy.interrupt_reason is None:
            busy.draining = True
            try:
                error = await self._drainer.drain(session_id, force)
            finally:
                busy.draining = False
            if busy.interrupt_reason is not None:  # the drain ended as the interrupt landed
                break
            if error is not None:
                busy.result = error
                return ev.ExecutionFailed(error=error)
            if not busy.follow_up:
                return ev.ExecutionSucceeded()
            busy.follow_up, force = False, False
        return self._interrupted(busy)

    def _publish_terminal(self, session_id: str, terminal: ev.DurableEvent) -> Awaitable[Any]:
        """Shield an interrupted write from a further cancel (loop teardown); others go
        straight through, so ``run`` returns as soon as the terminal event is written."""
        publishing = self._publish(session_id, terminal)
        return asyncio.shield(publishing) if isinstance(terminal, ev.ExecutionInterrupted) else publishing

    @staticmethod
    def _interrupted(busy: _Busy) -> ev.DurableEvent:
        reason = busy.interrupt_reason or InterruptReason.SHUTDOWN
        busy.result = ErrorInfo(type=ErrorType.ABORTED, message=f"interrupted ({reason})")
        return ev.ExecutionInterrupted(reason=reason)

    def _finish(self, session_id: str, busy: _Busy) -> None:
        """Close the period; a wake it did not consume (one admitted while it failed, was
        interrupted, or published its terminal event) starts a successor at once."""
        if self._busy.get(session_id) is busy:
            del self._busy[session_id]
            self._parents.pop(session_id, None)
        busy.done.set()
        if busy.refused is not None or self._closed or session_id in self._busy:
            return
        if busy.follow_up:
            self._start(session_id, force=False)
        elif busy.result is None and busy.interrupt_reason is None:
            task = asyncio.get_running_loop().create_task(self._late_input(session_id))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _late_input(self, session_id: str) -> None:
        """Input admitted by another process while this one was finishing (it saw the
        lease held and left its prompt to us) is drained here, not stranded."""
        try:
            if not self._closed and session_id not in self._busy and await self._has_pending(session_id):
                if session_id not in self._busy:  # a period started meanwhile drains it (and checks again at its end)
                    await self.wake(session_id)
        except Exception:  # noqa: BLE001 - a closed store at shutdown: nothing to pick up
            pass
