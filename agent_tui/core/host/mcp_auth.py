"""``agent-tui mcp login|logout`` and the auth column of ``mcp list/get``: a remote server's login, by name.

The server is the one configured at the location (a project's server only once the project is
trusted: its URL is the project's word until then). The flow itself is ``tools.mcp.oauth``; the
tokens go to the keyring or the user-only file (``tools.mcp.token_store``) the sessions read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.host.mcp_host import SDK_LOG
from agent_tui.core.settings import paths
from agent_tui.core.settings.config_layers import ConfigError
from agent_tui.core.settings.config_validation import load_settings
from agent_tui.core.settings.mcp_scopes import McpServerRow, mcp_listing
from agent_tui.tools.mcp.oauth import LoginFailed, auth_state, login
from agent_tui.tools.mcp.sdk_log import route_sdk_logs
from agent_tui.tools.mcp.token_store import ChosenTokenStore, TokenStore
from agent_tui.vocab.mcp_server import McpServerConfig


class McpLoginError(ConfigError):
    """The login could not be done; the message says why (never a token)."""


def _store() -> TokenStore:
    return ChosenTokenStore(paths.data_dir())


def _server(location: Path, name: str) -> McpServerConfig:
    servers = load_settings(location).mcp.servers
    if name in servers:
        return servers[name]
    rows, _ = mcp_listing(location)
    if any(row.name == name and row.waiting_for_trust for row in rows):
        raise McpLoginError(f"MCP server {name} is the project's, which is not trusted yet (agent-tui trust add)")
    raise McpLoginError(f"no MCP server {name} here (agent-tui mcp list shows them)")


@dataclass(frozen=True)
class LoginResult:
    where: str
    """Where the tokens are kept (the keyring, or the file's path)."""


async def mcp_login(
    location: Path, name: str, say: Callable[[str], None], timeout_s: float | None = None
) -> LoginResult:
    """Log in to the remote server ``name`` configured at ``location`` and keep its tokens."""
    server = _server(location, name)
    store = _store()
    await asyncio.to_thread(route_sdk_logs, paths.data_dir() / SDK_LOG)  # the SDK's tracebacks: not on the terminal
    try:
        if timeout_s is None:
            await login(name, server, store, say)
        else:
            await login(name, server, store, say, timeout_s)
    except LoginFailed as error:
        raise McpLoginError(f"login to MCP server {name} failed: {error}") from None
    return LoginResult(await asyncio.to_thread(lambda: store.where))


def mcp_logout(name: str) -> tuple[bool, str]:
    """Forget the server's tokens: (whether there were any, where they were kept)."""
    store = _store()
    return store.delete(name), store.where


def mcp_with_auth(location: Path, rows: list[McpServerRow]) -> list[McpServerRow]:
    """The rows with their auth state (``logged in``, ``expired``, ``not logged in``, ``bearer from
    $VAR``); a server waiting for trust, or a stdio one, has none."""
    from dataclasses import replace

    servers = load_settings(location).mcp.servers
    if not any(server.transport != "stdio" for server in servers.values()):
        return rows
    store = _store()
    out = []
    for row in rows:
        server = servers.get(row.name)
        state = auth_state(store.load(row.name), server) if server is not None and server.url else ""
        out.append(replace(row, auth=state) if state else row)
    return out
