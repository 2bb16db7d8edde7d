"""The connection projectors write through, and the little SQL that differs between the engines.

The projectors are written once, in SQL that SQLite and PostgreSQL both accept: ``?`` parameters,
upserts as ``INSERT … ON CONFLICT (key) DO UPDATE``, no engine's functions. A ``sqlite3.Connection``
is a :class:`Conn` as it is (the default engine pays no wrapper); the PostgreSQL engine passes an
adapter (``store/pg/projection_conn.py``) that turns ``?`` into psycopg's ``%s``.

What cannot be portable is a :class:`Dialect`, found from the connection by :func:`dialect_of`:
the full-text index (FTS5's ``search`` beside ``search_doc`` on SQLite; one ``search_doc`` table
with a generated ``tsvector`` column on PostgreSQL), reading one field of a JSON column, and the
column types the shared tables are declared with (``store/shared_schema.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol, cast


class Rows(Protocol):
    """What a statement returns: ``sqlite3.Cursor`` and ``psycopg.Cursor`` both are."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Conn(Protocol):
    """A connection inside the append's transaction; SQL with ``?`` parameters."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Rows: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> object: ...


class Dialect:
    """SQLite's: the ``search`` FTS5 table keyed by ``search_doc.id``, ``json_extract``."""

    name = "sqlite"
    log_order = "rowid"
    """The ``event`` column that orders the whole log as it was written."""
    int64_type = "INTEGER"
    """The column type of a seq, a time in ms, a count: SQLite's ``INTEGER`` is 64 bits already."""
    float64_type = "REAL"
    """The column type of a cost."""

    def json_field(self, column: str, key: str) -> str:
        """An SQL expression: the field ``key`` (``a.b`` for a nested one) of a JSON text column, as text;
        NULL if absent or JSON null."""
        return f"json_extract({column}, '$.{key}')"

    def set_search_text(self, conn: Conn, session_id: str, message_id: str, text: str) -> None:
        """Make ``text`` the searchable text of a message ('' = the session title); '' text removes it."""
        row = conn.execute(
            "SELECT id FROM search_doc WHERE session_id = ? AND message_id = ?", (session_id, message_id)
        ).fetchone()
        if row is not None:
            conn.execute("DELETE FROM search WHERE rowid = ?", (row[0],))
            if not text:
                conn.execute("DELETE FROM search_doc WHERE id = ?", (row[0],))
                return
            doc = row[0]
        elif not text:
            return
        else:
            inserted = conn.execute(
                "INSERT INTO search_doc (session_id, message_id) VALUES (?, ?)", (session_id, message_id)
            )
            doc = cast(sqlite3.Cursor, inserted).lastrowid
        conn.execute("INSERT INTO search (rowid, text) VALUES (?, ?)", (doc, text))

    def message_texts(self, conn: Conn, session_id: str) -> list[tuple[str, str]]:
        """``(message_id, text)`` of every message of the session that has search text."""
        rows: list[tuple[str, str]] = conn.execute(
            "SELECT d.message_id, s.text FROM search_doc d JOIN search s ON s.rowid = d.id"
            " WHERE d.session_id = ? AND d.message_id != ''",
            (session_id,),
        ).fetchall()
        return rows

    def clear_search(self, conn: Conn, session_id: str) -> None:
        conn.execute(
            "DELETE FROM search WHERE rowid IN (SELECT id FROM search_doc WHERE session_id = ?)", (session_id,)
        )
        conn.execute("DELETE FROM search_doc WHERE session_id = ?", (session_id,))


class PostgresDialect(Dialect):
    """PostgreSQL's: ``search_doc`` holds the text, its ``tsv`` column is generated and GIN-indexed."""

    name = "postgresql"
    log_order = "pos"
    int64_type = "BIGINT"
    float64_type = "DOUBLE PRECISION"

    def json_field(self, column: str, key: str) -> str:
        path = key.replace(".", ",")
        return f"({column}::json #>> '{{{path}}}')"  # json, not jsonb: jsonb refuses \u0000 in strings

    def set_search_text(self, conn: Conn, session_id: str, message_id: str, text: str) -> None:
        if not text:
            conn.execute("DELETE FROM search_doc WHERE session_id = ? AND message_id = ?", (session_id, message_id))
            return
        conn.execute(
            "INSERT INTO search_doc (session_id, message_id, text) VALUES (?, ?, ?)"
            " ON CONFLICT (session_id, message_id) DO UPDATE SET text = excluded.text",
            (session_id, message_id, text),
        )

    def message_texts(self, conn: Conn, session_id: str) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = conn.execute(
            "SELECT message_id, text FROM search_doc WHERE session_id = ? AND message_id != ''", (session_id,)
        ).fetchall()
        return rows

    def clear_search(self, conn: Conn, session_id: str) -> None:
        conn.execute("DELETE FROM search_doc WHERE session_id = ?", (session_id,))


SQLITE = Dialect()
POSTGRES = PostgresDialect()


def dialect_of(conn: Conn) -> Dialect:
    """SQLite for a ``sqlite3.Connection``, else the adapter's own ``dialect``."""
    if isinstance(conn, sqlite3.Connection):
        return SQLITE
    dialect = getattr(conn, "dialect", None)
    if not isinstance(dialect, Dialect):
        raise TypeError(f"{type(conn).__name__} is neither a sqlite3 connection nor names its SQL dialect")
    return dialect
