"""Where the other agents keep their sessions, and which of them belong to a directory.

Claude Code: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, then
``projects/<the cwd with every character but letters and digits made '-'>/<session id>.jsonl``.
Codex: ``$CODEX_HOME`` or ``~/.codex``, then ``sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl``;
a rollout's directory is the ``cwd`` of its first line (``session_meta``), so
finding a directory's rollouts reads each file's first line.
Gemini CLI: ``$GEMINI_CLI_HOME`` or HOME, then ``.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl``
(``<project>`` a short name from its ``projects.json``, or the sha256 of the directory in older
versions); a session's directory is the ``projectHash`` (that sha256) of its first line, so it is
found the same way, whatever the folder is called.
opencode: no file a session; its database (``opencode_db``) names each by a path
under its own, ``…/opencode.db/<session id>``, which :func:`load` reads out.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.transfer.foreign import opencode_db
from agent_tui.core.transfer.foreign.draft import UnreadableSession
from agent_tui.core.transfer.foreign.formats import FIRST_PROMPT, LABELS, READERS


def claude_root(home: Path, environ: Mapping[str, str]) -> Path:
    return Path(environ["CLAUDE_CONFIG_DIR"]) if environ.get("CLAUDE_CONFIG_DIR") else home / ".claude"


def codex_root(home: Path, environ: Mapping[str, str]) -> Path:
    return Path(environ["CODEX_HOME"]) if environ.get("CODEX_HOME") else home / ".codex"


def gemini_root(home: Path, environ: Mapping[str, str]) -> Path:
    return (Path(environ["GEMINI_CLI_HOME"]) if environ.get("GEMINI_CLI_HOME") else home) / ".gemini"


def claude_slug(cwd: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def _first_line(path: Path) -> dict[str, object]:
    """A session file's first line as a record ({} when it is none)."""
    try:
        with path.open(encoding="utf-8") as f:
            first = json.loads(f.readline() or "{}")
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return first if isinstance(first, dict) else {}


def _codex_cwd(path: Path) -> str | None:
    payload = _first_line(path).get("payload")
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) else None


def _gemini_of(path: Path, cwd: Path) -> bool:
    """Whether a Gemini CLI session ran in ``cwd``: its first line's ``projectHash`` is the directory's
    sha256 (an older one-object file: its folder is named by that hash)."""
    digest = hashlib.sha256(str(cwd).encode()).hexdigest()
    recorded = _first_line(path).get("projectHash")
    return recorded == digest if isinstance(recorded, str) else path.parent.parent.name == digest


def sessions(agent: str, cwd: Path | None, home: Path, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The agent's session files for ``cwd`` (every directory's when None), oldest first."""
    match agent:
        case "claude":
            projects = claude_root(home, environ) / "projects"
            found = (projects / claude_slug(cwd)).glob("*.jsonl") if cwd is not None else projects.glob("*/*.jsonl")
        case "codex":
            rollouts = (codex_root(home, environ) / "sessions").rglob("rollout-*.jsonl")
            found = (p for p in rollouts if cwd is None or _codex_cwd(p) == str(cwd))
        case "gemini":
            chats = (gemini_root(home, environ) / "tmp").glob("*/chats/session-*.json*")
            found = (p for p in chats if p.suffix in (".json", ".jsonl") and (cwd is None or _gemini_of(p, cwd)))
        case "opencode":  # each database's sessions, least recently updated first
            return [p for db in opencode_db.databases(home, environ) for p in opencode_db.sessions(db, cwd)]
        case _:
            raise UnreadableSession(f"cannot import from {agent!r}: this build reads {', '.join(sorted(READERS))}")
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
    if agent == "opencode":
        return _describe_opencode(path)
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


def _describe_opencode(path: Path) -> ForeignFile:
    """A session in opencode's database by its row; an export file (one JSON document) read whole."""
    label, kept = LABELS["opencode"], opencode_db.session_of(path)
    try:
        if kept is not None:
            title, modified_ms, size = opencode_db.describe(*kept)
        else:
            doc = json.loads(path.read_text(encoding="utf-8"))
            title = (FIRST_PROMPT["opencode"](doc) if isinstance(doc, dict) else None) or ""
            stat = path.stat()
            modified_ms, size = int(stat.st_mtime * 1000), stat.st_size
    except (OSError, UnicodeDecodeError, ValueError, UnreadableSession):
        return ForeignFile("opencode", label, path, "(unreadable)", 0, 0)
    return ForeignFile("opencode", label, path, " ".join(title.split())[:120] or "(no prompt)", modified_ms, size)


def load(agent: str, path: Path) -> str:
    """The text a reader reads: the file's, or for a session in opencode's database, its export."""
    kept = opencode_db.session_of(path) if agent == "opencode" else None
    return opencode_db.export(*kept) if kept is not None else path.read_text(encoding="utf-8")


def by_id(agent: str, session_id: str, home: Path, environ: Mapping[str, str] = os.environ) -> Path:
    """The session file of the agent's session ``session_id`` in any directory."""
    for path in sessions(agent, None, home, environ):
        if path.stem == session_id or path.stem.endswith("-" + session_id):
            return path
        if agent == "gemini" and path.stem.endswith("-" + session_id[:8]):  # its name has the id's first 8
            if _first_line(path).get("sessionId") == session_id:
                return path
    raise UnreadableSession(f"no {agent} session {session_id} under {home}")
