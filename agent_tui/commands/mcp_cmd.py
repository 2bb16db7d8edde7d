"""``agent-tui mcp list|get``: the MCP servers here, where each is configured, and (``--check``) whether it starts.

``list`` prints one line per server: name, transport and command or URL, its scope (``user``,
``project`` or ``mcp.json``) and what keeps it from running (disabled, waiting for the project to
be trusted). ``--check`` starts every enabled server as a session would and adds ready (with its
tool count) or failed (with the reason). ``get NAME`` shows one server in full; variable and header
values are not printed (they are often keys). ``add``/``remove`` are ``mcp_edit_cmd``; ``serve`` is
``mcp_serve_cmd``; ``login``/``logout`` are ``mcp_login_cmd``. A remote server's auth state
(logged in, expired, not logged in, bearer from $VAR) is shown, never its token. Everything shown comes from files, so it is made inert for the terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.commands.errors import fail
from agent_tui.vocab.terminal_text import inert

if TYPE_CHECKING:
    from agent_tui.core.api import McpServerRow


def main(args: argparse.Namespace) -> int:
    if args.mcp_command == "serve":
        from agent_tui.commands import mcp_serve_cmd

        return mcp_serve_cmd.main(args)
    if args.mcp_command in ("login", "logout"):
        from agent_tui.commands import mcp_login_cmd

        return mcp_login_cmd.main(args)
    if args.mcp_command in ("add", "remove"):
        from agent_tui.commands import mcp_edit_cmd

        return mcp_edit_cmd.main(args)
    from agent_tui.core.api import ConfigError, mcp_listing, mcp_with_auth

    location = Path.cwd()
    try:
        rows, problems = mcp_listing(location)
        rows = mcp_with_auth(location, rows)
    except (ConfigError, OSError) as error:
        return fail(str(error))
    if args.mcp_command == "get":
        rows = [row for row in rows if row.name == args.name]
        if not rows:  # perhaps left out of .mcp.json: the problems say why
            sys.stderr.writelines(inert(f"agent-tui: {line}") + "\n" for line in problems)
            return fail(f"no MCP server {args.name} here (agent-tui mcp list shows them)")
    if args.check:
        rows = _checked(location, rows)
    if args.mcp_command == "get":
        return _show(rows[0], args.json)
    if args.json:
        sys.stdout.writelines(json.dumps(asdict(row)) + "\n" for row in rows)
        sys.stdout.writelines(json.dumps({"problem": line}) + "\n" for line in problems)
        return 0
    if not rows:
        sys.stdout.write("no MCP servers (agent-tui mcp add NAME -- COMMAND, or a project's .mcp.json)\n")
    sys.stdout.writelines(inert(_line(row)) + "\n" for row in rows)
    sys.stderr.writelines(inert(f"agent-tui: {line}") + "\n" for line in problems)
    return 0


def _checked(location: Path, rows: list[McpServerRow]) -> list[McpServerRow]:
    from agent_tui.core.api import load_settings, probe_mcp_servers

    names = [row.name for row in rows if row.enabled and not row.waiting_for_trust]
    found = asyncio.run(probe_mcp_servers(location, load_settings(location), names)) if names else {}
    return [replace(row, status=found[row.name]) if row.name in found else row for row in rows]


def _state(row: McpServerRow) -> str:
    if row.waiting_for_trust:
        return "waiting for trust (agent-tui trust add)"
    if not row.enabled:
        return "disabled"
    status = row.status
    if not status:
        return "enabled"
    if status["state"] == "ready":
        return f"ready, {len(status['tools'])} tools"
    return f"{status['state']}: {(status['error'] or '').splitlines()[0] if status['error'] else ''}".rstrip(": ")


def _line(row: McpServerRow) -> str:
    auth = f"  ({row.auth})" if row.auth else ""
    return f"{row.name}  {row.transport}  {row.target}{auth}  [{row.scope}]  {_state(row)}"


def _show(row: McpServerRow, as_json: bool) -> int:
    if as_json:
        sys.stdout.write(json.dumps(asdict(row)) + "\n")
        return 0
    fields = [
        ("name", row.name),
        ("scope", f"{row.scope} ({row.source})"),
        ("transport", row.transport),
        ("url" if row.transport in ("http", "sse") else "command", row.target),
        ("env", ", ".join(row.env)),
        ("headers", ", ".join(row.headers)),
        ("sampling", "on (each request asks you first)" if row.sampling else ""),
        ("auth", row.auth),
        ("state", _state(row)),
    ]
    sys.stdout.writelines(inert(f"{key}: {value}") + "\n" for key, value in fields if value)
    if row.status.get("error"):
        sys.stdout.writelines(inert(f"  {line}") + "\n" for line in row.status["error"].splitlines()[1:])
    if row.status.get("tools"):
        sys.stdout.write(inert(f"tools: {', '.join(row.status['tools'])}") + "\n")
    return 0
