"""The built-in tools: read, bash, apply_patch."""

from __future__ import annotations

from pathlib import Path

from agent_tui.tools.apply_patch.tool import APPLY_PATCH
from agent_tui.tools.bash import BASH
from agent_tui.tools.read import READ
from agent_tui.tools.registry import ToolRegistry


def default_registry(location: Path) -> ToolRegistry:
    """A registry holding the built-in tools: read, bash, apply_patch."""
    registry = ToolRegistry(location)
    for tool in (READ, BASH, APPLY_PATCH):
        registry.register(tool)
    return registry
