"""Settings: one pydantic model, layered from several sources.

Precedence (highest first): CLI flags > ``AGENT_TUI_*`` environment > project
``.agent-tui/config.toml`` > user ``config.toml`` > defaults. Every file layer is
validated on its own first, so a bad key is reported against the file it is in.
The sources are read by ``config_layers`` (no pydantic); this module validates them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from agent_tui.core.settings import paths
from agent_tui.core.settings.agent_files import AgentFiles, read_agent_files
from agent_tui.core.settings.agents import AGENT_MODES, BUILTIN_AGENTS, builtin_rules
from agent_tui.core.settings.config_layers import (
    DEFAULT_AGENT,
    ENVIRONMENT,
    Layers,
    UntrustedProject,
    merge,
    read_layers,
)
from agent_tui.core.settings.config_layers import ConfigError as ConfigError  # re-exported: raised from here too
from agent_tui.core.settings.hook_settings import HookSettings
from agent_tui.tools.sandbox import SandboxMode, SandboxPolicy, narrower, unavailable_reason
from agent_tui.vocab.kinds import ApprovalMode, Effect
from agent_tui.vocab.mcp_names import SERVER_NAME
from agent_tui.vocab.mcp_server import McpServerConfig
from agent_tui.vocab.permission_rule import PermissionRule
from agent_tui.vocab.usage import Price


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ModelSettings(_Section):
    context_window: int | None = Field(default=None, gt=0)
    max_output_tokens: int | None = Field(default=None, gt=0)
    api_base: str | None = None
    supports_vision: bool | None = None
    # Dollars per million tokens. Both input and output set: the step's cost is computed from them
    # instead of LiteLLM's price map (a provider-reported cost still wins). Cache prices default
    # to the input price.
    input_cost_per_million: float | None = Field(default=None, ge=0)
    output_cost_per_million: float | None = Field(default=None, ge=0)
    cache_read_cost_per_million: float | None = Field(default=None, ge=0)
    cache_write_cost_per_million: float | None = Field(default=None, ge=0)

    def price(self) -> Price | None:
        """The configured price, or None when input or output is missing (half a price is no price)."""
        if self.input_cost_per_million is None or self.output_cost_per_million is None:
            return None
        return Price(
            input_per_million=self.input_cost_per_million,
            output_per_million=self.output_cost_per_million,
            cache_read_per_million=self.cache_read_cost_per_million,
            cache_write_per_million=self.cache_write_cost_per_million,
        )

    structured_output: Literal["tool", "json"] | None = None
    """How a required final answer (``run --output-schema``) is asked of this model: ``tool`` (the
    generated ``final_answer`` tool) or ``json`` (the provider's native JSON mode); None: ``tool``
    unless LiteLLM's model map says the model has no function calling."""


class AgentSettings(_Section):
    """One agent (``[agents.NAME]``, a Markdown file, or built in: ``core.settings.agents``)."""

    description: str = ""
    mode: str = "all"
    """``primary`` (the user selects it), ``subagent`` (delegated work only) or ``all`` (both)."""
    model: str | None = None
    """The model its steps use; None: the session's."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    prompt: str | None = None
    """Its system prompt, instead of the model family's baseline."""
    tools: list[str] | None = None
    """The tools it is offered and may call, by name (``*`` a wildcard); None: every tool."""
    disallowed_tools: list[str] = Field(default_factory=list)
    """Tools it is never offered nor may call, whatever ``tools`` says."""
    steps: int = Field(default=50, ge=1)
    permission: list[PermissionRule] = Field(default_factory=list)
    mcp: list[str] | None = None
    """The MCP servers this agent uses, by name; None: every enabled server."""
    sandbox: SandboxMode | None = None
    """The command sandbox for this agent's steps; it may only narrow ``[sandbox] mode``
    (the plan agent: ``read-only``, so even an allowed command cannot write)."""

    @field_validator("mode")
    @classmethod
    def _mode(cls, mode: str) -> str:
        if mode not in AGENT_MODES:
            raise ValueError(f"{mode!r} is not one of {', '.join(AGENT_MODES)}")
        return mode

    @property
    def primary(self) -> bool:
        return self.mode != "subagent"

    def offers(self, tool: str) -> bool:
        """Whether the agent has the tool (offered to the model, and callable)."""
        from agent_tui.tools.wildcard import wildcard_match

        if any(wildcard_match(pattern, tool) for pattern in self.disallowed_tools):
            return False
        return self.tools is None or any(wildcard_match(pattern, tool) for pattern in self.tools)


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
    url: str | None = None
    """A ``postgresql://`` URL: sessions live in that database (``pip install 'agent-tui[postgres]'``)
    instead of the SQLite file; ``AGENT_TUI_DATABASE_URL`` sets it too (docs/scaling.md)."""
    lease_ttl_ms: int = Field(default=15_000, ge=1_000)
    """With ``url``: how long a running session's lease lives unrenewed (renewed every third of it),
    so the worst-case stall before another host takes over a dead owner's session (docs/scaling.md)."""

    @field_validator("url")
    @classmethod
    def _postgres_url(cls, url: str | None) -> str | None:
        if not url:
            return None
        if not url.startswith(("postgresql://", "postgres://")):
            raise ValueError("must be a postgresql:// URL (postgresql://user@host:5432/dbname)")
        return url


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
    mcp_servers: bool = False
    """Run every stdio MCP server in this sandbox too, as if each said ``sandbox = true``."""

    def policy(
        self, project_root: Path, read_only: tuple[Path, ...] = (), *, agent_mode: SandboxMode | None = None
    ) -> SandboxPolicy:
        """The policy a command runs under; ``agent_mode`` (the agent's own) can only narrow the mode."""
        roots = [project_root, *((project_root / Path(root).expanduser()).resolve() for root in self.writable_roots)]
        mode = self.mode if agent_mode is None else narrower(self.mode, agent_mode)
        return SandboxPolicy(mode, self.network, tuple(roots), read_only)

    def notice(self) -> str | None:
        """The one line to show at start when commands should be confined but cannot be here."""
        if self.mode is SandboxMode.FULL_ACCESS:
            return None
        reason = unavailable_reason()
        return None if reason is None else f"no command sandbox: {reason}"


class TelemetrySettings(_Section):
    """OpenTelemetry export (``agent_tui.telemetry``): off until ``otlp_endpoint`` is set."""

    otlp_endpoint: str | None = None
    """An OTLP/HTTP collector's base URL (``http://127.0.0.1:4318``): traces go to ``/v1/traces``,
    metrics to ``/v1/metrics``."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Sent with every export (a collector's API key)."""
    service_name: str = "agent-tui"
    log_prompts: bool = False
    """Put prompt, answer and tool text on the spans; off, only counts, names and timings leave."""

    @field_validator("otlp_endpoint")
    @classmethod
    def _endpoint(cls, endpoint: str | None) -> str | None:
        if endpoint is None:
            return None
        from urllib.parse import urlsplit

        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"{endpoint!r} is not an http(s) URL (an OTLP/HTTP collector: http://127.0.0.1:4318)")
        return endpoint.rstrip("/")


