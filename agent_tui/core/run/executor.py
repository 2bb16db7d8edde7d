"""What the Sessions facade needs from execution (the runner issue provides it).

Until a real coordinator is installed, :class:`IdleExecutor` gives the
documented behaviour for idle sessions: ``run``/``wake``/``interrupt`` do
nothing and ``active()`` is empty — liveness is process-local and comes only
from here, never from the log.
"""

from __future__ import annotations

from typing import Any, Protocol

from agent_tui.core.run import lease


class Executor(Protocol):
    async def run(self, session_id: str) -> Any:
        """Join or start a forced drain."""

    async def wake(self, session_id: str) -> Any:
        """Start a drain when idle, else register one coalesced follow-up."""

    async def resume(self, session_id: str) -> bool:
        """``run`` without waiting for its end: True when this call started the period, False when
        it joined a running one; raises ``SessionOwnedElsewhere`` as ``run`` does."""

    async def interrupt(self, session_id: str, reason: str = "user") -> None:
        """Cancel the drain and return after its terminal event; no-op when idle."""

    def active(self) -> dict[str, dict[str, Any]]:
        """``{session_id: {"type": "running"}}`` for drains owned by this process."""

    async def shutdown(self) -> None:
        """Interrupt every drain with reason ``shutdown``; return after their terminal events."""

    async def hold(self, session_id: str) -> Held:
        """Take the session's lease without draining (``history.delete``): this machine's ``flock``, or
        the shared database's lease; raises ``SessionOwnedElsewhere`` while another process runs it."""


class Held(Protocol):
    async def close(self) -> None:
        """Give the lease up."""


class IdleExecutor:
    """No execution: every session is idle."""

    async def run(self, session_id: str) -> None:
        return None

    async def wake(self, session_id: str) -> None:
        return None

    async def resume(self, session_id: str) -> bool:
        return False

    async def interrupt(self, session_id: str, reason: str = "user") -> None:
        return None

    def active(self) -> dict[str, dict[str, Any]]:
        return {}

    async def shutdown(self) -> None:
        return None

    async def hold(self, session_id: str) -> Held:
        return await lease.acquire(session_id)
