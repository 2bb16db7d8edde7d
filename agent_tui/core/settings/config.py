"""Settings: one pydantic model, layered from several sources.

Precedence (highest first): CLI flags > ``AGENT_TUI_*`` environment > project
``.agent-tui/config.toml`` > user ``config.toml`` > defaults. Every file layer is
validated on its own first, so a bad key is reported against the file it is in.
The sources are read by ``config_layers`` (no pydantic); this module validates them.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from agent_tui.core.settings.config_layers import (
    DEFAULT_AGENT,
    ENVIRONMENT,
    Layers,
    UntrustedProject,
    merge,
    read_layers,
)
from agent_tui.core.settings.config_layers import ConfigError as ConfigError  # re-exported: raised from here too
from agent_tui.tools.sandbox import SandboxMode, SandboxPolicy
from agent_tui.vocab.kinds import Effect
from agent_tui.vocab.mcp_names import SERVER_NAME
from agent_tui.vocab.mcp_server import McpServerConfig
from agent_tui.vocab.permission_rule import PermissionRule


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ModelSettings(_Section):
    context_window: int | None = Field(default=None, gt=0)
    max_output_tokens: int | None = Field(default=None, gt=0)
    api_base: str | None = None
    supports_vision: bool | None = None


class AgentSettings(_Section):
    prompt: str | None = None
    steps: int = Field(default=50, ge=1)
    permission: list[PermissionRule] = Field(default_factory=list)
    mcp: list[str] | None = None
    """The MCP servers this agent uses, by name; None: every enabled server."""


class McpSettings(_Section):
    servers: dict[str, McpServerConfig] = Field(default_factory=dict)

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        for name in servers:
            if not SERVER_NAME.match(name) or "__" in name:
                raise ValueError(f"server name {name!r}: use letters, digits, '-' and single '_' only")
        return servers


class RetrySettings(_Section):
    max_retries: int = Field(default=4, ge=0)
    base_delay_ms: int = Field(default=2000, ge=0)


class CompactionSettings(_Section):
    auto: bool = True
    buffer: int = Field(default=20_000, ge=0)
    keep_tokens: int = Field(default=8_000, ge=0)


class ContextSettings(_Section):
    """Lean context (``core.request.pruning``): old tool outputs leave the request, never the log."""

    prune: bool = True
    prune_protect_tokens: int = Field(default=40_000, ge=0)
    """The newest tool output kept word for word (the newest step's is always kept)."""
    prune_minimum_tokens: int = Field(default=20_000, ge=1)
    """Prune only when at least this much can go at once: the request's prefix changes in steps, not every turn."""


class Synchronous(StrEnum):
    NORMAL = "normal"
    FULL = "full"


class StorageSettings(_Section):
    synchronous: Synchronous = Synchronous.NORMAL
    busy_timeout_ms: int = Field(default=5_000, ge=0)


class SnapshotSettings(_Section):
    enabled: bool = True


class WarmSettings(_Section):
    idle_minutes: float = Field(default=30, ge=0)
    """A warm process ends after this long without a launch; 0 turns warm start off (``agent_tui.warm``)."""


class ShellEnvSettings(_Section):
    include: list[str] = Field(default_factory=list)
    """Variables ``bash`` gets although they look like secrets (``GITHUB_TOKEN``, ``AWS_*``)."""

    @field_validator("include")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        from agent_tui.tools.shell_env import ENV_NAME

        for name in names:
            if not ENV_NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not a variable name (letters, digits, '_', and '*' as a wildcard)")
        return names


class ShellSettings(_Section):
    env: ShellEnvSettings = Field(default_factory=ShellEnvSettings)


class SandboxSettings(_Section):
    """Where ``bash`` (and ``!`` commands) may write and connect (``tools.sandbox``)."""

    mode: SandboxMode = SandboxMode.WORKSPACE_WRITE
    network: bool = False
    writable_roots: list[str] = Field(default_factory=list)
    """More folders commands may write (absolute, ``~/…``, or from the project root)."""

    def policy(self, project_root: Path, read_only: tuple[Path, ...] = ()) -> SandboxPolicy:
        roots = [project_root, *((project_root / Path(root).expanduser()).resolve() for root in self.writable_roots)]
        return SandboxPolicy(self.mode, self.network, tuple(roots), read_only)


class ReferenceSettings(_Section):
    """A folder the agent may consult by name: ``read`` opens ``NAME:path`` in it (``tools.references``)."""

    path: str
    """Absolute, ``~/…``, or relative to the project root."""
    description: str = ""
    """What is there, for the model (shown in its reference guidance)."""


def _default_agents() -> dict[str, AgentSettings]:
    return {DEFAULT_AGENT: AgentSettings()}


class Settings(_Section):
    model: str | None = None
    small_model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    models: dict[str, ModelSettings] = Field(default_factory=dict)
    agent: str = DEFAULT_AGENT
    agents: dict[str, AgentSettings] = Field(default_factory=_default_agents)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)
    permission: list[PermissionRule] = Field(default_factory=list)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    snapshots: SnapshotSettings = Field(default_factory=SnapshotSettings)
    warm: WarmSettings = Field(default_factory=WarmSettings)
    shell: ShellSettings = Field(default_factory=ShellSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    theme: str = "agent-dark"
    instructions: list[str] = Field(default_factory=list)
    """More instructions for the model: paths and globs from the project root, or http(s) URLs."""
    instructions_refresh_s: float = Field(default=60, ge=0)
    """A URL in ``instructions`` fetched less than this long ago is not fetched again (0: every step)."""
    claude_md: bool = True
    """Read a directory's CLAUDE.md (or .claude/CLAUDE.md) where it has no AGENTS.md."""
    references: dict[str, ReferenceSettings] = Field(default_factory=dict)
    """Folders outside the project the agent reads as ``NAME:path``; ``@NAME:path`` attaches from them."""
    paste_chip_lines: int = Field(default=20, ge=1)
    """A paste of more lines than this shows in the prompt as one ``[pasted N lines]`` chip."""
    _user_rules: list[PermissionRule] = PrivateAttr(default_factory=list)
    _user_agent_rules: dict[str, list[PermissionRule]] = PrivateAttr(default_factory=dict)
    _untrusted: UntrustedProject | None = PrivateAttr(default=None)

    @property
    def untrusted_project(self) -> UntrustedProject | None:
        """The project config whose powers were left out because it is not trusted, if any."""
        return self._untrusted

    def permission_rules(self, agent: str | None = None) -> list[PermissionRule]:
        """Global rules, then the agent's (the last match wins), then the user's own rules from
        their first deny on, so a rule from a project can never lift a deny the user wrote
        (the user's own later rules still do, as they would without the project)."""
        name = agent or self.agent
        own = [*self._user_rules, *self._user_agent_rules.get(name, [])]
        first_deny = next((i for i, rule in enumerate(own) if rule.effect == Effect.DENY), len(own))
        return [*self.permission, *self.agent_settings(name).permission, *own[first_deny:]]

    @field_validator("references")
    @classmethod
    def _reference_names(cls, references: dict[str, ReferenceSettings]) -> dict[str, ReferenceSettings]:
        from agent_tui.tools.references import REFERENCE_NAME

        for name in references:
            if not REFERENCE_NAME.fullmatch(name):
                raise ValueError(f"reference name {name!r}: start with a letter; use letters, digits, '-' and '_'")
        return references

    def reference_roots(self, project_root: Path) -> dict[str, Path]:
        """Each reference's folder, made absolute (a relative path is from the project root)."""
        return {
            name: (project_root / Path(reference.path).expanduser()).resolve()
            for name, reference in self.references.items()
        }

    def agent_settings(self, name: str | None = None) -> AgentSettings:
        return self.agents.get(name or self.agent) or AgentSettings()

    def model_settings(self, name: str) -> ModelSettings:
        return self.models.get(name) or ModelSettings()

    def mcp_servers(self, agent: str | None = None) -> dict[str, McpServerConfig]:
        """The enabled MCP servers the agent selects (all of them unless it names some)."""
        chosen = self.agent_settings(agent).mcp
        return {
            name: server
            for name, server in self.mcp.servers.items()
            if server.enabled and (chosen is None or name in chosen)
        }


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    return f"{key}: {first['msg']}"


def _validate_layer(data: Mapping[str, Any], source: str) -> None:
    try:
        Settings.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"{source}: {_describe(error)}") from None


