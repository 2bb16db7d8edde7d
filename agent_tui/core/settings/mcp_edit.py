"""Add or remove one ``[mcp.servers.NAME]`` table in a config file, keeping the rest as written.

``agent-tui mcp add|remove`` edit files people also edit by hand, so comments, order and
formatting must survive: tomlkit reads and writes the file as a document, not as data.
The new text replaces the file atomically (a temporary file beside it, then a rename), so a
reader never sees half a file and a crash leaves the old one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from agent_tui.core.settings.config_layers import ConfigError


class ServerExists(ConfigError):
    """The file already has a server of that name: adding would overwrite what someone wrote."""


def _document(file: Path) -> tomlkit.TOMLDocument:
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{file}: cannot read: {error}") from None
    try:
        return tomlkit.parse(text)
    except TOMLKitError as error:
        raise ConfigError(f"{file}: invalid TOML: {error}") from None


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
    mcp = _document(file).unwrap().get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    return servers if isinstance(servers, dict) else {}


def add_server(file: Path, name: str, server: Mapping[str, Any]) -> None:
    """Write ``[mcp.servers.NAME]`` into ``file`` (made with its folder if missing)."""
    document = _document(file)
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
    _write(file, tomlkit.dumps(document))


def remove_server(file: Path, name: str) -> bool:
    """Take ``[mcp.servers.NAME]`` out of ``file``; False when it has no such server."""
    document = _document(file)
    mcp = document.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, Mapping) else None
    if not isinstance(servers, MutableMapping) or name not in servers:
        return False
    del servers[name]
    _write(file, tomlkit.dumps(document))
    return True


def _write(file: Path, text: str) -> None:
    """Replace ``file`` atomically, keeping its permissions (a new one is the user's only: a
    config file may hold keys)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = file.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600
    temporary = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, file)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
