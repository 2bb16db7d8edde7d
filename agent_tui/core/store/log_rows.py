"""A session log as raw rows, the same on both engines: what ``db copy`` moves and checks.

A row is copied byte for byte (``data_json`` as stored, never decoded and re-encoded), so a log
that went to PostgreSQL and back is the same text, and its checksum proves it. Each engine offers
a :class:`LogEndpoint` (``sqlite_log.py``, ``pg/log_copy.py``); ``copy.py`` only talks to that.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from agent_tui.core.log.events import SessionForked
from agent_tui.core.projections.sql import Dialect


class LogRow(NamedTuple):
    """One stored event as both engines keep it."""

    seq: int
    type: str
    created_ms: int
    data_json: str


class FirstRow(NamedTuple):
    """A session's first event: its ``session.created``, which names a fork's parent."""

    session_id: str
    row: LogRow

    @property
    def parent_id(self) -> str | None:
        """The session it was forked from: a fork's projections copy its parent's, so it is copied after it."""
        try:
            data = json.loads(self.row.data_json)
        except ValueError:
            return None
        parent = data.get("parent_id") if isinstance(data, dict) else None
        return parent if isinstance(parent, str) else None


class LogEndpoint(Protocol):
    """One end of a copy: a SQLite file or a PostgreSQL database."""

    location: str
    """Where it is, for messages (a PostgreSQL password is redacted)."""

    async def first_rows(self) -> list[FirstRow]:
        """Every session's first event."""
        ...

    async def head(self, session_id: str) -> int:
        """The session's highest seq, 0 if it has no events here."""
        ...

    async def fork_points(self) -> dict[str, int]:
        """Each fork's parent's head when the fork was taken, in this log's commit order (see :func:`fork_points_sql`)."""
        ...

    async def rows(self, session_id: str, after: int, limit: int) -> list[LogRow]:
        """The session's rows with ``seq > after`` in seq order, at most ``limit``."""
        ...

    async def write(self, session_id: str, after: int, rows: Sequence[LogRow]) -> None:
        """Append ``rows`` in one transaction, only if the session's head here is still ``after``."""
        ...

    async def done(self, session_id: str) -> None:
        """The copy of this session is over (PostgreSQL gives its lease back)."""
        ...

    async def close(self) -> None: ...


def fork_points_sql(dialect: Dialect, order: str) -> str:
    """``(fork id, parent's highest seq committed before its session.forked)`` of every fork.

    ``order`` is the engine's global commit order (SQLite's ``rowid``, PostgreSQL's ``event.pos``).
    A fork's projections copy its parent's as they stood then (``projections/fork.py``), so the copy
    writes the parent up to there, then the fork, then the rest of the parent.
    """
    parent = dialect.json_field("f.data_json", "parent_id")
    return (
        f"SELECT f.session_id, (SELECT coalesce(max(p.seq), 0) FROM event p WHERE p.session_id = {parent}"
        f" AND p.{order} < f.{order}) FROM event f WHERE f.type = '{SessionForked.TYPE}'"
    )


class Digest:
    """Count and SHA-256 over ``(seq, type, data_json)`` in seq order: equal digests, equal logs.

    Each row is hashed as one JSON array and a newline, so no two different rows hash alike by
    running into each other. ``created_ms`` is left out: it is copied, but it is not what a
    replay reads.
    """

    def __init__(self) -> None:
        self.count = 0
        self._hash = hashlib.sha256()

    def add(self, rows: Sequence[LogRow]) -> None:
        for row in rows:
            line = json.dumps([row.seq, row.type, row.data_json], ensure_ascii=False) + "\n"
            self._hash.update(line.encode())
        self.count += len(rows)

    @property
    def checksum(self) -> str:
        return self._hash.hexdigest()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Digest) and (self.count, self.checksum) == (other.count, other.checksum)

    def __hash__(self) -> int:
        return hash((self.count, self.checksum))


async def digest(endpoint: LogEndpoint, session_id: str, upto: int | None, page: int) -> Digest:
    """The digest of the session's rows with ``seq <= upto`` (all of them for None), ``page`` rows at a time."""
    result = Digest()
    after = 0
    while rows := await endpoint.rows(session_id, after, page):
        kept = rows if upto is None else [row for row in rows if row.seq <= upto]
        result.add(kept)
        if len(kept) < len(rows):
            break
        after = rows[-1].seq
    return result
