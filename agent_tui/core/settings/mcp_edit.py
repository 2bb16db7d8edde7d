"""Add or remove one ``[mcp.servers.NAME]`` table in a config file, keeping the rest as written.

``agent-tui mcp add|remove`` edit files people also edit by hand: :mod:`.toml_file` keeps their
comments and layout and replaces them atomically.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import tomlkit

from agent_tui.core.settings.config_layers import ConfigError
from agent_tui.core.settings.toml_file import read_document, write_atomically


class ServerExists(ConfigError):
    """The file already has a server of that name: adding would overwrite what someone wrote."""


def _table(parent: Any, key: str, file: Path) -> Any:
    """``parent[key]`` as a table, made (as a ``[a.b]`` header, not inline) when missing."""
    found = parent.get(key)
    if found is None:
        parent[key] = tomlkit.table(is_super_table=True)
        return parent[key]
    if not isinstance(found, Mapping):
        raise ConfigError(f"{file}: {key} is not a table")
    return found


def servers_in(file: Path) -> dict[str, Any]:
    """The ``[mcp.servers]`` tables of a file as plain data (empty when it has none)."""
    mcp = read_document(file).unwrap().get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    return servers if isinstance(servers, dict) else {}


def add_server(file: Path, name: str, server: Mapping[str, Any]) -> None:
    """Write ``[mcp.servers.NAME]`` into ``file`` (made with its folder if missing)."""
    document = read_document(file)
    servers = _table(_table(document, "mcp", file), "servers", file)
    if name in servers:
        raise ServerExists(f"{file} already has MCP server {name} (agent-tui mcp remove {name} first)")
    table = tomlkit.table()
    for key, value in server.items():
        if isinstance(value, Mapping):
            inline = tomlkit.inline_table()
            inline.update(value)
            table[key] = inline
        else:
            table[key] = value
    table.add(tomlkit.nl())  # a blank line before whatever table follows
    servers[name] = table
    write_atomically(file, tomlkit.dumps(document))


def remove_server(file: Path, name: str) -> bool:
    """Take ``[mcp.servers.NAME]`` out of ``file``; False when it has no such server."""
    document = read_document(file)
    mcp = document.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, Mapping) else None
    if not isinstance(servers, MutableMapping) or name not in servers:
        return False
    del servers[name]
    write_atomically(file, tomlkit.dumps(document))
    return True
