"""Configuration sources read as plain data, before any validation.

Reading the layers needs only ``tomllib``, so the TUI can take the handful of
values its first frame shows (model, agent, theme) without importing pydantic
(~60 ms); :func:`agent_tui.core.settings.config_validation.validate` turns the same layers into
``Settings`` once the first frame is up. Precedence (highest last in
:attr:`Layers.sources`): user file < project file < environment < CLI.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.settings import paths, trust
from agent_tui.core.settings.agent_files import markdown_files
from agent_tui.core.settings.claude_hooks import ClaudeSettingsError, claude_hooks, settings_files
from agent_tui.core.settings.mcp_json import McpJsonError, UnsetVariable, expand, mcp_json_file, read_mcp_json

ENV_PREFIX = "AGENT_TUI_"
DEFAULT_AGENT = "build"
ENV_RESERVED = frozenset({"HOME", "DISABLE_PROJECT_CONFIG", "TEST_TOOLS", "NO_WARM"})
ENV_ALIASES = {"DATABASE_URL": "STORAGE__URL"}
"""Environment names that stand for a nested setting: ``AGENT_TUI_DATABASE_URL`` is ``storage.url``."""


class ConfigError(Exception):
    """A configuration source is unreadable or invalid; the message names it."""


def read_toml(path: Path) -> dict[str, Any]:
    """One TOML config file as data; a missing file is empty."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None


def env_layer(environ: Mapping[str, str]) -> dict[str, Any]:
    """``AGENT_TUI_MODEL=x`` -> ``model``; ``AGENT_TUI_RETRY__BASE_DELAY_MS`` nests.

    Every non-reserved ``AGENT_TUI_*`` name is kept here; ``config`` keeps the
    ones that name a setting."""
    layer: dict[str, Any] = {}
    for name, value in environ.items():
        key = name[len(ENV_PREFIX) :] if name.startswith(ENV_PREFIX) else ""
        if not key or key in ENV_RESERVED:
            continue
        key = ENV_ALIASES.get(key, key)
        parts = key.lower().split("__")
        target = layer
        for part in parts[:-1]:
            nested = target.setdefault(part, {})
            if not isinstance(nested, dict):  # AGENT_TUI_RETRY=x beside AGENT_TUI_RETRY__...: the table wins
                nested = target[part] = {}
            target = nested
        target[parts[-1]] = value
    return layer


def merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge tables; lists and scalars from ``over`` replace."""
    result = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(result.get(key), Mapping):
            result[key] = merge(dict(result[key]), value)
        else:
            result[key] = value
    return result


def find_project_config(location: Path) -> Path | None:
    """Nearest ``.agent-tui/config.toml`` from the location up to its project root."""
    location = location.resolve()
    root = paths.project_root(location)
    for directory in (location, *location.parents):
        candidate = paths.project_config_file(directory)
        if candidate.is_file():
            return candidate
        if directory == root:
            break
    return None


ENVIRONMENT = "environment (AGENT_TUI_*)"
COMMAND_LINE = "command line"


@dataclass(frozen=True)
class UntrustedProject:
    """A project config whose powers were left out: it is not trusted (or changed since)."""

    config: Path
    powers: trust.Powers
    whole: dict[str, Any]
    """The file as written, powers included: still validated, so a mistake is named either way."""


@dataclass(frozen=True)
class Layers:
    """The sources in precedence order, lowest first, each named for error messages."""

    sources: tuple[tuple[str, dict[str, Any]], ...]
    untrusted: UntrustedProject | None = None
    """Set when the project's config asked for powers it was not given (see ``core.trust``)."""
    project_root: Path | None = None
    """Where the project's agent files are read (``agent_files``); None with project config turned off."""
    problems: tuple[str, ...] = ()
    """What was left out of the project's ``.mcp.json``, one line each (``Settings.problems`` shows them)."""
    mcp_json: frozenset[str] = frozenset()
    """The servers the project layer has from ``.mcp.json`` (agent-tui's own of the same name win)."""

    @property
    def user(self) -> dict[str, Any]:
        """The user's own file: always the first source, the only one a project cannot shape."""
        return self.sources[0][1]

    def merged(self) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for _, data in self.sources:
            result = merge(result, data)
        return result

    def text(self, key: str) -> str | None:
        """A top-level string value as the layers give it, unvalidated (None if absent or not a string)."""
        value = self.merged().get(key)
        return value if isinstance(value, str) else None


ConfigStamp = tuple[tuple[str, int, int] | None, ...]


