"""The tables of the configuration (``[storage]``, ``[sandbox]``, ``[agents.NAME]``…), one pydantic model each.

Each is a part of ``config.Settings``; modules that need one table only (the store its
``StorageSettings``, pruning its ``ContextSettings``) import it from here, not the whole model.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent_tui.core.settings.agents import AGENT_MODES
from agent_tui.tools.sandbox import SandboxMode, SandboxPolicy, narrower, unavailable_reason
from agent_tui.vocab.mcp_names import SERVER_NAME
from agent_tui.vocab.mcp_server import McpServerConfig
from agent_tui.vocab.permission_rule import PermissionRule
from agent_tui.vocab.usage import Price


class Section(BaseModel):
    """A table of the config: an unknown key is an error, and so is assigning a bad value."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ModelSettings(Section):
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


class AgentSettings(Section):
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


class McpSettings(Section):
    servers: dict[str, McpServerConfig] = Field(default_factory=dict)

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        for name in servers:
            if not SERVER_NAME.match(name) or "__" in name:
                raise ValueError(f"server name {name!r}: use letters, digits, '-' and single '_' only")
        return servers


class RetrySettings(Section):
    max_retries: int = Field(default=4, ge=0)
    base_delay_ms: int = Field(default=2000, ge=0)


class CompactionSettings(Section):
    auto: bool = True
    buffer: int = Field(default=20_000, ge=0)
    keep_tokens: int = Field(default=8_000, ge=0)


class ContextSettings(Section):
    """Lean context (``core.request.pruning``): old tool outputs leave the request, never the log."""

    prune: bool = True
    prune_protect_tokens: int = Field(default=40_000, ge=0)
    """The newest tool output kept word for word (the newest step's is always kept)."""
    prune_minimum_tokens: int = Field(default=20_000, ge=1)
    """Prune only when at least this much can go at once: the request's prefix changes in steps, not every turn."""


class Synchronous(StrEnum):
    NORMAL = "normal"
    FULL = "full"


class StorageSettings(Section):
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


class SnapshotSettings(Section):
    enabled: bool = True


class WarmSettings(Section):
    idle_minutes: float = Field(default=30, ge=0)
    """A warm process ends after this long without a launch; 0 turns warm start off (``agent_tui.warm``)."""


class ShellEnvSettings(Section):
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


class ShellSettings(Section):
    env: ShellEnvSettings = Field(default_factory=ShellEnvSettings)


class SandboxSettings(Section):
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


class TelemetrySettings(Section):
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


class ReferenceSettings(Section):
    """A folder the agent may consult by name: ``read`` opens ``NAME:path`` in it (``tools.references``)."""

    path: str
    """Absolute, ``~/…``, or relative to the project root."""
    description: str = ""
    """What is there, for the model (shown in its reference guidance)."""
