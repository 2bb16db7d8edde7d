"""The SDK's ``MCPServer`` over stdio with agent-tui's session tools.

Each tool is a ``SessionTools`` method as it is: the SDK builds its schema from the
method's signature and its description from the docstring, so what a client's model reads
is written once, there. Errors (an unknown session, a bad location) come back as tool errors
with agent-tui's one-line message, never as a dead server. Nothing may print to stdout
here: it is the protocol's channel.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from agent_tui import __version__
from agent_tui.mcp_serve.session_tools import SessionTools

INSTRUCTIONS = (
    "agent-tui is a coding agent. start_session runs it on a prompt in a directory and returns its "
    "answer (wait=false returns at once; then call wait). send adds a prompt to a session (a steer "
    "while it runs). read_log pages a session's durable events; interrupt stops a run."
)

TOOL_NAMES = {
    "start_session": "start",
    "send": "send",
    "wait": "wait",
    "read_log": "read_log",
    "interrupt": "interrupt",
    "list_sessions": "list_sessions",
}
"""The tool a client calls -> the ``SessionTools`` method that answers it."""


def said(method: Callable[..., Awaitable[dict[str, Any]]]) -> Callable[..., Awaitable[dict[str, Any]]]:
    """``method`` with a refusal agent-tui words (an unknown session, a bad location, a session
    another process runs, a config mistake) turned into the tool error the client's model reads;
    ``functools.wraps`` keeps the signature and docstring the SDK reads."""

    @functools.wraps(method)
    async def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
        from mcp.server.mcpserver.exceptions import ToolError

        from agent_tui.core.api import ConfigError, SessionOwnedElsewhere, StoreError

        try:
            return await method(*args, **kwargs)
        except (StoreError, SessionOwnedElsewhere, ConfigError, ValueError) as error:
            raise ToolError(str(error)) from error

    return call


def build_server(tools: SessionTools) -> Any:
    """An ``MCPServer`` named ``agent-tui`` whose tools call ``tools``."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("agent-tui", version=__version__, instructions=INSTRUCTIONS)
    for name, method in TOOL_NAMES.items():
        server.tool(name=name)(said(getattr(tools, method)))
    return server
