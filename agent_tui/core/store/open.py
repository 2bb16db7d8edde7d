"""Which engine the store opens: PostgreSQL when a URL is configured, else the SQLite file.

``storage.url`` in a config file, or ``AGENT_TUI_DATABASE_URL`` (which wins, as any environment
setting does), names a PostgreSQL database for the whole app: the TUI, ``run``, ``serve`` and the
store commands. Without one, the embedded SQLite file is used, and the PostgreSQL modules are never
imported.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store.bus import Bus
from agent_tui.core.store.store import Store
from agent_tui.vocab.clock import Clock


async def open_store(
    settings: StorageSettings, path: Path, *, bus: Bus | None = None, clock: Clock | None = None
) -> Store:
    """The store ``settings`` select: the database at ``settings.url``, else the SQLite file ``path``."""
    if settings.url:
        from agent_tui.core.store.pg.store_engine import open_pg_store

        return await open_pg_store(settings.url, settings, bus=bus, clock=clock)
    return await Store.open(path, settings, bus=bus, clock=clock)
