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
from pathlib import Path

from agent_tui.core.transfer.foreign.draft import UnreadableSession


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


def by_id(agent: str, session_id: str, home: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """The session file of the agent's session ``session_id`` in any directory."""
    for path in sessions(agent, None, home, environ):
        if path.stem == session_id or path.stem.endswith("-" + session_id):
            return path
    raise UnreadableSession(f"no {agent} session {session_id} under {home}")
