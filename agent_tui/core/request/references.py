"""Reference guidance (reference 001's fourth instruction producer, ``core/references``).

The model learns which reference folders it may read as ``NAME:path`` and what
is in each (``[references.NAME] path, description``). The value is the list as
configured, so adding, changing or removing a reference is an update, and a
folder that is missing says so rather than silently vanishing from the list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.settings.config import Settings


def observe_references(settings: Settings | None, project_root: Path) -> list[dict[str, Any]]:
    """Blocking (a ``stat`` per folder): each configured reference, in name order."""
    if settings is None or not settings.references:
        return []
    roots = settings.reference_roots(project_root)
    return [
        {
            "name": name,
            "path": str(roots[name]),
            "description": settings.references[name].description,
            "found": roots[name].is_dir(),
        }
        for name in sorted(settings.references)
    ]


def references_text(references: list[dict[str, Any]]) -> str:
    lines = [
        "Reference folders: other places the user wants you to consult. Read them with the read tool as "
        "NAME:path (for example `NAME:README.md`, or `NAME:` for the folder's listing); the user can attach "
        "from them with @NAME:path. They are read-only: never edit them.",
    ]
    for item in references:
        about = f" — {item['description'].strip()}" if item.get("description") else ""
        missing = " (not found: the folder does not exist)" if not item.get("found", True) else ""
        lines.append(f"- {item['name']}: {item['path']}{about}{missing}")
    return "\n".join(lines)