class ReferenceSettings(_Section):
    """A folder the agent may consult by name: ``read`` opens ``NAME:path`` in it (``tools.references``)."""

    path: str
    """Absolute, ``~/…``, or relative to the project root."""
    description: str = ""
    """What is there, for the model (shown in its reference guidance)."""


def _default_agents() -> dict[str, AgentSettings]:
    return {name: AgentSettings.model_validate(data) for name, data in BUILTIN_AGENTS.items()}


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
    approval: ApprovalMode = ApprovalMode.ASK
    """What runs without asking: ``ask``, ``auto-edit``, ``auto`` or ``full-auto`` (``vocab.kinds.ApprovalMode``)."""
    hooks: list[HookSettings] = Field(default_factory=list)
    """Every layer's ``[[hooks]]`` add up (a project's only once trusted, ``core.trust``)."""
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
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)
    """A paste of more lines than this shows in the prompt as one ``[pasted N lines]`` chip."""
    _user_rules: list[PermissionRule] = PrivateAttr(default_factory=list)
    _user_agent_rules: dict[str, list[PermissionRule]] = PrivateAttr(default_factory=dict)
    _untrusted: UntrustedProject | None = PrivateAttr(default=None)
    _agent_sources: dict[str, list[str]] = PrivateAttr(default_factory=dict)
    _problems: list[str] = PrivateAttr(default_factory=list)

    @property
    def untrusted_project(self) -> UntrustedProject | None:
        """The project config whose powers were left out because it is not trusted, if any."""
        return self._untrusted

    @property
    def problems(self) -> list[str]:
        """One line per agent file (or part of one) and per ``.mcp.json`` server left out, naming the
        file and the key; the rest loaded."""
        return list(self._problems)

    def agent_sources(self, name: str) -> list[str]:
        """Where an agent is defined, lowest precedence first (``built-in``, a file, a config file)."""
        return list(self._agent_sources.get(name, []))

    def primary_agents(self) -> list[str]:
        """The agents the user may select (mode ``primary`` or ``all``), in definition order."""
        return [name for name, agent in self.agents.items() if agent.primary]

    def agent_choice_error(self, name: str) -> str | None:
        """Why ``name`` cannot be selected (unknown, or only a subagent), in one line; None when it can."""
        agent = self.agents.get(name)
        if agent is not None and agent.primary:
            return None
        choices = ", ".join(self.primary_agents())
        if agent is None:
            return f"unknown agent {name!r}; the primary agents: {choices}"
        return f"{name} is a subagent, not an agent to select; the primary agents: {choices}"

    def permission_rules(self, agent: str | None = None) -> list[PermissionRule]:
        """The built-in agent's rules, global rules, then the agent's (the last match wins), then the
        user's own rules from their first deny on, so a rule from a project can never lift a deny the
        user wrote (the user's own later rules still do, as they would without the project)."""
        name = agent or self.agent
        own = [*self._user_rules, *self._user_agent_rules.get(name, [])]
        first_deny = next((i for i, rule in enumerate(own) if rule.effect == Effect.DENY), len(own))
        return [*_builtin_rules(name), *self.permission, *self.agent_settings(name).permission, *own[first_deny:]]

    def agent_guard(self, agent: str | None = None) -> list[PermissionRule]:
        """The agent's own rules (built-in, then every layer's, then the user's again): what the last
        matching one denies stays denied, whatever the global rules or an answer to an ask say."""
        name = agent or self.agent
        own = self._user_agent_rules.get(name, [])
        return [*_builtin_rules(name), *self.agent_settings(name).permission, *own]

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

    def command_sandbox(self, project_root: Path, agent: str | None = None) -> SandboxPolicy:
        """The sandbox ``agent``'s commands run in: ``[sandbox]`` narrowed by the agent's own mode,
        with agent-tui's own config and data folders read-only wherever they are."""
        return self.sandbox.policy(project_root, _own_folders(), agent_mode=self.agent_settings(agent).sandbox)

    def server_sandbox(self, project_root: Path, server: McpServerConfig) -> SandboxPolicy | None:
        """The sandbox a stdio MCP server runs in, or None when it runs unconfined.

        ``[sandbox]``'s policy, not an agent's: one server process serves every agent at a location.
        A server that asks for the sandbox is confined even under ``mode = "full-access"`` (that mode
        then means workspace-write for it), and its own ``network`` overrides ``[sandbox] network``."""
        if server.command is None or not (server.sandbox or self.sandbox.mcp_servers):
            return None
        policy = self.sandbox.policy(project_root, _own_folders())
        mode = policy.mode if policy.confines else SandboxMode.WORKSPACE_WRITE
        return replace(policy, mode=mode, network=policy.network if server.network is None else server.network)

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


