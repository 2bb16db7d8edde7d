"""SQLite connections: PRAGMAs, opening checks, and sqlite3 errors translated to the store's own.

Every failure a person can meet when opening or writing the database — a
corrupt file, a file from a newer agent-tui, a lock held too long by another
process, a session that does not exist — is a :class:`~agent_tui.core.errors.StoreError` subclass
whose message is one line naming the thing. Nothing here ever truncates,
re-creates or overwrites an existing file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_tui.core.errors import DatabaseCorrupt, DatabaseLocked, DatabaseUnavailable, StoreError
from agent_tui.core.settings.config_sections import StorageSettings, Synchronous


def translate(error: sqlite3.Error, path: Path | str, settings: StorageSettings) -> StoreError:
    """Map a sqlite3 error to the specific store error a person should see."""
    text = str(error)
    lowered = text.lower()
    if isinstance(error, sqlite3.OperationalError) and ("locked" in lowered or "busy" in lowered):
        return DatabaseLocked(path, settings.busy_timeout_ms)
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return DatabaseCorrupt(path, text)
    if isinstance(error, sqlite3.OperationalError) and "unable to open" in lowered:
        return DatabaseUnavailable(path, text)
    return StoreError(f"database {path}: {text}")


def connect(path: Path, settings: StorageSettings, *, reader: bool = False) -> sqlite3.Connection:
    """A connection with the store's PRAGMAs; transactions are managed by hand.

    ``check_same_thread=False`` because a connection is created on one thread
    and closed on another; each connection is still used by one thread at a time.
    """
    try:
        return connect_raw(path, settings, reader=reader)
    except sqlite3.Error as error:
        raise translate(error, path, settings) from None


def connect_raw(path: Path, settings: StorageSettings, *, reader: bool = False) -> sqlite3.Connection:
    """``connect`` that lets sqlite3 errors through, for callers that retry on them."""
    conn = sqlite3.connect(
        path,
        timeout=settings.busy_timeout_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(settings.busy_timeout_ms)}")
        conn.execute("PRAGMA foreign_keys = ON")
        sync = "FULL" if settings.synchronous == Synchronous.FULL else "NORMAL"
        conn.execute(f"PRAGMA synchronous = {sync}")
        if reader:
            conn.execute("PRAGMA query_only = ON")
    except BaseException:
        conn.close()
        raise
    return conn
