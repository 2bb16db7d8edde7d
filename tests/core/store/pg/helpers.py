"""Events and waits shared by the PostgreSQL log's tests."""

from __future__ import annotations

import asyncio
import time

from agent_tui.core.errors import LeaseHeld
from agent_tui.core.log import events as ev
from agent_tui.core.store.pg.event_log import PgEventLog
from agent_tui.core.store.pg.lease import Lease

WAIT_S = 10.0


def created() -> ev.SessionCreated:
    return ev.SessionCreated(location="/work/project", project_root="/work/project", title="pg")


def renamed(title: str) -> ev.SessionRenamed:
    return ev.SessionRenamed(title=title)


def prompt(input_id: str, text: str) -> ev.PromptAdmitted:
    return ev.PromptAdmitted(input_id=input_id, prompt=ev.text_prompt(text))


async def take_over(log: PgEventLog, session_id: str, owner: str, ttl_ms: int) -> Lease:
    """Acquire as soon as the holder's lease expires: waits on the condition, with a deadline."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            return await log.acquire(session_id, owner, ttl_ms)
        except LeaseHeld as held:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(max(0.005, min(0.05, (held.expires_ms - time.time() * 1000) / 1000)))


async def wait_expired(log: PgEventLog, session_id: str) -> None:
    """Until the session's lease has run out by the database's clock (polled, with a deadline)."""
    deadline = time.monotonic() + WAIT_S
    while await log.lease(session_id) is not None:
        assert time.monotonic() < deadline, f"lease of {session_id} never expired"
        await asyncio.sleep(0.01)
