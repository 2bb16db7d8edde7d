"""``agent-tui mcp``'s arguments: ``list``, ``get``, ``add``, ``remove``, ``login``, ``logout`` and ``serve``
(implemented in ``mcp_cmd``, ``mcp_edit_cmd``, ``mcp_login_cmd`` and ``mcp_serve_cmd``).
"""

from __future__ import annotations

import argparse

from agent_tui.commands.launch_flags import add_model_flags, add_permission_flag, add_trust_flags


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = sub.add_parser(
        "mcp", help="MCP servers: list, show, add and remove them, log in to remote ones; serve agent-tui over MCP"
    )
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    listing = mcp_sub.add_parser("list", help="every MCP server here: where it is configured, transport, state")
    listing.add_argument("--json", action="store_true", help="one JSON object per server, then one per problem")
    listing.add_argument("--check", action="store_true", help="start each enabled server and say whether it is ready")
    getting = mcp_sub.add_parser("get", help="one MCP server's configuration")
    getting.add_argument("name")
    getting.add_argument("--json", action="store_true", help="print one JSON object")
    getting.add_argument("--check", action="store_true", help="start it and say whether it is ready")
    adding = mcp_sub.add_parser(
        "add",
        help="add an MCP server: agent-tui mcp add NAME -- COMMAND ARGS…, or agent-tui mcp add NAME --url URL",
    )
    adding.add_argument("name")
    adding.add_argument(
        "--scope",
        choices=["user", "project"],
        default="user",
        help="user: your config.toml (default); project: this project's .agent-tui/config.toml",
    )
    adding.add_argument("--url", help="a remote server's URL (streamable HTTP unless --transport sse)")
    adding.add_argument("--transport", choices=["stdio", "http", "sse"], help="default: stdio, or http with --url")
    adding.add_argument("--env", action="append", default=[], metavar="K=V", help="a variable for the server process")
    adding.add_argument(
        "--header", action="append", default=[], metavar="K:V", help="an HTTP header for a --url server"
    )
    adding.add_argument(
        "--sampling",
        action="store_true",
        help="let the server ask to use the model (each request still needs your approval)",
    )
    adding.add_argument(
        "--bearer-token-env-var",
        metavar="VAR",
        help="a --url server's token comes from $VAR (sent as Authorization: Bearer; the value is never written)",
    )
    adding.add_argument(
        "words", nargs="*", metavar="-- COMMAND", help="the command and its arguments, after -- (main cuts them off)"
    )
    removing = mcp_sub.add_parser("remove", help="remove an MCP server from your config or the project's")
    removing.add_argument("name")
    removing.add_argument("--scope", choices=["user", "project"], help="which config (needed when both have it)")
    login = mcp_sub.add_parser("login", help="log in to a remote MCP server with OAuth (browser), keep its tokens")
    login.add_argument("name")
    login.add_argument(
        "--timeout", type=float, default=300.0, metavar="SECONDS", help="how long to wait for the browser (300)"
    )
    logout = mcp_sub.add_parser("logout", help="forget a remote MCP server's OAuth tokens")
    logout.add_argument("name")
    serving = mcp_sub.add_parser("serve", help="serve agent-tui's sessions as MCP tools on stdin/stdout")
    add_model_flags(serving)
    add_trust_flags(serving, default=argparse.SUPPRESS)
    add_permission_flag(serving, stop="that session's run ends, as run --permission stop does")
