"""What an MCP client may do to agent-tui's sessions, each answered as one JSON-able dict.

Every operation goes through the ``Sessions`` facade as ``run`` and the HTTP API do: a
prompt is admitted (durable, idempotent by its id) and the session drained in this
process; permission asks are answered by the launch's ``--permission`` policy (a
client of an MCP tool cannot answer them mid-call). Waiting never starts a drain of its
own: it watches the session until this process no longer runs it, so a wait on an idle
session never calls the model.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_tui.core.api import Sessions

WAIT_POLL_S = 0.05
"""How often a wait looks at whether the session still runs (``Sessions.active``, in memory)."""

LOG_LIMIT = 100
"""The most events one ``read_log`` returns (the facade's history page)."""


class SessionTools:
    """The operations ``server`` offers as MCP tools, over one process's ``Sessions``."""

    def __init__(self, sessions: Sessions, location: Path) -> None:
        self.sessions = sessions
        self.location = location
        """Where a new session starts when the caller names no directory (the server's working directory)."""

    async def start(
        self,
        prompt: str,
        location: str | None = None,
        agent: str | None = None,
        model: str | None = None,
        wait: bool = True,
        timeout_s: float = 600.0,
    ) -> dict[str, Any]:
        """Start a new agent-tui session in location (an absolute directory; default: the server's
        working directory) with this prompt. With wait (the default) it returns the agent's answer
        once the run ends or timeout_s passes (running: true then)."""
        where = Path(location).expanduser() if location else self.location
        if not where.is_absolute():
            raise ValueError(f"location must be an absolute path, not {location!r}")
        if not await asyncio.to_thread(where.is_dir):
            raise ValueError(f"location {where} is not a directory")
        session = await self.sessions.create(location=where, agent=agent, model=model)
        return await self.send(session.id, prompt, wait=wait, timeout_s=timeout_s)

    async def send(
        self, session_id: str, prompt: str, delivery: str = "steer", wait: bool = True, timeout_s: float = 600.0
    ) -> dict[str, Any]:
        """Send a prompt to a session: while it runs, a steer (read at its next step) or, with
        delivery "queue", after its turn; an idle session runs it now. With wait, its answer."""
        if not prompt.strip():
            raise ValueError("the prompt is empty")
        receipt = await self.sessions.prompt(session_id, prompt, delivery=delivery)
        reply: dict[str, Any] = {"session_id": session_id, "input_id": receipt.input_id}
        if wait:
            reply |= await self.wait(session_id, timeout_s, receipt.input_id)
        return reply

    async def wait(self, session_id: str, timeout_s: float = 600.0, input_id: str | None = None) -> dict[str, Any]:
        """Wait until the session's run ends (or timeout_s), then return its answer to its last
        prompt (or to input_id); running: true when the timeout came first."""
        await self.sessions.get(session_id)  # an unknown id fails here, not after the timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while session_id in self.sessions.active() and loop.time() < deadline:
            await asyncio.sleep(WAIT_POLL_S)
        running = session_id in self.sessions.active()
        answer = "" if running else await self.sessions.answers.text(session_id, input_id)
        return {"session_id": session_id, "running": running, "answer": answer}

    async def read_log(self, session_id: str, after: int | None = None, limit: int = LOG_LIMIT) -> dict[str, Any]:
        """A page of the session's durable events after sequence number after (at most 100), as
        agent-tui log prints them."""
        page = await self.sessions.history(session_id, after=after, limit=max(1, min(limit, LOG_LIMIT)))
        events = [json.loads(event.to_json_line()) for event in page.data]
        return {"session_id": session_id, "events": events, "has_more": page.has_more}

    async def interrupt(self, session_id: str) -> dict[str, Any]:
        """Interrupt the session's run (its commands too); prompts it has not read yet stay pending."""
        await self.sessions.get(session_id)
        await self.sessions.interrupt(session_id)
        return {"session_id": session_id, "running": session_id in self.sessions.active()}

    async def list_sessions(self, location: str | None = None, limit: int = 20) -> dict[str, Any]:
        """The newest sessions in location (default: the server's working directory), subagents' left out."""
        rows = await self.sessions.list(location or str(self.location), limit=max(1, min(limit, 200)), top_level=True)
        keep = ("id", "title", "location", "agent", "model", "updated", "message_count")
        return {"sessions": [{key: getattr(row, key) for key in keep} for row in rows]}
