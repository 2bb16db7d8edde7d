"""The ``Store`` facade's reads on PostgreSQL: the same queries (``queries.py``), on psycopg.

The queries are written once, with ``?`` parameters, and take a reader connection; SQLite's is an
aiosqlite connection as it is, this module's is :class:`PgReadConn` (a ``ServerReadConn``), which
turns ``?`` into ``%s``, builds each row's record, and opens a ``REPEATABLE READ`` snapshot where
SQLite's ``consistent_read`` says ``BEGIN``. The few statements that must differ ask the dialect.

Each connection's ``TimeZone`` is this process's local zone, so ``agent-tui usage`` groups days as
the user's days on both engines.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.projections.sql import POSTGRES, Dialect
from agent_tui.core.store.pg.connect import connect
from agent_tui.core.store.pg.projection_conn import to_psycopg
from agent_tui.core.store.pg.store_writer import translate
from agent_tui.core.store.reader import READERS, ConnectionPool, RowFactory

if TYPE_CHECKING:
    from psycopg import AsyncConnection

_ZONEINFO = "/zoneinfo/"


class PgReadConn:
    """A reader connection on PostgreSQL, as the queries use it (``reader.ServerReadConn``)."""

    dialect: Dialect = POSTGRES

    def __init__(self, conn: AsyncConnection[tuple[Any, ...]]) -> None:
        self.conn = conn

    async def fetch(self, sql: str, params: tuple[Any, ...], row: RowFactory[Any] | None) -> list[Any]:
        cursor = await self.conn.execute(to_psycopg(sql), params)
        rows = await cursor.fetchall()
        return rows if row is None else [row(None, values) for values in rows]  # type: ignore[arg-type]

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        """Several statements that see one state of the database."""
        await self.conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            yield
        finally:
            await self.conn.execute("COMMIT")


class PgReaders(ConnectionPool[PgReadConn]):
    """Up to ``size`` reader connections to one database."""

    def __init__(self, url: str, where: str, size: int = READERS) -> None:
        super().__init__(where, size)
        self._url = url

    async def _open_connection(self) -> PgReadConn:
        conn = await connect(self._url)
        try:
            zone = local_zone()
            if zone.startswith("INTERVAL"):
                await conn.execute(f"SET TIME ZONE {zone}".encode())
            else:
                await conn.execute("SELECT set_config('TimeZone', %s, false)", (zone,))
        except BaseException:
            await conn.close()
            raise
        return PgReadConn(conn)

    async def _close_connection(self, conn: PgReadConn) -> None:
        await conn.conn.close()

    def _translate(self, error: BaseException) -> Exception | None:
        import psycopg

        return translate(error, self._where) if isinstance(error, psycopg.Error) else None


def local_zone() -> str:
    """This process's time zone for PostgreSQL: ``TZ``, else the zone ``/etc/localtime`` links to,
    else today's UTC offset (``INTERVAL '+hh:mm' HOUR TO MINUTE``, east positive)."""
    if zone := os.environ.get("TZ", "").lstrip(":"):
        return zone
    with contextlib.suppress(OSError):
        target = str(Path("/etc/localtime").resolve())
        if _ZONEINFO in target:
            return target.split(_ZONEINFO, 1)[1]
    offset = time.localtime().tm_gmtoff // 60
    sign = "-" if offset < 0 else "+"
    return f"INTERVAL '{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}' HOUR TO MINUTE"
