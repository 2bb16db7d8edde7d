"""The picker's first page, read-only, before the facade has opened the store.

``--resume`` shows rows within the first frames: this reads them with stdlib
``sqlite3`` in ``mode=ro`` (never creates or migrates the file) and returns
plain :class:`SessionRow` objects, so neither pydantic nor the event models are
imported on that path. Blocking: call it in a thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.core.log.session_row import SessionRow


def peek_sessions(location: str | None, limit: int) -> list[SessionRow]:
    """Sessions at ``location`` (None: everywhere), newest first, at most ``limit``; not subagents'
    sessions (the picker lists them under their parent once the facade is open).

    Its imports run here, in the caller's thread: the TUI imports this module on
    the way to its first frame, where ``sqlite3`` would cost ~3-6 ms.
    """
    import contextlib
    import sqlite3

    from agent_tui.core.log.session_row import SessionRow
    from agent_tui.core.settings import paths
    from agent_tui.core.store.session_list import session_rows

    uri = f"{paths.database_path().as_uri()}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
        return [SessionRow.of(row) for row in session_rows(conn, location, None, limit, 0, top_level=True)]