def _stamp(path: Path | None) -> tuple[str, int, int] | None:
    if path is None:
        return None
    try:
        stat = path.stat()
    except OSError:
        return None
    return (str(path), stat.st_mtime_ns, stat.st_size)


def config_stamp(location: Path, environ: Mapping[str, str] | None = None) -> ConfigStamp:
    """Which config files apply at ``location`` and their mtime and size: equal stamps mean
    the settings read there are still current (the environment and CLI do not change in a process).
    A few ``stat`` calls: cheap enough to check before every step."""
    environ = os.environ if environ is None else environ
    off = bool(environ.get("AGENT_TUI_DISABLE_PROJECT_CONFIG"))
    project = None if off else find_project_config(location)
    store = trust.stamp()
    root = None if off else paths.project_root(location)
    agents = markdown_files(root)
    return (
        _stamp(paths.user_config_file()),
        _stamp(project),
        None if store is None else ("trust", *store),
        *(_stamp(path) for path in agents),
        *(_stamp(path) for path in ([] if root is None else [*settings_files(root), mcp_json_file(root)])),
    )


def read_layers(
    location: Path | None = None,
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Layers:
    """Every source for a working directory; raises ``ConfigError`` for an unreadable file."""
    environ = os.environ if environ is None else environ
    location = Path.cwd() if location is None else location
    user_file = paths.user_config_file()
    sources: list[tuple[str, dict[str, Any]]] = [(str(user_file), read_toml(user_file))]
    untrusted = None
    project_root = None
    joined: list[str] = []
    problems: list[str] = []
    if not environ.get("AGENT_TUI_DISABLE_PROJECT_CONFIG"):
        project_root = paths.project_root(location)
        project_file = find_project_config(location)
        data = {} if project_file is None else read_toml(project_file)
        try:
            claude = claude_hooks(project_root)
        except ClaudeSettingsError as error:
            raise ConfigError(str(error)) from None
        if claude:  # a project's Claude Code hooks join its layer: a power like its own hooks
            listed = data.get("hooks")
            data = {**data, "hooks": [*(listed if isinstance(listed, list) else []), *claude]}
            project_file = project_file or paths.project_config_file(project_root)
        data, joined, problems = _join_mcp_json(data, sources[0][1], project_root)
        if joined:
            project_file = project_file or paths.project_config_file(project_root)
        if project_file is not None:
            kept, powers = trust.split_powers(data, frozenset(joined))
            if not trust.is_trusted(project_file, powers):
                data, untrusted = kept, UntrustedProject(project_file, powers, data)
            elif joined:  # trusted: now the environment may fill in ${VAR}
                data, expand_problems = _expand_mcp_json(data, joined, environ, mcp_json_file(project_root))
                problems += expand_problems
            sources.append((str(project_file), data))
    sources.append((ENVIRONMENT, env_layer(environ)))
    sources.append((COMMAND_LINE, {key: value for key, value in (cli or {}).items() if value is not None}))
    return Layers(tuple(sources), untrusted, project_root, tuple(problems), frozenset(joined))


def _servers(data: Mapping[str, Any]) -> Mapping[str, Any]:
    mcp = data.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, Mapping) else None
    return servers if isinstance(servers, Mapping) else {}


def _join_mcp_json(
    data: dict[str, Any], user: Mapping[str, Any], project_root: Path
) -> tuple[dict[str, Any], list[str], list[str]]:
    """The project layer with its ``.mcp.json`` servers added (a server the user's or the
    project's own config names is theirs, not the file's); the names added, and the problems."""
    try:
        found = read_mcp_json(project_root)
    except McpJsonError as error:
        raise ConfigError(str(error)) from None
    own = {*_servers(user), *_servers(data)}
    joined = {name: server for name, server in found.servers.items() if name not in own}
    if not joined:
        return data, [], list(found.problems)
    found_mcp = data.get("mcp")
    mcp = found_mcp if isinstance(found_mcp, Mapping) else {}
    servers = {**joined, **_servers(data)}
    return {**data, "mcp": {**mcp, "servers": servers}}, list(joined), list(found.problems)


def _expand_mcp_json(
    data: dict[str, Any], joined: list[str], environ: Mapping[str, str], shown: Path
) -> tuple[dict[str, Any], list[str]]:
    """Fill in the ``.mcp.json`` servers' ``${VAR}``; a server naming an unset one is left out."""
    servers = dict(_servers(data))
    problems = []
    for name in joined:
        try:
            servers[name] = expand(servers[name], environ)
        except UnsetVariable as error:
            del servers[name]
            problems.append(f"{shown}: MCP server {name} left out: {error}")
    return {**data, "mcp": {**data["mcp"], "servers": servers}}, problems
