"""Where the other agents keep their sessions, and which of them belong to a directory.

Claude Code: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, then
``projects/<the cwd with every character but letters and digits made '-'>/<session id>.jsonl``.
Codex: ``$CODEX_HOME`` or ``~/.codex``, then ``sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl``;
a rollout's directory is the ``cwd`` of its first line (``session_meta``), so
finding a directory's rollouts reads each file's first line.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.transfer.foreign.draft import UnreadableSession
from agent_tui.core.transfer.foreign.formats import FIRST_PROMPT, LABELS


def claude_root(home: Path, environ: Mapping[str, str]) -> Path:
    return Path(environ["CLAUDE_CONFIG_DIR"]) if environ.get("CLAUDE_CONFIG_DIR") else home / ".claude"


def codex_root(home: Path, environ: Mapping[str, str]) -> Path:
    return Path(environ["CODEX_HOME"]) if environ.get("CODEX_HOME") else home / ".codex"


def claude_slug(cwd: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def _codex_cwd(path: Path) -> str | None:
    try:
        with path.open(encoding="utf-8") as f:
            first = json.loads(f.readline() or "{}")
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    cwd = (first.get("payload") or {}).get("cwd") if isinstance(first, dict) else None
    return cwd if isinstance(cwd, str) else None


def sessions(agent: str, cwd: Path | None, home: Path, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The agent's session files for ``cwd`` (every directory's when None), oldest first."""
    match agent:
        case "claude":
            projects = claude_root(home, environ) / "projects"
            found = (projects / claude_slug(cwd)).glob("*.jsonl") if cwd is not None else projects.glob("*/*.jsonl")
        case "codex":
            rollouts = (codex_root(home, environ) / "sessions").rglob("rollout-*.jsonl")
            found = (p for p in rollouts if cwd is None or _codex_cwd(p) == str(cwd))
        case _:
            raise UnreadableSession(f"cannot import from {agent!r}: this build reads claude, codex")
    return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))


@dataclass(frozen=True)
class ForeignFile:
    """One of another agent's session files, as a list shows it before importing."""

    agent: str
    label: str
    path: Path
    title: str
    modified_ms: int
    size: int


PEEK_LINES = 400  # a title is looked for this far into a file; the rest is not read to list it


def describe(agent: str, path: Path) -> ForeignFile:
    """The file's first prompt (its title), time and size, read from its first lines only."""
    title = ""
    try:
        with path.open(encoding="utf-8") as lines:
            for _, line in zip(range(PEEK_LINES), lines, strict=False):
                try:
                    record = json.loads(line)
                except ValueError:
                    break
                found = FIRST_PROMPT[agent](record) if isinstance(record, dict) else None
                if found:
                    title = " ".join(found.split())[:120]
                    break
        stat = path.stat()
    except (OSError, UnicodeDecodeError):
        return ForeignFile(agent, LABELS[agent], path, "(unreadable)", 0, 0)
    return ForeignFile(agent, LABELS[agent], path, title or "(no prompt)", int(stat.st_mtime * 1000), stat.st_size)


def by_id(agent: str, session_id: str, home: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """The session file of the agent's session ``session_id`` in any directory."""
    for path in sessions(agent, None, home, environ):
        if path.stem == session_id or path.stem.endswith("-" + session_id):
            return path
    raise UnreadableSession(f"no {agent} session {session_id} under {home}")
