"""Open the ``Store`` facade on PostgreSQL: migrate, then the writer thread, the readers, the watcher.

The facade and everything above it are the same on both engines (``store.py``); this module only
assembles PostgreSQL's parts: :class:`PgWriter` (``store_writer.py``), :class:`PgReaders`
(``store_readers.py``) and :class:`PgHeadWatcher` (``head_watcher.py``). psycopg is imported by
these modules only inside functions, and this module only when a URL selects PostgreSQL
(``store/open.py``), so the SQLite default never loads it.
"""

from __future__ import annotations

import asyncio

from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store.bus import Bus
from agent_tui.core.store.pg.connect import connect, connect_sync, redact
from agent_tui.core.store.pg.head_watcher import PgHeadWatcher
from agent_tui.core.store.pg.schema import migrate
from agent_tui.core.store.pg.store_readers import PgReaders
from agent_tui.core.store.pg.store_writer import PgWriter, rebuild
from agent_tui.core.store.store import Store
from agent_tui.vocab.clock import Clock, SystemClock


async def open_pg_store(
    url: str, settings: StorageSettings | None = None, *, bus: Bus | None = None, clock: Clock | None = None
) -> Store:
    """The facade on the database at ``url``; :class:`DatabaseUnavailable` (one line) if it cannot be reached.

    A database of an older schema is migrated (and, from the log-only first step, projected).
    """
    where = redact(url)
    control = await connect(url)
    try:
        found = await migrate(control, where)
    finally:
        await control.close()
    conn = await asyncio.to_thread(connect_sync, url)
    writer = PgWriter(conn, clock or SystemClock(), where)
    store = Store(
        where,
        settings or StorageSettings(),
        writer,
        PgReaders(url, where),
        bus or Bus(),
        lambda b: PgHeadWatcher(url, b),
        rebuild=rebuild,
    )
    if found == 1:
        await store.rebuild()
    store.start()
    return store
