"""The store's contract runs on both engines: ``store`` is the facade on a SQLite file, then on a
real PostgreSQL server (``pg_url``). Tests of one engine's own parts take ``sqlite_store``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_tui.core.store.store import Store


@pytest.fixture(params=["sqlite", "postgresql"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "postgresql":
        from agent_tui.core.store.pg.store_engine import open_pg_store

        opening = open_pg_store(request.getfixturevalue("pg_url"))
    else:
        opening = Store.open(tmp_path / "store.db")
    async with await opening as opened:
        yield opened
