"""Ambient instructions (reference 001's ``InstructionDiscovery``): the environment facts, the
global and upward project AGENTS.md files (a directory's CLAUDE.md where it has none) and the nested
ones below the working directory, read from disk for ``instructions.observe``."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.log.records import SessionRecord
from agent_tui.core.request.nested import nested_files
from agent_tui.core.settings import paths

DISABLE_PROJECT_ENV = paths.DISABLE_PROJECT_ENV


@dataclass(frozen=True)
class Unavailable:
    """A source that could not be observed this time, and why (said to the user, never to the model)."""

    reason: str


def observe_environment(session: SessionRecord) -> dict[str, Any]:
    root = Path(session.project_root)
    return {
        "cwd": session.location,
        "project_root": session.project_root,
        "git": (root / ".git").exists(),
        "platform": platform.system().lower(),
    }


def agents_files(
    location: Path, project_root: Path, environ: dict[str, str] | os._Environ[str] = os.environ
) -> list[Path]:
    """Global AGENTS.md, then every AGENTS.md from the project root down to the location."""
    found = [paths.config_dir() / "AGENTS.md"]
    if not environ.get(DISABLE_PROJECT_ENV):
        location, project_root = location.resolve(), project_root.resolve()
        chain = [location, *location.parents]
        if project_root in chain:
            chain = chain[: chain.index(project_root) + 1]
        else:
            chain = [location]
        found.extend(directory / "AGENTS.md" for directory in reversed(chain))
    return found


def _claude_fallbacks(path: Path) -> list[Path]:
    """Where Claude Code keeps a directory's instructions, read when it has no AGENTS.md."""
    return [path.with_name("CLAUDE.md"), path.parent / ".claude" / "CLAUDE.md"]


def observe_agents(session: SessionRecord, claude_md: bool = True) -> list[dict[str, str]] | Unavailable:
    chosen = []
    for found in agents_files(Path(session.location), Path(session.project_root)):
        candidates = [found, *_claude_fallbacks(found)] if claude_md else [found]
        path = next((candidate for candidate in candidates if candidate.exists()), None)
        if path is not None:
            chosen.append(path)
    return _read_all(chosen)


def observe_nested(session: SessionRecord, touched: list[str], claude_md: bool) -> list[dict[str, str]] | Unavailable:
    names = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md") if claude_md else ("AGENTS.md",)
    if os.environ.get(DISABLE_PROJECT_ENV):
        return []
    return _read_all(nested_files(touched, Path(session.location), Path(session.project_root), names))


def _read_all(files: list[Path]) -> list[dict[str, str]] | Unavailable:
    """Each file's text; one that cannot be read makes the source unavailable (the model keeps its
    last belief), one that went away in between is left out."""
    out = []
    for path in files:
        try:
            out.append({"path": str(path), "text": path.read_text(encoding="utf-8")})
        except FileNotFoundError:
            continue
        except UnicodeDecodeError as error:  # keep the last applied value rather than announcing a removal
            return Unavailable(f"{path} is not UTF-8 text ({error.reason} at byte {error.start})")
        except OSError as error:
            return Unavailable(f"{path} could not be read ({error.strerror or type(error).__name__})")
    return out
