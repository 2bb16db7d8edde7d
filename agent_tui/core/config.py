"""Settings: one pydantic model, layered from several sources.

Precedence (highest first): CLI flags > ``AGENT_TUI_*`` environment > project
``.agent-tui/config.toml`` > user ``config.toml`` > defaults. Every file layer is
validated on its own first, so a bad key is reported against the file it is in.
"""

from __future__ import annotations

import os
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_tui.core import paths

ENV_PREFIX = "AGENT_TUI_"
DEFAULT_AGENT = "build"


class ConfigError(Exception):
    """A configuration source is unreadable or invalid; the message names it."""


class Effect(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class PermissionRule(_Section):
    """``{action, pattern, effect}``; for a list of rules the last match wins."""

    action: str
    pattern: str = "*"
    effect: Effect


class ModelSettings(_Section):
    context_window: int | None = Field(default=None, gt=0)
    max_output_tokens: int | None = Field(default=None, gt=0)
    api_base: str | None = None
    supports_vision: bool | None = None


class AgentSettings(_Section):
    prompt: str | None = None
    steps: int = Field(default=50, ge=1)
    permission: list[PermissionRule] = Field(default_factory=list)


class RetrySettings(_Section):
    max_retries: int = Field(default=4, ge=0)
    base_delay_ms: int = Field(default=2000, ge=0)


class CompactionSettings(_Section):
    auto: bool = True
    buffer: int = Field(default=20_000, ge=0)
    keep_tokens: int = Field(default=8_000, ge=0)


class Synchronous(StrEnum):
    NORMAL = "normal"
    FULL = "full"


class StorageSettings(_Section):
    synchronous: Synchronous = Synchronous.NORMAL
    busy_timeout_ms: int = Field(default=5_000, ge=0)


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
    permission: list[PermissionRule] = Field(default_factory=list)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    theme: str = "agent-dark"

    def agent_settings(self, name: str | None = None) -> AgentSettings:
        return self.agents.get(name or self.agent) or AgentSettings()

    def model_settings(self, name: str) -> ModelSettings:
        return self.models.get(name) or ModelSettings()


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    return f"{key}: {first['msg']}"


def _validate_layer(data: Mapping[str, Any], source: str) -> None:
    try:
        Settings.model_validate(data)
    except ValidationError as error:
        raise ConfigError(f"{source}: {_describe(error)}") from None


def read_toml(path: Path) -> dict[str, Any]:
    """One TOML config file, validated on its own; missing files are empty."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    _validate_layer(data, str(path))
    return data


def env_layer(environ: Mapping[str, str]) -> dict[str, Any]:
    """``AGENT_TUI_MODEL=x`` -> ``model``; ``AGENT_TUI_RETRY__BASE_DELAY_MS`` nests."""
    reserved = {"HOME", "DISABLE_PROJECT_CONFIG", "TEST_TOOLS"}
    layer: dict[str, Any] = {}
    for name, value in environ.items():
        if not name.startswith(ENV_PREFIX):
            continue
        key = name[len(ENV_PREFIX):]
        if key in reserved or not key:
            continue
        parts = key.lower().split("__")
        if parts[0] not in Settings.model_fields or parts[0] in {"models", "agents", "permission"}:
            continue
        target = layer
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = value
    _validate_layer(layer, "environment (AGENT_TUI_*)")
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


def load_settings(
    location: Path | None = None,
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Build the effective settings for a working directory."""
    environ = os.environ if environ is None else environ
    location = Path.cwd() if location is None else location
    layers: list[dict[str, Any]] = [read_toml(paths.user_config_file())]
    if not environ.get("AGENT_TUI_DISABLE_PROJECT_CONFIG"):
        project_file = find_project_config(location)
        if project_file is not None:
            layers.append(read_toml(project_file))
    layers.append(env_layer(environ))
    cli_layer = {key: value for key, value in (cli or {}).items() if value is not None}
    _validate_layer(cli_layer, "command line")
    layers.append(cli_layer)
    merged: dict[str, Any] = {}
    for layer in layers:
        merged = merge(merged, layer)
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as error:  # pragma: no cover - layers validated above
        raise ConfigError(f"configuration: {_describe(error)}") from None
    if DEFAULT_AGENT not in settings.agents:
        settings.agents = {DEFAULT_AGENT: AgentSettings(), **settings.agents}
    return settings
