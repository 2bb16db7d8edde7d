"""``NAME:path``: a path inside a configured reference folder (``[references.NAME]``).

A reference names a folder outside the working directory the user wants the
agent to consult — a sibling repository, a docs checkout. ``read`` and ``@``
mentions open ``NAME:path`` inside it with the same refusals as a relative path
(no ``..`` or symlink escapes); the agent never edits one, so ``apply_patch``
refuses it by name rather than creating a file called ``NAME:path``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from agent_tui.tools.errors import ToolError
from agent_tui.tools.paths import Resolved, resolve_inside

REFERENCE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
"""A reference's name: what may stand before the ``:`` of ``NAME:path``."""

_PREFIXED = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):(.*)", re.DOTALL)


def split_reference(raw: str, references: Mapping[str, Path]) -> tuple[str, str] | None:
    """``(name, rest)`` when ``raw`` starts with a configured reference's ``NAME:``; else None."""
    match = _PREFIXED.fullmatch(raw)
    if match is None or match.group(1) not in references:
        return None
    return match.group(1), match.group(2) or "."


def resolve_reference(references: Mapping[str, Path], raw: str) -> Resolved | None:
    """Blocking: ``NAME:path`` inside its reference folder, shown as ``NAME:relative``; None when
    ``raw`` names no reference. Raises ``ToolError`` for a path that leaves the folder or is missing."""
    split = split_reference(raw, references)
    if split is None:
        return None
    name, rest = split
    root = references[name]
    if not root.is_dir():
        raise ToolError(f"The reference folder {name} ({root}) does not exist or is not a folder.")
    inside = resolve_inside(root, rest, where=f"the reference folder {name}")
    return Resolved(path=inside.path, rel=name if inside.rel == "." else f"{name}:{inside.rel}")


def refuse_reference_edit(raw: str, references: Mapping[str, Path]) -> None:
    """An edit may not name a reference: they are for reading."""
    split = split_reference(raw, references)
    if split is not None:
        raise ToolError(
            f"{raw!r} is in the reference folder {split[0]} ({references[split[0]]}), which the agent only reads. "
            "Edit files in the working directory."
        )
