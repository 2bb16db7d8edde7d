"""opencode's SQLite database (opencode 1.x): which sessions it keeps for a directory, and one read out.

Where: ``$OPENCODE_DB`` (a path, or a file name in the data directory), else
``opencode.db`` (``opencode-<channel>.db`` for a beta or dev build) in
``$XDG_DATA_HOME/opencode`` or ``~/.local/share/opencode``. Table ``session``
holds a row a session (its directory, title, writing version, times);
``message`` and ``part`` hold each message's and part's JSON in ``data``, their
ids and owners in columns. A session has no file of its own, so it is named by
a path under its database's: ``…/opencode.db/<session id>``. :func:`export`
reads that session out (read-only, as opencode may be writing) as the JSON
``opencode export`` writes, which is what the reader reads. Subagent sessions
(with a parent) are a ``task`` call's inner work and are not listed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

from agent_tui.core.transfer.foreign.draft import UnreadableSession

NEEDED = {
    "session": {"id", "directory", "title", "version", "parent_id", "time_created", "time_updated"},
    "message": {"id", "session_id", "time_created", "data"},
    "part": {"id", "message_id", "session_id", "data"},
}


def data_dir(home: Path, environ: Mapping[str, str]) -> Path:
    base = Path(environ["XDG_DATA_HOME"]) if environ.get("XDG_DATA_HOME") else home / ".local" / "share"
    return base / "opencode"


def databases(home: Path, environ: Mapping[str, str]) -> list[Path]:
    """Every opencode database there is: ``$OPENCODE_DB``'s, or each channel's in the data directory."""
    named = environ.get("OPENCODE_DB")
    if named and named != ":memory:":
        path = Path(named) if Path(named).is_absolute() else data_dir(home, environ) / named
        return [path] if path.is_file() else []
    return sorted(p for p in data_dir(home, environ).glob("opencode*.db") if p.is_file())


def session_of(path: Path) -> tuple[Path, str] | None:
    """The database and session id a ``…/opencode.db/<session id>`` path names; None for a real file."""
    return (path.parent, path.name) if path.parent.suffix == ".db" and path.parent.is_file() else None


def _open(database: Path) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
        tables = {
            table: {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}  # noqa: S608 (our names)
            for table in NEEDED
        }
    except sqlite3.Error as error:
        raise UnreadableSession(f"{database}: cannot read opencode's database: {error}") from None
    if any(not columns <= tables[table] for table, columns in NEEDED.items()):
        conn.close()
        raise UnreadableSession(
            f"{database}: not an opencode database this build reads (opencode 1.x keeps sessions in tables"
            " session, message and part)"
        )
    return conn


def sessions(database: Path, cwd: Path | None) -> list[Path]:
    """The database's sessions of ``cwd`` (every directory's when None), least recently updated first."""
    where, given = ("AND directory = ?", (str(cwd),)) if cwd is not None else ("", ())
    with closing(_open(database)) as conn:
        try:
            rows = conn.execute(
                f"SELECT id FROM session WHERE parent_id IS NULL {where} ORDER BY time_updated, id",  # noqa: S608
                given,
            ).fetchall()
        except sqlite3.Error as error:
            raise UnreadableSession(f"{database}: cannot read opencode's database: {error}") from None
    return [database / str(row[0]) for row in rows]


def describe(database: Path, session_id: str) -> tuple[str, int, int]:
    """The session's title, when it was last updated (ms) and how much it holds (bytes of JSON)."""
    with closing(_open(database)) as conn:
        try:
            row = conn.execute(
                "SELECT title, time_updated,"
                " (SELECT coalesce(sum(length(data)), 0) FROM message WHERE session_id = s.id)"
                " + (SELECT coalesce(sum(length(data)), 0) FROM part WHERE session_id = s.id)"
                " FROM session AS s WHERE id = ?",
                (session_id,),
            ).fetchone()
        except sqlite3.Error as error:
            raise UnreadableSession(f"{database}: cannot read opencode's database: {error}") from None
    if row is None:
        raise UnreadableSession(f"no opencode session {session_id} in {database}")
    return str(row[0] or ""), int(row[1] or 0), int(row[2] or 0)


def export(database: Path, session_id: str) -> str:
    """The session as ``opencode export`` writes it: ``{"info", "messages": [{"info", "parts"}]}``."""
    with closing(_open(database)) as conn:
        try:
            row = conn.execute(
                "SELECT id, slug, project_id, parent_id, directory, title, version, revert, time_created,"
                " time_updated FROM session WHERE id = ?",
                (session_id,),
            ).fetchone()
            messages = conn.execute(
                "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
            ).fetchall()
            parts = conn.execute(
                "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id", (session_id,)
            ).fetchall()
        except sqlite3.Error as error:
            raise UnreadableSession(f"{database}: cannot read opencode's database: {error}") from None
    if row is None:
        raise UnreadableSession(f"no opencode session {session_id} in {database}")
    sid, slug, project, parent, directory, title, version, revert, created, updated = row
    info: dict[str, Any] = {"id": sid, "slug": slug, "projectID": project, "directory": directory}
    info |= {"parentID": parent} if parent else {}
    info |= {"title": title, "version": version, "time": {"created": created, "updated": updated}}
    if revert:
        info["revert"] = _json(revert, database, f"session {sid}'s revert")
    held: dict[str, list[dict[str, Any]]] = {}
    for part_id, message_id, data in parts:
        part = _json(data, database, f"part {part_id}")
        held.setdefault(message_id, []).append({**part, "id": part_id, "sessionID": sid, "messageID": message_id})
    out: list[dict[str, Any]] = []
    for mid, data in messages:
        message = {**_json(data, database, f"message {mid}"), "id": mid, "sessionID": sid}
        out.append({"info": message, "parts": held.get(mid, [])})
    return json.dumps({"info": info, "messages": out}, ensure_ascii=False)


def _json(data: Any, database: Path, what: str) -> dict[str, Any]:
    try:
        found = json.loads(data)
    except (TypeError, ValueError):
        found = None
    if not isinstance(found, dict):
        raise UnreadableSession(f"{database}: {what} is not a JSON object; nothing was imported")
    return found
