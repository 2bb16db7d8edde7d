"""A project's Claude Code hooks (``.claude/settings.json``, ``.claude/settings.local.json``) as ``[[hooks]]``.

Claude's format, ``{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
"command": "...", "timeout": 30}]}]}}``, becomes one ``hooks`` entry per command with
``format = "claude"``, so the hook is told Claude's names and its matcher is read as Claude reads it.
Events agent-tui has no point for (``PreCompact``, ``SubagentStop``, ``SessionEnd``) and hook
types other than ``command`` are left out. They join the project's layer, so they run only once
the project is trusted (``trust.split_powers`` takes every project hook out until then).

Stdlib only: ``config_layers`` reads it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CLAUDE_EVENTS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "Stop": "stop",
    "Notification": "notification",
}
SETTINGS_FILES = ("settings.json", "settings.local.json")


def settings_files(project_root: Path) -> list[Path]:
    return [project_root / ".claude" / name for name in SETTINGS_FILES]


class ClaudeSettingsError(ValueError):
    """A Claude settings file that cannot be read or is not JSON; the message names it."""


def _read(path: Path) -> Mapping[str, Any]:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise ClaudeSettingsError(f"{path}: cannot read: {error}") from None
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise ClaudeSettingsError(f"{path}: invalid JSON: {error}") from None
    return data if isinstance(data, Mapping) else {}


def _entries(event: str, groups: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, Mapping):
            continue
        matcher = group.get("matcher")
        for hook in group.get("hooks") or []:
            if not isinstance(hook, Mapping) or hook.get("type", "command") != "command" or not hook.get("command"):
                continue
            entry: dict[str, Any] = {"event": event, "command": hook["command"], "format": "claude"}
            if isinstance(matcher, str) and matcher:
                entry["matcher"] = matcher
            if hook.get("timeout") is not None:
                entry["timeout"] = hook["timeout"]
            out.append(entry)
    return out


def claude_hooks(project_root: Path) -> list[dict[str, Any]]:
    """The hooks of the project's Claude settings files, in file order, as ``[[hooks]]`` data."""
    found: list[dict[str, Any]] = []
    for path in settings_files(project_root):
        hooks = _read(path).get("hooks")
        if not isinstance(hooks, Mapping):
            continue
        for name, groups in hooks.items():
            if name in CLAUDE_EVENTS:
                found += _entries(CLAUDE_EVENTS[name], groups)
    return found
