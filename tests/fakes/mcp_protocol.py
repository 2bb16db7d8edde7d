"""An MCP server (the SDK's ``MCPServer``) that uses the client's side of the protocol, run as a real stdio process.

``roots`` asks the client for its roots (``roots/list``) in the middle of a call
and returns their URIs, one a line: the way the filesystem server started
without directories learns where it may work; ``roots_changed`` counts the
client's ``notifications/roots/list_changed``. ``count`` reports progress at
each step (``notifications/progress``) before it answers. ``chatter`` sends log
messages (``notifications/message``) at the levels it is given.

``python mcp_protocol.py`` speaks the 2026 protocol (the client answers the
roots question inside the call's retry); ``python mcp_protocol.py legacy``
only the 2025 handshake, as the official servers do (``roots/list`` is a
request in the middle of the call, and the change notification reaches it).
"""

from __future__ import annotations

import asyncio
import sys
import warnings
from typing import Annotated, Any

from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp.types import ListRootsResult, NotificationParams

warnings.simplefilter("ignore")  # roots and logging are deprecated in the 2026 protocol; still what servers use

server = MCPServer("proto")
changes = 0


async def _roots_changed(_context: Any, _params: NotificationParams) -> None:
    global changes
    changes += 1


server._lowlevel_server.add_notification_handler("notifications/roots/list_changed", NotificationParams, _roots_changed)


def ask_roots() -> ListRoots:
    """Ask the client for its roots: the SDK sends ``roots/list`` mid-call (a 2025 connection) or
    returns an input request the client answers and retries with (a 2026 one)."""
    return ListRoots()


@server.tool()
async def roots(listed: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """The client's roots, one URI a line."""
    return "\n".join(str(root.uri) for root in listed.roots) or "(no roots)"


@server.tool()
def roots_changed() -> str:
    """How many times the client said its roots changed (``notifications/roots/list_changed``)."""
    return str(changes)


@server.tool()
async def count(steps: int, ctx: Context) -> str:
    """Count to steps, reporting progress at each one."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.05)
    return f"counted to {steps}"


@server.tool()
async def chatter(levels: list[str], ctx: Context) -> str:
    """Log one message at each level ('info', 'warning', 'error' …)."""
    for level in levels:
        await ctx.log(level, f"{level} message from chatter", logger_name="proto")  # type: ignore[arg-type]
    return f"logged {len(levels)}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["legacy"]:  # a 2025-era server (as the official ones are): only the initialize handshake
        import mcp.server.runner

        mcp.server.runner._has_modern_envelope = lambda _params: False  # every connection opens the 2025 era
    server.run("stdio")
