"""Opening psycopg connections: the optional import, the redacted address, one-line errors.

psycopg is the ``postgres`` extra; it is imported here, inside functions, so the embedded SQLite
default never loads it and a missing extra is one clear sentence (``DatabaseUnreachable``, a ``DatabaseUnavailable``).
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import DatabaseUnreachable

if TYPE_CHECKING:
    from psycopg import AsyncConnection, Connection

_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


def redact(url: str) -> str:
    """The URL for messages: any password replaced by ``***``."""
    return _PASSWORD.sub(r"\1***@", url)


def _driver(url: str) -> ModuleType:
    try:
        import psycopg
    except ImportError:
        raise DatabaseUnreachable(
            redact(url), "the PostgreSQL driver is not installed (pip install 'agent-tui[postgres]')"
        ) from None
    return psycopg


def first_line(error: Exception) -> str:
    """The driver's message in one line (the server's own detail and hints follow on others)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _refused(url: str, error: Exception) -> DatabaseUnreachable:
    return DatabaseUnreachable(redact(url), first_line(error))


async def connect(url: str, purpose: str | None = None) -> AsyncConnection[tuple[Any, ...]]:
    """An autocommit connection (transactions are explicit ``conn.transaction()`` blocks); ``purpose``
    names it in ``pg_stat_activity`` (its ``application_name``)."""
    psycopg = _driver(url)
    named = {} if purpose is None else {"application_name": purpose}
    try:
        conn: AsyncConnection[tuple[Any, ...]] = await psycopg.AsyncConnection.connect(url, autocommit=True, **named)
    except psycopg.Error as error:
        raise _refused(url, error) from None
    return conn


def connect_sync(url: str) -> Connection[tuple[Any, ...]]:
    """A blocking autocommit connection: the one the projectors write through, on a worker thread.

    The projectors are plain functions (the same ones SQLite's writer thread runs), so the
    transaction that appends and projects runs on a thread with psycopg's sync API.
    """
    psycopg = _driver(url)
    try:
        conn: Connection[tuple[Any, ...]] = psycopg.Connection.connect(url, autocommit=True)
    except psycopg.Error as error:
        raise _refused(url, error) from None
    return conn
