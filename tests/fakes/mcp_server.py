"""A small MCP server written with the SDK (its ``MCPServer``, once ``FastMCP``), run as a real process.

``python mcp_server.py stdio`` serves on stdin/stdout; ``python mcp_server.py http PORT``
serves streamable HTTP on 127.0.0.1:PORT at ``/mcp``; ``sse PORT`` the older SSE transport
at ``/sse``. ``FAKE_MCP_INSTRUCTIONS``
sets the initialize instructions; ``FAKE_MCP_MARKS`` names a directory where
``wait`` records that it started and whether it was cancelled.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("notes", instructions=os.environ.get("FAKE_MCP_INSTRUCTIONS", "Use notes echo to repeat text."))
MARKS = Path(os.environ.get("FAKE_MCP_MARKS", "."))


@server.tool()
def echo(text: str) -> str:
    """Repeat the text."""
    return f"echo: {text}"


@server.tool()
def pid() -> str:
    """This server process's id."""
    return str(os.getpid())


@server.tool()
def fail(message: str) -> str:
    """Fail with the message (an isError result)."""
    raise ToolError(message)


@server.tool()
def die() -> str:
    """Exit the server process in the middle of the call."""
    print("notes server: disk on fire", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
async def wait() -> str:
    """Wait until cancelled."""
    (MARKS / "wait.started").write_text(str(os.getpid()))
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        (MARKS / "wait.cancelled").write_text("yes")
        raise
    return "never"


if __name__ == "__main__":
    if sys.argv[1:2] in (["http"], ["sse"]):
        import uvicorn

        app = server.streamable_http_app() if sys.argv[1] == "http" else server.sse_app()
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        server.run("stdio")
