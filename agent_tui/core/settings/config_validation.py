"""From read layers to ``Settings``: each layer validated on its own, so a bad key is reported
against the file (or variable) it is in.

Precedence (highest first): CLI flags > ``AGENT_TUI_*`` environment > project
``.agent-tui/config.toml`` > user ``config.toml`` > defaults. The sources are read by
``config_layers`` (no pydantic); this module validates and merges them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_tui.core.settings.agent_files import AgentFiles, read_agent_files
from agent_tui.core.settings.agents import BUILTIN_AGENTS
from agent_tui.core.settings.config import Settings
from agent_tui.core.settings.config_layers import ENVIRONMENT, ConfigError, Layers, merge, read_layers
from agent_tui.core.settings.config_sections import AgentSettings
from agent_tui.vocab.permission_rule import PermissionRule


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
