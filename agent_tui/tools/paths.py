"""Resolving model-supplied paths inside the session location.

Each way out has its own refusal so the model can correct itself: absolute
paths, ``..`` escapes, symlinks whose target leaves the location, dangling
symlinks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.errors import ToolError


@dataclass(frozen=True)
class Resolved:
    path: Path
    """Canonical (symlink-free) absolute path."""
    rel: str
    """Location-relative POSIX path as the model should name it (``.`` for the location)."""


def is_inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


SESSION_LOCATION = "the session location"


def lexical_rel(raw: str, where: str = SESSION_LOCATION) -> str:
    """Refuse absolute and escaping paths; return the normalised relative path."""
    if not raw.strip():
        raise ToolError(f"The path is empty; give a path relative to {where}.")
    if "\x00" in raw:
        raise ToolError(f"The path {raw!r} contains a NUL character.")
    if os.path.isabs(raw) or raw.startswith("~"):
        raise ToolError(f"Absolute paths are not allowed: {raw!r}. Use a path relative to {where}.")
    norm = os.path.normpath(raw)
    if norm == ".." or norm.startswith("../"):
        raise ToolError(f"The path {raw!r} escapes {where} through '..'.")
    return Path(norm).as_posix()


def resolve_inside(location: Path, raw: str, *, must_exist: bool = True, where: str = SESSION_LOCATION) -> Resolved:
    """Resolve ``raw`` against ``location`` (named ``where`` in refusals); raise ``ToolError`` if it leads outside."""
    rel = lexical_rel(raw, where)
    root = location.resolve()
    candidate = root / rel
    real = Path(os.path.realpath(candidate))
    if not is_inside(real, root):
        raise ToolError(f"The path {raw!r} goes through a symlink to {real}, which is outside {where}.")
    if must_exist and not os.path.lexists(candidate):
        raise ToolError(f"File not found: {raw!r} (relative to {where}).")
    if must_exist and not real.exists():
        target = os.readlink(candidate) if candidate.is_symlink() else str(real)
        raise ToolError(f"The path {raw!r} is a dangling symlink to {target!r}, which does not exist.")
    return Resolved(path=real, rel=real.relative_to(root).as_posix() if real != root else ".")
