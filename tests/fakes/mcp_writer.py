"""An MCP server (the SDK's ``MCPServer``) whose tool writes a file, run as a real stdio process.

Its ``write`` tool writes text to a path relative to the server's working
directory (agent-tui starts a stdio server in the session's location), the way
a real file-editing MCP server changes the project behind agent-tui's back. Its
``reach`` tool opens a TCP connection, to tell whether a sandbox let it out.
"""

from __future__ import annotations

import socket
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("files")


@server.tool()
def write(path: str, text: str) -> str:
    """Write the text to the file at path (relative to the project)."""
    Path(path).write_text(text, encoding="utf-8")
    return f"wrote {len(text)} characters to {path}"


@server.tool()
def reach(port: int) -> str:
    """Connect to 127.0.0.1 at port: 'reached', or why not."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except OSError as error:
        return f"unreachable: {error}"
    return "reached"


if __name__ == "__main__":
    server.run("stdio")
