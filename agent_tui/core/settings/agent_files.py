"""Agents written as Markdown files: YAML front matter for the settings, the body for the prompt.

Where they are read, lowest precedence first (a later file changes an agent field by field, and
the config files' ``[agents.NAME]`` come after all of them):

1. ``agents/*.md`` in the user's config dir (``paths.config_dir``);
2. ``.claude/agents/*.md`` in the project root: Claude Code's subagents (``name``, ``description``,
   ``tools: Read, Grep, Bash``, ``model: sonnet|opus|haiku|inherit``), mapped to ours;
3. ``.agent-tui/agents/*.md`` in the project root: our own keys, as in ``[agents.NAME]``.

A file names the agent by its ``name`` key, else by its file name. A bad file is one line naming
the file and the key (``.agent-tui/agents/review.md: mode: 'sometimes' is not one of primary,
subagent, all``); the other files still load.

A project's files are the repository's text, as its config is: they may narrow (ask and deny
rules, fewer tools) but never widen. Their ``allow`` rules are left out, with a line saying so;
an allow for a project's agent belongs in ``.agent-tui/config.toml``'s ``[agents.NAME]``, where
trust (``core.settings.trust``) applies to it.

PyYAML parses the front matter (Claude Code's files use YAML, lists and multi-line
descriptions included); it is imported only when a file is read, never for the first frame.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.settings import paths
from agent_tui.core.settings.front_matter import FrontMatterError, read_front_matter

AGENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")

CLAUDE_TOOLS = {
    "Read": "read",
    "Grep": "read",
    "Glob": "read",
    "LS": "read",
    "Bash": "bash",
    "Edit": "apply_patch",
    "Write": "apply_patch",
    "MultiEdit": "apply_patch",
    "NotebookEdit": "apply_patch",
    "TodoWrite": "todo",
}
"""Claude Code's tool names for the tools of ours that do the same; ``mcp__server__tool`` names match as they are."""
CLAUDE_MODEL_ALIASES = frozenset({"inherit", "sonnet", "opus", "haiku", "default"})
"""Claude Code's model aliases: the agent uses the session's model."""

OUR_KEYS = frozenset(
    {
        "name",
        "description",
        "mode",
        "model",
        "temperature",
        "tools",
        "disallowed_tools",
        "steps",
        "permission",
        "mcp",
        "sandbox",
    }
)
CLAUDE_KEYS = frozenset({"name", "description", "tools", "disallowedTools", "model", "color"})


@dataclass(frozen=True)
class AgentFile:
    """One file's agent, as config data (``[agents.NAME]``'s keys)."""

    name: str
    path: Path
    shown: str
    """The path as messages show it: relative to the project root for a project's file."""
    data: dict[str, Any]
    project: bool


@dataclass
class AgentFiles:
    files: list[AgentFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """One line per bad file or dropped part, naming the file and the key."""


class _Bad(ValueError):
    """A file that cannot be used: the message names the key."""


def agent_dirs(project_root: Path | None) -> list[tuple[Path, bool, bool]]:
    """``(folder, from the project, Claude Code's format)``, lowest precedence first."""
    found = [(paths.config_dir() / "agents", False, False)]
    if project_root is not None:
        found += [
            (project_root / ".claude" / "agents", True, True),
            (project_root / ".agent-tui" / "agents", True, False),
        ]
    return found


def markdown_files(project_root: Path | None) -> Iterable[Path]:
    for folder, _, _ in agent_dirs(project_root):
        if folder.is_dir():
            yield from sorted(folder.glob("*.md"))


def _words(value: Any, key: str) -> list[str]:
    """A list written as YAML (``[a, b]``, ``- a``) or as Claude Code writes it (``a, b``)."""
    if isinstance(value, str):
        return [word.strip() for word in value.split(",") if word.strip()]
    if isinstance(value, list) and all(isinstance(word, str) for word in value):
        return [word.strip() for word in value]
    raise _Bad(f"{key}: expected a list of names")


def _claude_tools(names: list[str], key: str, notes: list[str]) -> list[str]:
    mapped: list[str] = []
    unknown = []
    for name in names:
        ours = CLAUDE_TOOLS.get(name) or (name if name.startswith("mcp__") else None)
        if ours is None:
            unknown.append(name)
        elif ours not in mapped:
            mapped.append(ours)
    if unknown:
        notes.append(f"{key}: no tool here for {', '.join(unknown)}; left out")
    return mapped


def _from_claude(meta: Mapping[str, Any], notes: list[str]) -> dict[str, Any]:
    """Claude Code's keys as ours; unknown keys are left out with a note (its format grows)."""
    data: dict[str, Any] = {"mode": "subagent"}
    for key, value in meta.items():
        if key == "description":
            data["description"] = value
        elif key == "tools":
            data["tools"] = _claude_tools(_words(value, key), key, notes)
        elif key == "disallowedTools":
            data["disallowed_tools"] = _claude_tools(_words(value, key), key, notes)
        elif key == "model":
            if not isinstance(value, str):
                raise _Bad("model: expected a model name or inherit, sonnet, opus, haiku")
            if value not in CLAUDE_MODEL_ALIASES:
                data["model"] = value
        elif key not in CLAUDE_KEYS:
            notes.append(f"{key}: not used here; left out")
    return data


def _ours(meta: Mapping[str, Any], project: bool, notes: list[str]) -> dict[str, Any]:
    unknown = sorted(set(meta) - OUR_KEYS)
    if unknown:
        raise _Bad(f"{unknown[0]}: not an agent setting (one of {', '.join(sorted(OUR_KEYS))})")
    data = {key: value for key, value in meta.items() if key != "name"}
    for key in ("tools", "disallowed_tools"):
        if key in data:
            data[key] = _words(data[key], key)
    rules = data.get("permission")
    if project and isinstance(rules, list):
        allows = [rule for rule in rules if isinstance(rule, Mapping) and rule.get("effect") == "allow"]
        if allows:
            data["permission"] = [rule for rule in rules if rule not in allows]
            notes.append(
                "permission: a project's agent file may not allow; its allow rules are left out "
                "(put them in .agent-tui/config.toml [agents.NAME], which trust covers)"
            )
    return data


def read_agent_file(path: Path, shown: str, project: bool, claude: bool) -> tuple[AgentFile, list[str]]:
    """One file's agent and its notes; raises ``_Bad`` for a file that cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise _Bad(f"cannot read it: {error}") from None
    try:
        meta, body = read_front_matter(text)
    except FrontMatterError as error:
        raise _Bad(str(error)) from None
    body = body.strip()
    name = meta.get("name", path.stem)
    if not isinstance(name, str) or not AGENT_NAME.match(name):
        raise _Bad(f"name: {name!r} is not an agent name (letters, digits, '-', '_')")
    notes: list[str] = []
    data = _from_claude(meta, notes) if claude else _ours(meta, project, notes)
    if body:
        data["prompt"] = body
    return AgentFile(name, path, shown, data, project), notes


def _shown(path: Path, project_root: Path | None) -> str:
    if project_root is not None and path.is_relative_to(project_root):
        return str(path.relative_to(project_root))
    return str(path)


def read_agent_files(project_root: Path | None) -> AgentFiles:
    """Blocking: every agent file, lowest precedence first, and one line per problem."""
    found = AgentFiles()
    for folder, project, claude in agent_dirs(project_root):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            shown = _shown(path, project_root)
            try:
                agent, notes = read_agent_file(path, shown, project, claude)
            except _Bad as error:
                found.problems.append(f"{shown}: {error}")
                continue
            found.files.append(agent)
            found.problems.extend(f"{shown}: {note}" for note in notes)
    return found
