"""A skill (the Agent Skills format): a folder with ``SKILL.md``, found by core, loaded by the ``skill`` tool.

Core discovers the skills and hands them to the tool through its scope; the
shape lives here so the tools layer never imports core.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SKILL_TOOL = "skill"
"""The tool's name, and the permission action that gates a skill (the skill's name is the resource)."""
SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    folder: Path
    """The skill's folder (absolute): ``SKILL.md`` and its bundled files."""
    source: str
    """Where it was found: ``project`` or ``user``."""
    body: str
    """``SKILL.md`` after its front matter: what the ``skill`` tool gives the model."""

    @property
    def path(self) -> Path:
        return self.folder / SKILL_FILE
