"""The SDK's ``MCPServer`` over stdio with agent-tui's session tools.

Tool names are short verbs a client's model reads as ``agent-tui``'s: ``start_session``,
``send``, ``wait``, ``read_log``, ``interrupt``, ``list_sessions``. Errors (an unknown
session, a bad location) come back as tool errors with agent-tui's one-line message, never
as a dead server. Nothing may print to stdout here: it is the protocol's channel.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

from agent_tui import __version__
from agent_tui.mcp_serve.session_tools import SessionTools

T = TypeVar("T")

INSTRUCTIONS = (
    "agent-tui is a coding agent. start_session runs it on a prompt in a directory and returns its "
    "answer (wait=false returns at once; then call wait). send adds a prompt to a session (a steer "
    "while it runs). read_log pages a session's durable events; interrupt stops a run."
)


async def said(work: Awaitable[T]) -> T:
    """``work``'s result; a refusal agent-tui words (an unknown session, a bad location, a session
    another process runs, a config mistake) becomes the tool error the client's model reads."""
    from mcp.server.mcpserver.exceptions import ToolError

    from agent_tui.core.api import ConfigError, SessionOwnedElsewhere, StoreError

    try:
        return await work
    except (StoreError, SessionOwnedElsewhere, ConfigError, ValueError) as error:
        raise ToolError(str(error)) from error


def build_server(tools: SessionTools) -> Any:
    """An ``MCPServer`` whose tools call ``tools``; the SDK builds each schema from the signature."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("agent-tui", version=__version__, instructions=INSTRUCTIONS)

    @server.tool()
    async def start_session(
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
        return await said(tools.start(prompt, location, agent, model, wait, timeout_s))

    @server.tool()
    async def send(
        session_id: str, prompt: str, delivery: str = "steer", wait: bool = True, timeout_s: float = 600.0
    ) -> dict[str, Any]:
        """Send a prompt to a session: while it runs, a steer (read at its next step) or, with
        delivery "queue", after its turn; an idle session runs it now."""
        return await said(tools.send(session_id, prompt, delivery, wait, timeout_s))

    @server.tool()
    async def wait(session_id: str, timeout_s: float = 600.0) -> dict[str, Any]:
        """Wait until the session's run ends (or timeout_s), then return its answer to its last prompt."""
        return await said(tools.wait(session_id, timeout_s))

    @server.tool()
    async def read_log(session_id: str, after: int | None = None, limit: int = 100) -> dict[str, Any]:
        """A page of the session's durable events after sequence number after (at most 100)."""
        return await said(tools.read_log(session_id, after, limit))

    @server.tool()
    async def interrupt(session_id: str) -> dict[str, Any]:
        """Interrupt the session's run; prompts not yet read stay pending."""
        return await said(tools.interrupt(session_id))

    @server.tool()
    async def list_sessions(location: str | None = None, limit: int = 20) -> dict[str, Any]:
        """The newest sessions in location (default: the server's working directory)."""
        return await said(tools.list_sessions(location, limit))

    return server
