"""Skills (the Agent Skills format): discovery, and the ones an agent may use.

A skill is a folder holding ``SKILL.md``: YAML front matter with ``name`` and
``description``, then a Markdown body, and any bundled files beside it. Skills are
found in the project root's ``.agent-tui/skills/``, ``.agents/skills/`` and
``.claude/skills/`` (unless ``AGENT_TUI_DISABLE_PROJECT_CONFIG`` is set), then in the
config dir's ``skills/``. When two share a name the first found wins: the project's
over the user's, and within the project in the order above.

A bad ``SKILL.md`` (no front matter, a missing or malformed ``name`` or
``description``) becomes one line naming the file and the key, and is left out;
the others load. The permission action ``skill``, with the skill's name as the
resource, decides which skills an agent may use: a deny hides a skill from the
model's guidance and refuses the ``skill`` tool (the default allows).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.settings import paths
from agent_tui.core.settings.front_matter import FrontMatterError, read_front_matter
from agent_tui.tools.permissions import evaluate
from agent_tui.vocab.kinds import Effect
from agent_tui.vocab.permission_rule import PermissionRule
from agent_tui.vocab.skill import SKILL_FILE, SKILL_TOOL, Skill

PROJECT_SKILL_DIRS = (".agent-tui/skills", ".agents/skills", ".claude/skills")
NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_FILE_BYTES = 256 * 1024


@dataclass(frozen=True)
class SkillCatalog:
    skills: tuple[Skill, ...] = ()
    """Every skill found, one per name (the winner of a collision), sorted by name."""
    problems: tuple[str, ...] = ()
    """One line per ``SKILL.md`` left out: the file, the key, what is wrong."""
    shadowed: tuple[Skill, ...] = ()
    """Skills hidden by another of the same name found earlier."""

    def named(self) -> dict[str, Skill]:
        return {skill.name: skill for skill in self.skills}

    def available(self, rules: Sequence[PermissionRule]) -> list[Skill]:
        """The skills an agent with these permission rules may use: all but the denied ones."""
        return [skill for skill in self.skills if skill_allowed(rules, skill.name)]


def skill_allowed(rules: Sequence[PermissionRule], name: str) -> bool:
    return evaluate(rules, SKILL_TOOL, name).effect is not Effect.DENY


def skill_roots(project_root: Path, environ: Mapping[str, str] = os.environ) -> list[tuple[Path, str]]:
    """Where skills are looked for, first wins, each with its source (``project`` or ``user``)."""
    roots = (
        [] if environ.get(paths.DISABLE_PROJECT_ENV) else [(project_root / d, "project") for d in PROJECT_SKILL_DIRS]
    )
    return [*roots, (paths.user_skills_dir(), "user")]


def discover_skills(project_root: Path, environ: Mapping[str, str] = os.environ) -> SkillCatalog:
    """Every skill under the roots (blocking: call it off the event loop)."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    shadowed: list[Skill] = []
    for root, source in skill_roots(project_root, environ):
        for folder in _folders(root):
            try:
                skill = read_skill(folder, source)
            except BadSkill as error:
                problems.append(f"{folder / SKILL_FILE}: {error}")
                continue
            if skill.name in found:
                shadowed.append(skill)
            else:
                found[skill.name] = skill
    ordered = tuple(sorted(found.values(), key=lambda skill: skill.name))
    return SkillCatalog(ordered, tuple(problems), tuple(shadowed))


def _folders(root: Path) -> list[Path]:
    try:
        entries = sorted(root.iterdir())
    except OSError:  # no such folder (the usual case), or not one
        return []
    return [entry for entry in entries if not entry.name.startswith(".") and (entry / SKILL_FILE).is_file()]


class BadSkill(ValueError):
    pass


def read_skill(folder: Path, source: str) -> Skill:
    """The skill in ``folder``, or ``BadSkill`` saying which key is wrong and how."""
    path = (folder / SKILL_FILE).resolve()
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise BadSkill(f"larger than {MAX_FILE_BYTES // 1024} KB")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise BadSkill(f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise BadSkill(f"could not be read ({error.strerror or type(error).__name__})") from None
    try:
        meta, body = read_front_matter(text)
    except FrontMatterError as error:
        raise BadSkill(str(error)) from None
    if not meta:
        raise BadSkill("no front matter: start the file with a --- block holding name and description")
    name = _text(meta, "name", MAX_NAME)
    if not NAME.fullmatch(name):
        raise BadSkill(f"name: {name!r} must be lowercase letters, digits and single hyphens between them")
    if name != folder.name:
        raise BadSkill(f"name: {name!r} differs from its folder's name {folder.name!r}")
    description = " ".join(_text(meta, "description", MAX_DESCRIPTION).split())
    return Skill(name=name, description=description, folder=path.parent, source=source, body=body.strip())


def _text(meta: dict[str, Any], key: str, limit: int) -> str:
    value = meta.get(key)
    if value is None:
        raise BadSkill(f"{key}: missing")
    if not isinstance(value, str) or not value.strip():
        raise BadSkill(f"{key}: must be a non-empty string")
    value = value.strip()
    if len(value) > limit:
        raise BadSkill(f"{key}: {len(value)} characters, at most {limit}")
    return value


def guidance_value(skills: Sequence[Skill]) -> list[dict[str, str]]:
    """The instruction source's value: what the model is told of each skill."""
    return [{"name": s.name, "description": s.description, "path": str(s.path)} for s in skills]


def skills_text(value: list[dict[str, str]]) -> str:
    lines = [f"- {item['name']}: {item['description']} ({item['path']})" for item in value]
    return "\n".join(
        [
            "Skills are folders of instructions and files for particular kinds of task. When the task at hand "
            f"matches a skill's description, call the `{SKILL_TOOL}` tool with its name to load it before you "
            "start, and follow it; the files it lists can be opened with `read`.",
            "",
            "<available_skills>",
            *lines,
            "</available_skills>",
        ]
    )


@dataclass(frozen=True)
class SkillRow:
    """One skill as ``/skills`` and ``agent-tui skills`` list it."""

    name: str
    description: str
    where: str
    """``project .agents/skills`` or ``user /home/…/skills``: its source and the folder it sits in."""
    denied: bool
    """A ``skill`` deny rule of the agent hides it from the model."""


def skill_listing(location: Path, rules: Sequence[PermissionRule]) -> tuple[list[SkillRow], list[str]]:
    """The skills at ``location`` for an agent with these rules, and the bad ``SKILL.md`` lines (blocking)."""
    project_root = paths.project_root(location)
    catalog = discover_skills(project_root)
    rows = []
    for skill in catalog.skills:
        parent = skill.folder.parent
        shown = parent.relative_to(project_root.resolve()) if parent.is_relative_to(project_root.resolve()) else parent
        rows.append(
            SkillRow(skill.name, skill.description, f"{skill.source} {shown}", not skill_allowed(rules, skill.name))
        )
    return rows, list(catalog.problems)
