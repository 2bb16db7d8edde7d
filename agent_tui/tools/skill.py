"""The ``skill`` tool: load one skill's instructions and list the files bundled with it.

Core discovers the skills (``core.request.skills``) and puts them on the call's
scope, so this layer never imports core. Loading a skill is the permission action
``skill`` with the skill's name as the resource: allowed unless a rule says
otherwise, and a deny refuses it. The bundled files are listed as absolute paths
for the model to ``read``; a skill from the user's config dir lies outside the
project, so reading one of its files asks as any outside path does.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.tools.descriptions import tool_description
from agent_tui.tools.errors import ToolError
from agent_tui.tools.scope import ToolScope
from agent_tui.tools.tool import Tool, ToolResult
from agent_tui.vocab.kinds import ErrorType
from agent_tui.vocab.skill import SKILL_FILE, SKILL_TOOL
from agent_tui.vocab.tool_output import ToolOutput

DESCRIPTION = tool_description("agent_tui.tools", "skill.md")
MAX_FILES = 200


class SkillInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The skill's name, as listed in the available skills.")


def bundled_files(folder: Path, limit: int = MAX_FILES) -> tuple[list[Path], int]:
    """The files beside ``SKILL.md``, sorted (hidden ones left out): the first ``limit``, and how many in all."""
    found: list[Path] = []
    for directory, subdirs, files in os.walk(folder):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        here = Path(directory)
        found.extend(here / name for name in files if not name.startswith(".") and here / name != folder / SKILL_FILE)
    found.sort()
    return found[:limit], len(found)


def skill_text(name: str, folder: Path, body: str, files: list[Path], total: int) -> str:
    parts = [f'<skill name="{name}" folder="{folder}">', body, "</skill>"]
    if files:
        parts += ["", "Files bundled with this skill (open them with `read` when the instructions call for them):"]
        parts += [str(path) for path in files]
        if total > len(files):
            parts.append(f"... and {total - len(files)} more under {folder}")
    return "\n".join(parts)


async def run_skill(scope: ToolScope, params: SkillInput) -> ToolResult:
    skill = scope.skills.get(params.name.strip())
    if skill is None:
        known = ", ".join(sorted(scope.skills)) or "none"
        raise ToolError(f"There is no skill named {params.name!r}. Skills: {known}.", ErrorType.TOOL_INPUT)
    await scope.ask(SKILL_TOOL, [skill.name])
    files, total = await asyncio.to_thread(bundled_files, skill.folder)
    text = skill_text(skill.name, skill.folder, skill.body, files, total)
    data = {"skill": skill.name, "folder": str(skill.folder), "files": [str(path) for path in files]}
    return ToolResult(ToolOutput(text=text, data=data))


SKILL = Tool(name=SKILL_TOOL, description=DESCRIPTION, input_model=SkillInput, run=run_skill, action=SKILL_TOOL)
