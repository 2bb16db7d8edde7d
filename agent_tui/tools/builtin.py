"""The built-in tools: read, bash, apply_patch, todo, skill."""

from __future__ import annotations

from pathlib import Path

from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.bash import BASH
from agent_tui.tools.read import READ
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.skill import SKILL
from agent_tui.tools.todo import TODO


def default_registry(location: Path) -> ToolRegistry:
    """A registry holding the built-in tools: read, bash, apply_patch, todo, skill (offered only while
    there are skills: see ``core.host.tool_host``)."""
    registry = ToolRegistry(location)
    for tool in (READ, BASH, APPLY_PATCH, TODO, SKILL):
        registry.register(tool)
    return registry
