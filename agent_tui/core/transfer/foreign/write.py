"""An imported foreign session as one store transaction, once per source session unless asked again.

The source's session id is kept on ``session.created`` (``imported_from``);
the transaction that would write a second session for the same source finds
the first one there and writes nothing (``--again`` writes another). Events
keep the source's times, so the picker dates the session when it happened.
The job runs on the store's writer (``Sessions.import_foreign`` hands it over);
this room sits below the store, so it names the transaction by what it uses.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.transfer.foreign.draft import Imported

_FIND = (
    "SELECT session_id FROM event WHERE type = ? AND json_extract(data_json, '$.imported_from.agent') = ?"
    " AND json_extract(data_json, '$.imported_from.id') = ? ORDER BY rowid LIMIT 1"
)


class Transaction(Protocol):
    """What of the store's ``Tx`` the job uses."""

    conn: sqlite3.Connection

    def append(self, session_id: str, event: ev.DurableEvent, first_seq: int = 1, at_ms: int | None = None) -> Any: ...


@dataclass(frozen=True)
class ImportOutcome:
    """What importing one foreign session did: the session (new, or the one made before) and what it held."""

    session_id: str
    created: bool
    imported: Imported


def job(
    imported: Imported, location: Path, project_root: Path, *, again: bool
) -> tuple[str, Callable[[Transaction], str | None]]:
    """The new session's id and the write job; the job returns the id of an earlier import of the same
    source instead of writing (unless ``again``)."""
    session_id = ids.session_id()
    origin = ev.ImportedFrom(agent=imported.agent, id=imported.source_id, path=imported.path, version=imported.version)
    created = ev.SessionCreated(
        location=str(location),
        project_root=str(project_root),
        title=imported.title,
        imported_from=origin,  # no model: the source's names its steps; a resumed turn uses this config's
    )
    first_at = next((at for _, at in imported.events if at is not None), None)

    def run(tx: Transaction) -> str | None:
        if not again:
            row = tx.conn.execute(_FIND, (ev.SessionCreated.TYPE, imported.agent, imported.source_id)).fetchone()
            if row is not None:
                return str(row[0])
        tx.append(session_id, created, at_ms=first_at)
        for event, at in imported.events:
            tx.append(session_id, event, at_ms=at)
        return None

    return session_id, run
