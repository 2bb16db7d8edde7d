"""``agent-tui mcp login|logout NAME``: log in to a remote MCP server with OAuth, or forget its tokens.

``login`` prints the authorization URL (and opens a browser where there is one), waits for the
browser to come back to a listener on 127.0.0.1, and keeps the tokens in the OS keyring or a file
only the user can read (``core.host.mcp_auth``); it says where. ``logout`` deletes them, and says
so when there were none. No token is ever printed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from agent_tui.commands.errors import fail
from agent_tui.vocab.terminal_text import inert


def _say(line: str) -> None:
    sys.stdout.write(inert(line) + "\n")
    sys.stdout.flush()  # the URL must reach a reader (a person, or a test) while the login waits


def main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import ConfigError, mcp_login, mcp_logout

    if args.mcp_command == "logout":
        try:
            removed, where = mcp_logout(args.name)
        except OSError as error:
            return fail(str(error))
        if removed:
            _say(f"logged out of MCP server {args.name}: its tokens are deleted from {where}")
        else:
            _say(f"MCP server {args.name} has no stored login (nothing in {where})")
        return 0
    if args.timeout <= 0:
        return fail("--timeout must be more than 0 seconds", 2)
    try:
        result = asyncio.run(mcp_login(Path.cwd(), args.name, _say, args.timeout))
    except (ConfigError, OSError) as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return fail(f"login to MCP server {args.name} interrupted", 130)
    _say(f"logged in to MCP server {args.name}; the tokens are kept in {result.where}")
    return 0