def _own_folders() -> tuple[Path, ...]:
    """agent-tui's config and data folders: read-only in any sandbox, wherever they are."""
    return (paths.config_dir(), paths.data_dir())


@cache
def _builtin_rules(agent: str) -> tuple[PermissionRule, ...]:
    return tuple(PermissionRule.model_validate(rule) for rule in builtin_rules(agent))


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    return f"{key}: {first['msg']}"


BUILT_IN = "built-in"


def _agent_layers(found: AgentFiles) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """The built-in agents, then each good agent file, as config layers (lowest first); and the
    problems, a bad file's first one included."""
    layers: list[tuple[str, dict[str, Any]]] = [
        (BUILT_IN, {"agents": {name: dict(data) for name, data in BUILTIN_AGENTS.items()}})
    ]
    problems = list(found.problems)
    for agent in found.files:
        try:
            AgentSettings.model_validate(agent.data)
        except ValidationError as error:
            problems.append(f"{agent.shown}: {_describe(error).replace('Value error, ', '')}")
            continue
        layers.append((agent.shown, {"agents": {agent.name: agent.data}}))
    return layers, problems


def _validate_layer(data: Mapping[str, Any], source: str) -> None:
    try:
        Settings.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"{source}: {_describe(error)}") from None


_NOT_FROM_ENVIRONMENT = frozenset({"models", "agents", "permission", "mcp", "shell", "hooks"})


