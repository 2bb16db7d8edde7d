"""The TUI and its bootstrap reach core through its one door: ``core.api`` and the event types."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "agent_tui"
DOOR = {"agent_tui.core.api", "agent_tui.core.events"}
MOVING = {"agent_tui.core.event_values", "agent_tui.core.clock"}  # to the agent_tui.vocab package, on another branch


def core_imports(path: Path) -> set[str]:
    """Every ``agent_tui.core`` module ``path`` imports (``from agent_tui.core import x`` names ``...core.x``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "agent_tui.core":
            names.update(f"agent_tui.core.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return {name for name in names if name == "agent_tui.core" or name.startswith("agent_tui.core.")}


def test_the_tui_imports_only_core_api_and_the_event_types() -> None:
    files = [*(PACKAGE / "tui").rglob("*.py"), PACKAGE / "commands" / "tui_cmd.py"]
    offenders = {str(f.relative_to(PACKAGE)): sorted(core_imports(f) - DOOR - MOVING) for f in files}
    assert {f: names for f, names in offenders.items() if names} == {}
