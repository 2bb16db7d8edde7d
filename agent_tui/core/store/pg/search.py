"""Full-text search of sessions on PostgreSQL: the ``tsvector`` twin of SQLite's FTS5 query.

SQLite's ``session_list.fts_query`` asks that every word of the user's text match, as a prefix.
Here each run of letters and digits becomes a ``word:*`` prefix term and the terms are ANDed, over
``search_doc.tsv`` (the ``simple`` configuration, GIN-indexed). The terms are built from letters and
digits only, so no user text can reach ``to_tsquery``'s operators.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_tui.core.store.session_list import MATCHING_IDS, tsquery

if TYPE_CHECKING:
    from psycopg import AsyncConnection

MATCHING_SESSIONS = (
    f"SELECT s.id FROM session s WHERE s.id IN ({MATCHING_IDS.replace('?', '%s')})"
    " ORDER BY s.updated DESC, s.id DESC LIMIT %s"
)


async def matching_sessions(conn: AsyncConnection[tuple[Any, ...]], text: str, limit: int = 50) -> list[str]:
    """Ids of the sessions whose title or message text matches ``text``, most recently updated first."""
    query = tsquery(text)
    if query is None:
        return []
    rows = await (await conn.execute(MATCHING_SESSIONS, (query, limit))).fetchall()
    return [row[0] for row in rows]
