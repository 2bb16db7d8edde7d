"""Where an MCP server is configured (user file, project file, ``.mcp.json``), and changing those files.

``agent-tui mcp list|get`` show every server with the file it comes from and whether it waits
for the project to be trusted; ``add``/``remove`` edit the user's ``config.toml`` or the
project's ``.agent-tui/config.toml`` (``mcp_edit``).

A project's servers are a trust power, so editing them changes the digest the project was
trusted with. The person who runs ``mcp add --scope project`` wrote that change themselves: when
the project was trusted before (or asked for nothing needing trust), its trust is recorded again
with the new powers, so the server they just added starts; a project still waiting for trust stays
waiting (what else it asks for is not theirs to approve by adding a server).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent_tui.core.settings import paths, trust
from agent_tui.core.settings.config_layers import (
    ConfigError,
    Layers,
    UntrustedProject,
    find_project_config,
    read_layers,
)
from agent_tui.core.settings.config_validation import validate
from agent_tui.core.settings.mcp_edit import add_server, remove_server, servers_in
from agent_tui.core.settings.mcp_json import mcp_json_file

Scope = Literal["user", "project"]
SCOPES: tuple[Scope, ...] = ("user", "project")


class ServerNotFound(ConfigError):
    """No such server where it was looked for; the message says where."""


@dataclass(frozen=True)
class McpServerRow:
    """One server as ``agent-tui mcp list`` shows it (``--json``: these fields)."""

    name: str
    scope: str
    """``user``, ``project`` or ``mcp.json`` (the project's shared ``.mcp.json``)."""
    source: str
    """The file it is configured in."""
    transport: str
    target: str
    """The command line, or the URL."""
    enabled: bool
    waiting_for_trust: bool
    """The project is not trusted, so this server is not started (``agent-tui trust add``)."""
    env: tuple[str, ...] = ()
    """The names of the variables it is given (not their values: they are often keys)."""
    headers: tuple[str, ...] = ()
    """The names of the HTTP headers it is sent."""
    sampling: bool = False
    """It may ask to use the model (``sampling = true``), each request approved by the user."""
    auth: str = ""
    """How a remote server authenticates (``logged in (OAuth)``, ``expired``, ``not logged in``,
    ``bearer from $VAR``), filled by ``host.mcp_auth.with_auth``; never the secret."""
    status: dict[str, Any] = field(default_factory=dict)
    """Filled by a check (``host.mcp_probe``): ``state``, ``tools``, ``error``."""


def scope_file(scope: Scope, location: Path) -> Path:
    """The file a scope's servers are written to: the user's config, or the project's own (the
    nearest ``.agent-tui/config.toml``, else a new one at the project root)."""
    if scope == "user":
        return paths.user_config_file()
    return find_project_config(location) or paths.project_config_file(paths.project_root(location))


def _untrusted_powers(location: Path) -> UntrustedProject | None:
    """What the project asks for that needs trust, read as if it were not trusted."""
    previous = trust.assumed()
    trust.assume(False)
    try:
        return read_layers(location).untrusted
    finally:
        trust.assume(previous)


def _trusted(asked: UntrustedProject | None) -> bool:
    if asked is None:
        return True
    entry = trust.previously_trusted(asked.config)
    return entry is not None and entry.digest == asked.powers.digest()


def _edit_project(location: Path, edit: Any) -> str | None:
    """Run ``edit`` on the project's file; keep the project's trust as it was. Returns a line to
    tell the user about trust, or None."""
    was_trusted = _trusted(_untrusted_powers(location))
    edit()
    asked = _untrusted_powers(location)
    if asked is None:
        return None
    if was_trusted:
        trust.trust(asked.config, asked.powers)
        return f"trust in {asked.config} recorded again with this change"
    return (
        f"{asked.config} is not trusted, so its MCP servers do not start until it is "
        "(agent-tui trust add shows everything it asks for)"
    )


@dataclass(frozen=True)
class EditResult:
    file: Path
    note: str | None = None


def mcp_add(location: Path, scope: Scope, name: str, server: Mapping[str, Any]) -> EditResult:
    """Add ``[mcp.servers.NAME]`` to the scope's file. ``ServerExists`` if it has one already; a
    table the config would refuse is refused here (``ConfigError``), before the file changes."""
    from pydantic import ValidationError

    from agent_tui.vocab.mcp_server import McpServerConfig

    try:
        McpServerConfig.model_validate(server)
    except ValidationError as error:
        raise ConfigError(f"MCP server {name}: {error.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    file = scope_file(scope, location)
    if scope == "user":
        add_server(file, name, server)
        return EditResult(file)
    return EditResult(file, _edit_project(location, lambda: add_server(file, name, server)))


def mcp_remove(location: Path, name: str, scope: Scope | None = None) -> EditResult:
    """Remove the server from the scope's file; with no scope, from the one file that has it."""
    having = [
        each for each in (SCOPES if scope is None else (scope,)) if name in servers_in(scope_file(each, location))
    ]
    if not having:
        where = f"the {scope} config ({scope_file(scope, location)})" if scope else "the user or project config"
        in_json = name in _mcp_json_names(location)
        hint = f"; it is in {mcp_json_file(paths.project_root(location))}: edit that file" if in_json else ""
        raise ServerNotFound(f"no MCP server {name} in {where}{hint}")
    if len(having) > 1:
        raise ConfigError(f"MCP server {name} is in both the user and the project config: say --scope user or project")
    file = scope_file(having[0], location)
    if having[0] == "user":
        remove_server(file, name)
        return EditResult(file)
    return EditResult(file, _edit_project(location, lambda: remove_server(file, name)))


def _mcp_json_names(location: Path) -> set[str]:
    from agent_tui.core.settings.mcp_json import McpJsonError, read_mcp_json

    try:
        return set(read_mcp_json(paths.project_root(location)).servers)
    except McpJsonError:
        return set()


def _described(server: Mapping[str, Any]) -> tuple[str, str]:
    """Transport and target of a server table as written (it may not be valid yet)."""
    command = server.get("command")
    if command is not None:
        return "stdio", " ".join(map(str, command)) if isinstance(command, list) else str(command)
    return str(server.get("type") or "http"), str(server.get("url", "?"))


def mcp_listing(location: Path) -> tuple[list[McpServerRow], list[str]]:
    """Every configured server at ``location`` (the ones waiting for trust too) and the problems
    (``.mcp.json`` entries left out). Raises ``ConfigError`` for a bad config file."""
    layers = read_layers(location)
    settings = validate(layers)
    project = find_project_config(location)
    sources = {
        **{name: ("mcp.json", str(mcp_json_file(layers.project_root or location))) for name in layers.mcp_json},
        **{name: ("user", str(paths.user_config_file())) for name in _user_servers(layers)},
        **({} if project is None else {name: ("project", str(project)) for name in servers_in(project)}),
    }
    untrusted = layers.untrusted
    waiting = untrusted.powers.wanted.get("mcp.servers", {}) if untrusted is not None else {}
    found = {name: (server.model_dump(exclude_none=True), False) for name, server in settings.mcp.servers.items()}
    for name, server in waiting.items():
        if name not in found and isinstance(server, Mapping):
            found[name] = (dict(server), True)
    rows = [_row(name, server, sources.get(name, ("?", "?")), waits) for name, (server, waits) in found.items()]
    return sorted(rows, key=lambda row: row.name), settings.problems


def _row(name: str, server: Mapping[str, Any], source: tuple[str, str], waiting: bool) -> McpServerRow:
    transport, target = _described(server)
    return McpServerRow(
        name=name,
        scope=source[0],
        source=source[1],
        transport=transport,
        target=target,
        enabled=bool(server.get("enabled", True)),
        waiting_for_trust=waiting,
        env=tuple(server.get("env") or ()),
        headers=tuple(server.get("headers") or ()),
        sampling=server.get("sampling") is True,
    )


def _user_servers(layers: Layers) -> Mapping[str, Any]:
    mcp = layers.user.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, Mapping) else None
    return servers if isinstance(servers, Mapping) else {}
