"""Full-text search of sessions on PostgreSQL: the ``tsvector`` twin of SQLite's FTS5 query.

SQLite's ``session_list.fts_query`` asks that every word of the user's text match, as a prefix.
Here each run of letters and digits becomes a ``word:*`` prefix term and the terms are ANDed, over
``search_doc.tsv`` (the ``simple`` configuration, GIN-indexed). The terms are built from letters and
digits only, so no user text can reach ``to_tsquery``'s operators.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from psycopg import AsyncConnection

_WORD = re.compile(r"[^\W_]+")

MATCHING_SESSIONS = (
    "SELECT s.id FROM session s WHERE s.id IN"
    " (SELECT d.session_id FROM search_doc d WHERE d.tsv @@ to_tsquery('simple', %s))"
    " ORDER BY s.updated DESC, s.id DESC LIMIT %s"
)


def tsquery(text: str) -> str | None:
    """User text -> a ``to_tsquery`` string: every word must match, as a prefix; None if no word."""
    words = _WORD.findall(text.lower())
    return " & ".join(f"{word}:*" for word in words) or None


async def matching_sessions(conn: AsyncConnection[tuple[Any, ...]], text: str, limit: int = 50) -> list[str]:
    """Ids of the sessions whose title or message text matches ``text``, most recently updated first."""
    query = tsquery(text)
    if query is None:
        return []
    rows = await (await conn.execute(MATCHING_SESSIONS, (query, limit))).fetchall()
    return [row[0] for row in rows]