def _environment_problems(layer: Mapping[str, Any]) -> list[str]:
    """One line per table a variable tried to set that only config files set (its keys are names:
    agents, models, servers), so ``AGENT_TUI_AGENTS__BUILD__STEPS=3`` is not silently ignored."""
    return [
        f"{ENVIRONMENT}: AGENT_TUI_{key.upper()}__… is ignored: [{key}] is set in config files only"
        for key in sorted(layer)
        if key in _NOT_FROM_ENVIRONMENT
    ]


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

    The built-in agents and the agent files (``agent_files``) come first, under the config files.
    Permission rules add up instead of replacing: a project's rules follow the user's (a
    project layer holds only the rules trust let through, see ``core.trust``)."""
    if layers.untrusted is not None:
        _validate_layer(layers.untrusted.whole, str(layers.untrusted.config))
    found = read_agent_files(layers.project_root)
    agent_layers, problems = _agent_layers(found)
    merged: dict[str, Any] = {}
    rules: list[Any] = []
    hooks: list[Any] = []
    agent_rules: dict[str, list[Any]] = {}
    sources: dict[str, list[str]] = {}
    checked = [(True, source, data) for source, data in agent_layers]
    for valid, source, data in [*checked, *((False, source, data) for source, data in layers.sources)]:
        if source == ENVIRONMENT:
            problems += _environment_problems(data)
            data = _settable_from_environment(data)
        if not valid:
            _validate_layer(data, source)
        merged = merge(merged, data)
        hooks += data.get("hooks") or []
        global_rules, per_agent = _rules(data)
        rules += global_rules
        for name, listed in per_agent.items():
            agent_rules.setdefault(name, []).extend(listed)
            sources.setdefault(name, []).append(source)
    merged["permission"] = rules
    merged["hooks"] = hooks
    for name, listed in agent_rules.items():
        merged["agents"][name] = {**merged["agents"][name], "permission": listed}
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as error:  # pragma: no cover - layers validated above
        raise ConfigError(f"configuration: {_describe(error)}") from None
    user = Settings.model_validate(layers.user)
    settings._user_rules = user.permission
    users_files = [agent for agent in found.files if not agent.project]
    settings._user_agent_rules = {
        name: [*_file_rules(users_files, name), *agent.permission] for name, agent in user.agents.items()
    }
    for name in {agent.name for agent in users_files} - set(user.agents):
        settings._user_agent_rules[name] = _file_rules(users_files, name)
    settings._untrusted = layers.untrusted
    settings._agent_sources = sources
    settings._problems = [*problems, *layers.problems]
    return settings


def _file_rules(files: list[Any], name: str) -> list[PermissionRule]:
    """The rules the user's own agent files give the agent ``name``."""
    rules = [rule for agent in files if agent.name == name for rule in agent.data.get("permission") or []]
    return [PermissionRule.model_validate(rule) for rule in rules]


def load_settings(
    location: Path | None = None,
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build the effective settings for a working directory."""
    return validate(read_layers(location, cli, environ))