_NOT_FROM_ENVIRONMENT = frozenset({"models", "agents", "permission", "mcp", "shell"})


def _settable_from_environment(layer: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: value for key, value in layer.items() if key in Settings.model_fields and key not in _NOT_FROM_ENVIRONMENT
    }


def _rules(data: Mapping[str, Any]) -> tuple[list[Any], dict[str, list[Any]]]:
    """A layer's global and per-agent permission rules, as data."""
    found = data.get("agents")
    agents: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    return list(data.get("permission") or []), {
        name: list(agent.get("permission") or []) for name, agent in agents.items() if isinstance(agent, Mapping)
    }


def validate(layers: Layers) -> Settings:
    """``Settings`` from read layers; each layer is checked on its own first, so an error names its source.

    Permission rules add up instead of replacing: a project's rules follow the user's (a
    project layer holds only the rules trust let through, see ``core.trust``)."""
    if layers.untrusted is not None:
        _validate_layer(layers.untrusted.whole, str(layers.untrusted.config))
    merged: dict[str, Any] = {}
    rules: list[Any] = []
    agent_rules: dict[str, list[Any]] = {}
    for source, data in layers.sources:
        if source == ENVIRONMENT:
            data = _settable_from_environment(data)
        _validate_layer(data, source)
        merged = merge(merged, data)
        global_rules, per_agent = _rules(data)
        rules += global_rules
        for name, listed in per_agent.items():
            agent_rules.setdefault(name, []).extend(listed)
    merged["permission"] = rules
    for name, listed in agent_rules.items():
        merged["agents"][name] = {**merged["agents"][name], "permission": listed}
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as error:  # pragma: no cover - layers validated above
        raise ConfigError(f"configuration: {_describe(error)}") from None
    if DEFAULT_AGENT not in settings.agents:
        settings.agents = {DEFAULT_AGENT: AgentSettings(), **settings.agents}
    user = Settings.model_validate(layers.user)
    settings._user_rules = user.permission
    settings._user_agent_rules = {name: agent.permission for name, agent in user.agents.items()}
    settings._untrusted = layers.untrusted
    return settings


def load_settings(
    location: Path | None = None,
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build the effective settings for a working directory."""
    return validate(read_layers(location, cli, environ))
