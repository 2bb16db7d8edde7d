"""Settings: one pydantic model of the whole configuration, and the answers derived from it.

Its tables are in ``config_sections``; ``config_validation`` builds it from the layers that
``config_layers`` reads (precedence, and which file a bad key is in, are theirs).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

from pydantic import Field, PrivateAttr, field_validator

from agent_tui.core.settings import paths
from agent_tui.core.settings.agents import BUILTIN_AGENTS, builtin_rules
from agent_tui.core.settings.config_layers import DEFAULT_AGENT, UntrustedProject
from agent_tui.core.settings.config_sections import (
    AgentSettings,
    CompactionSettings,
    ContextSettings,
    McpSettings,
    ModelSettings,
    ReferenceSettings,
    RetrySettings,
    SandboxSettings,
    Section,
    ShellSettings,
    SnapshotSettings,
    StorageSettings,
    TelemetrySettings,
    WarmSettings,
)
from agent_tui.core.settings.hook_settings import HookSettings
from agent_tui.tools.sandbox import SandboxMode, SandboxPolicy
from agent_tui.vocab.kinds import ApprovalMode, Effect
from agent_tui.vocab.mcp_server import McpServerConfig
from agent_tui.vocab.permission_rule import PermissionRule


def _default_agents() -> dict[str, AgentSettings]:
    return {name: AgentSettings.model_validate(data) for name, data in BUILTIN_AGENTS.items()}


class Settings(Section):
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
