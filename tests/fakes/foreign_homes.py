"""The other agents' HOMEs, faked: the real session files of tests/data/foreign where each agent keeps them.

``agent-tui import --from`` and the picker's "import from…" find a directory's
sessions by where the agent keeps them and what the file says its directory
was; these place a fixture for a given ``cwd`` (the rest as the agent wrote it),
so the command, core and TUI tests share one picture of each agent's layout.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

DATA = Path(__file__).parents[1] / "data" / "foreign"
CLAUDE = next((DATA / "claude_code").glob("*.jsonl"))
CLAUDE_SUBAGENT = DATA / "claude_code_subagent"  # a session file and its subagent's transcript beside it
CODEX = next((DATA / "codex").glob("rollout-*.jsonl"))
GEMINI = next((DATA / "gemini").glob("session-*.jsonl"))
OPENCODE_DATABASE = DATA / "opencode" / "opencode.db"
OPENCODE_EXPORT = next((DATA / "opencode").glob("ses_*.json"))  # what `opencode export` wrote of its session
OPENCODE_SESSION_ID = OPENCODE_EXPORT.stem


def claude_folder(home: Path, cwd: Path) -> Path:
    """Where under HOME Claude Code keeps the sessions of ``cwd`` (its path, every other character a ``-``)."""
    return home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def claude_home(home: Path, cwd: Path) -> Path:
    """HOME with the fixture as Claude Code keeps a session of ``cwd``."""
    folder = claude_folder(home, cwd)
    folder.mkdir(parents=True)
    return Path(shutil.copy(CLAUDE, folder))


def codex_rollout(codex_home: Path, cwd: Path) -> Path:
    """The fixture as Codex keeps it under its home (``~/.codex`` or ``$CODEX_HOME``), its session_meta naming ``cwd``."""
    folder = codex_home / "sessions" / "2026" / "12" / "06"
    folder.mkdir(parents=True)
    return _first_line_changed(CODEX, folder, lambda meta: meta["payload"].update(cwd=str(cwd)))


def codex_home(home: Path, cwd: Path) -> Path:
    """HOME with the fixture as Codex keeps a session of ``cwd``."""
    return codex_rollout(home / ".codex", cwd)


def gemini_session(home: Path, folder: str, cwd: Path) -> Path:
    """The fixture as Gemini CLI keeps a session of ``cwd`` in its project folder ``folder`` (any name: the first
    line's projectHash, the sha256 of ``cwd``, tells the directory)."""
    chats = home / ".gemini" / "tmp" / folder / "chats"
    chats.mkdir(parents=True)
    digest = hashlib.sha256(str(cwd).encode()).hexdigest()
    return _first_line_changed(GEMINI, chats, lambda meta: meta.update(projectHash=digest))


def gemini_home(home: Path, cwd: Path) -> Path:
    """HOME with the fixture as Gemini CLI keeps a session of ``cwd``: in the project folder named after it, with
    the ``.project_root`` marker."""
    target = gemini_session(home, cwd.name, cwd)
    (target.parents[1] / ".project_root").write_text(str(cwd))
    return target


def opencode_home(home: Path, cwd: Path | None, name: str = "opencode.db") -> Path:
    """HOME with the fixture database where opencode keeps it, its session's directory ``cwd``."""
    folder = home / ".local" / "share" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    target = Path(shutil.copy(OPENCODE_DATABASE, folder / name))
    if cwd is not None:
        with closing(sqlite3.connect(target)) as conn, conn:
            conn.execute("UPDATE session SET directory = ?", (str(cwd),))
    return target


def _first_line_changed(source: Path, folder: Path, change: Callable[[dict[str, Any]], object]) -> Path:
    """``source`` copied into ``folder``, its first line (the session's metadata) changed by ``change``."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])
    change(meta)
    target = folder / source.name
    target.write_text(json.dumps(meta) + "\n" + "".join(lines[1:]), encoding="utf-8")
    return target
