"""The tools layer depends on core only through its two leaf modules."""

from __future__ import annotations

import ast
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "agent_tui" / "tools"
ALLOWED_CORE = {"agent_tui.core.config", "agent_tui.core.events"}


def test_tools_import_only_leaf_core_modules() -> None:
    offenders = []
    for path in TOOLS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names if node.module == "agent_tui.core"]
            for name in names:
                if name.startswith(("agent_tui.core", "agent_tui.tui", "agent_tui.llm", "agent_tui.server", "textual")):
                    if name not in ALLOWED_CORE and name != "agent_tui.core":
                        offenders.append(f"{path.relative_to(TOOLS)}: {name}")
    assert offenders == []
