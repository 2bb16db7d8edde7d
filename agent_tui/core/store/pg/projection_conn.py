"""The projectors' connection on PostgreSQL: a psycopg connection that speaks ``?``.

The projectors write one SQL for both engines (``core/projections/sql.py``); this adapter turns
each ``?`` into psycopg's ``%s`` (and a literal ``%`` into ``%%``), once per statement text, and
names the :data:`~agent_tui.core.projections.sql.POSTGRES` dialect for the few statements that
differ. PostgreSQL's ``text`` cannot hold NUL, which SQLite's can: a NUL in a text parameter
becomes U+FFFD in the projections (the event's ``data_json`` escapes it and keeps it exactly).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from agent_tui.core.projections.sql import POSTGRES, Dialect

if TYPE_CHECKING:
    from psycopg import Connection, Cursor


@lru_cache(maxsize=512)
def to_psycopg(sql: str) -> bytes:
    """``?`` → ``%s``: the projectors' statements hold no ``?`` inside a literal."""
    return sql.replace("%", "%%").replace("?", "%s").encode()


def _params(parameters: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(p.replace("\x00", "\ufffd") if isinstance(p, str) and "\x00" in p else p for p in parameters)


class PgProjectionConn:
    """A :class:`~agent_tui.core.projections.sql.Conn` over a sync psycopg connection in a transaction."""

    dialect: Dialect = POSTGRES

    def __init__(self, conn: Connection[tuple[Any, ...]]) -> None:
        self._conn = conn

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor[tuple[Any, ...]]:
        return self._conn.execute(to_psycopg(sql), _params(parameters))

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> None:
        rows = [_params(row) for row in parameters]
        if rows:
            with self._conn.cursor() as cursor:
                cursor.executemany(to_psycopg(sql), rows)
