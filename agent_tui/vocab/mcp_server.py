"""One configured MCP server, as ``[mcp.servers.NAME]`` gives it: config parses it, ``tools.mcp`` runs it."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class McpServerConfig(BaseModel):
    """Either ``command`` (stdio: a process) or ``url`` (streamable HTTP, or the older SSE with
    ``type = "sse"``), never both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: list[str] | None = Field(default=None, min_length=1)
    env: dict[str, str] = Field(default_factory=dict)
    """Variables set for the server process, over the minimal environment it gets."""
    env_vars: list[str] = Field(default_factory=list)
    """Names of agent-tui's own variables the server may read (``["GITHUB_TOKEN"]``); no others reach it."""
    cwd: str | None = None
    url: str | None = None
    type: Literal["stdio", "http", "sse"] | None = None
    """The transport, as ``.mcp.json`` spells it; None: stdio for a command, streamable HTTP for a url.
    ``sse`` is the SSE transport of the 2024 protocol, which some hosted servers still speak."""
    headers: dict[str, str] = Field(default_factory=dict)
    bearer_token_env_var: str | None = None
    """A url server's token comes from this variable of agent-tui's environment, sent as
    ``Authorization: Bearer …`` (the token stays out of config files); unset or empty fails the server."""
    enabled: bool = True
    timeout_s: float = Field(default=120.0, gt=0)
    """How long one tool call may take before it fails (and the server is restarted)."""
    startup_timeout_s: float = Field(default=30.0, gt=0)
    """How long starting (the process and the handshake) may take."""
    list_timeout_s: float = Field(default=30.0, gt=0)
    """How long listing the server's tools may take."""
    sandbox: bool = False
    """Run the process in the command sandbox (``[sandbox]``'s policy): off by default, since a
    server confined without warning may break; ``[sandbox] mcp_servers = true`` sets it for all."""
    network: bool | None = None
    """Inside the sandbox, may the server reach the network? None: as ``[sandbox] network`` says."""
    sampling: bool = False
    """Let the server ask the session's model (``sampling/createMessage``): off by default, so the
    capability is not even declared; on, each request still waits for the user's approval."""

    @field_validator("env_vars")
    @classmethod
    def _variable_names(cls, names: list[str]) -> list[str]:
        bad = [name for name in names if not _VARIABLE.match(name)]
        if bad:
            raise ValueError(f"env_vars: {', '.join(map(repr, bad))} is not a variable name (letters, digits, '_')")
        return names

    @field_validator("bearer_token_env_var")
    @classmethod
    def _bearer_variable(cls, name: str | None) -> str | None:
        if name is not None and not _VARIABLE.match(name):
            raise ValueError(f"bearer_token_env_var: {name!r} is not a variable name (letters, digits, '_')")
        return name

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("set exactly one of command (stdio) or url (streamable HTTP)")
        if self.type is not None and (self.type == "stdio") != (self.command is not None):
            raise ValueError(f"type {self.type!r} needs {'command' if self.type == 'stdio' else 'url'}")
        if self.url is None and self.headers:
            raise ValueError("headers apply only to a url server")
        if self.url is None and self.bearer_token_env_var is not None:
            raise ValueError("bearer_token_env_var applies only to a url server")
        if self.bearer_token_env_var is not None and any(k.lower() == "authorization" for k in self.headers):
            raise ValueError("give bearer_token_env_var or an Authorization header, not both")
        if self.command is None and (self.env or self.env_vars or self.cwd):
            raise ValueError("env, env_vars and cwd apply only to a command server")
        if self.command is None and (self.sandbox or self.network is not None):
            raise ValueError("sandbox and network apply only to a command server (a url server runs elsewhere)")
        return self

    @property
    def transport(self) -> str:
        """``stdio``, ``http`` (streamable HTTP) or ``sse``."""
        return self.type or ("stdio" if self.command is not None else "http")
