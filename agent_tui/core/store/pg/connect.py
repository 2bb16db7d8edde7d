"""Opening psycopg connections: the optional import, the redacted address, one-line errors.

psycopg is the ``postgres`` extra; it is imported here, inside functions, so the embedded SQLite
default never loads it and a missing extra is one clear sentence.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import DatabaseUnavailable

if TYPE_CHECKING:
    from psycopg import AsyncConnection

_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


def redact(url: str) -> str:
    """The URL for messages: any password replaced by ``***``."""
    return _PASSWORD.sub(r"\1***@", url)


async def connect(url: str) -> AsyncConnection[tuple[Any, ...]]:
    """An autocommit connection (transactions are explicit ``conn.transaction()`` blocks)."""
    try:
        import psycopg
    except ImportError:
        raise DatabaseUnavailable(
            redact(url), "the PostgreSQL driver is not installed (pip install 'agent-tui[postgres]')"
        ) from None
    try:
        return await psycopg.AsyncConnection.connect(url, autocommit=True)
    except psycopg.Error as error:
        raise DatabaseUnavailable(redact(url), str(error).strip().splitlines()[0]) from None
