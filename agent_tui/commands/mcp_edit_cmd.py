"""``agent-tui mcp add|remove``: write or take out ``[mcp.servers.NAME]`` in the user's or the project's config.

``add NAME -- COMMAND ARGS…`` adds a stdio server, ``add NAME --url URL`` a remote one
(``--transport sse`` for the older SSE protocol; ``--bearer-token-env-var VAR`` sends ``$VAR`` as its
bearer token). ``--scope user`` (the default) writes the
user's ``config.toml``, ``--scope project`` the project's ``.agent-tui/config.toml``; the rest of
the file stays as written (``core.settings.mcp_edit``). Mistakes in the command line exit 2, a
server that is not there exits 1, each with one line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent_tui.commands.errors import fail
from agent_tui.vocab.mcp_names import SERVER_NAME
from agent_tui.vocab.terminal_text import inert

USAGE = 2


def _pairs(items: list[str], separator: str, flag: str) -> dict[str, str] | str:
    """``K=V`` (or ``K: V``) items as a table, or the usage error."""
    table: dict[str, str] = {}
    for item in items:
        key, found, value = item.partition(separator)
        if not found or not key.strip():
            return f"{flag} {item!r}: write it as KEY{separator}VALUE"
        table[key.strip()] = value.strip() if separator == ":" else value
    return table


def server_table(args: argparse.Namespace) -> dict[str, Any] | str:
    """The ``[mcp.servers.NAME]`` table the arguments describe, or one line saying what is wrong."""
    table = _transport_table(args)
    if isinstance(table, str) or not getattr(args, "sampling", False):
        return table
    return {**table, "sampling": True}


def _transport_table(args: argparse.Namespace) -> dict[str, Any] | str:
    words = args.words[1:] if args.words[:1] == ["--"] else args.words
    env, headers = _pairs(args.env, "=", "--env"), _pairs(args.header, ":", "--header")
    if isinstance(env, str):
        return env
    if isinstance(headers, str):
        return headers
    if args.url is not None:
        if words:
            return "give --url or a command after --, not both"
        if env:
            return "--env is for a command server; a --url server takes --header"
        if args.transport == "stdio":
            return "--transport stdio needs a command, not --url"
        transport = {"type": "sse"} if args.transport == "sse" else {}
        bearer = {"bearer_token_env_var": args.bearer_token_env_var} if args.bearer_token_env_var else {}
        return {"url": args.url, **transport, **({"headers": headers} if headers else {}), **bearer}
    if not words:
        return "name the server's command after --, or give --url (agent-tui mcp add NAME -- COMMAND ARGS…)"
    if args.transport in ("http", "sse"):
        return f"--transport {args.transport} needs --url"
    if headers:
        return "--header is for a --url server"
    if args.bearer_token_env_var:
        return "--bearer-token-env-var is for a --url server"
    return {"command": words, **({"env": env} if env else {})}


def main(args: argparse.Namespace) -> int:
    from agent_tui.core.api import ConfigError, mcp_add, mcp_remove

    if not SERVER_NAME.match(args.name) or "__" in args.name:
        return fail(f"server name {args.name!r}: use letters, digits, '-' and single '_' only", USAGE)
    location = Path.cwd()
    if args.mcp_command == "remove":
        try:
            result = mcp_remove(location, args.name, args.scope)
        except ConfigError as error:  # ServerNotFound among them
            return fail(str(error))
        done = f"removed MCP server {args.name} from {result.file}"
    else:
        table = server_table(args)
        if isinstance(table, str):
            return fail(table, USAGE)
        try:
            result = mcp_add(location, args.scope, args.name, table)
        except ConfigError as error:
            return fail(str(error))
        done = f"added MCP server {args.name} to {result.file}"
    sys.stdout.write(inert(done) + "\n")
    if result.note:
        sys.stdout.write(inert(result.note) + "\n")
    return 0
