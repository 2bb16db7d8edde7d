"""Nested instructions: an AGENTS.md below the working directory, found once the agent works there.

Ambient discovery reads AGENTS.md from the project root down to the working directory. A
package deeper down (``services/api/AGENTS.md``) matters only once the agent reads or edits
something in it, so that is when it is told: the directories a successful ``read`` or
``apply_patch`` touched are taken from the session's own tool calls, and the AGENTS.md files
between each of them and the working directory join the next step's instructions as an update
(source ``core/nested``; reference 001: "nearby nested instructions discovered after successful
reads … admitted at the next safe step boundary").

The discoveries are derived from the log, not stored beside it: a rewind that takes the read
back takes the discovery back too, and a resumed session finds the same ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_tui.core.log.records import ToolCallRecord

_PATCH_PATH = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE)


def touched_paths(calls: Iterable[ToolCallRecord]) -> list[str]:
    """The paths successful ``read`` and ``apply_patch`` calls named, as written, in call order."""
    out: list[str] = []
    for call in calls:
        if call.state != "success":
            continue
        match call.name:
            case "read" if isinstance(call.input.get("path"), str):
                out.append(call.input["path"])
            case "apply_patch" if isinstance(call.input.get("patch"), str):
                out.extend(_PATCH_PATH.findall(call.input["patch"]))
    return out


def nested_files(touched: Iterable[str], location: Path, project_root: Path, names: tuple[str, ...]) -> list[Path]:
    """The instruction files (the first of ``names`` present in a directory) in the directories
    strictly below ``location`` on the way to each touched path; inside the project only, sorted."""
    location, project_root = location.resolve(), project_root.resolve()
    directories: set[Path] = set()
    for written in touched:
        target = (location / written).resolve()
        folder = target if target.is_dir() else target.parent
        if not folder.is_relative_to(location) or not folder.is_relative_to(project_root):
            continue
        while folder != location:
            directories.add(folder)
            folder = folder.parent
    found = []
    for folder in sorted(directories):
        path = next((folder / name for name in names if (folder / name).exists()), None)
        if path is not None:
            found.append(path)
    return found


def nested_text(files: list[dict[str, Any]]) -> str:
    return "\n\n".join(
        f"Instructions from {item['path']} (for work under {Path(item['path']).parent}):\n\n{item['text'].strip()}"
        for item in files
    )
