"""Usage sums over ``step_usage`` (schema V5): one ``GROUP BY`` each, never a replay of the log.

Times are grouped in the local time zone (a "day" is the user's day). A week is named by its
Monday. ``agent-tui usage`` reads :func:`usage_report`; ``/usage`` reads :func:`session_usage`,
which takes in the subagents' sessions through ``spawned_by`` (a recursive CTE).
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.log.usage_records import SessionUsage, UsageGrouping, UsageRow
from agent_tui.core.projections.sql import SQLITE, Dialect
from agent_tui.core.store.reader import ReadConn as Connection
from agent_tui.core.store.reader import consistent_read, dialect, fetch

_LOCAL = "u.at / 1000, 'unixepoch', 'localtime'"
_PG_LOCAL = "to_timestamp(u.at / 1000.0)"  # in the connection's TimeZone, set to this process's at connect
_TIME_KEYS: dict[str, dict[str, str]] = {
    "sqlite": {
        "day": f"date({_LOCAL})",
        "week": f"date({_LOCAL}, 'weekday 0', '-6 days')",
        "month": f"strftime('%Y-%m', {_LOCAL})",
    },
    "postgresql": {
        "day": f"to_char({_PG_LOCAL}, 'YYYY-MM-DD')",
        "week": f"to_char(date_trunc('week', {_PG_LOCAL}), 'YYYY-MM-DD')",
        "month": f"to_char({_PG_LOCAL}, 'YYYY-MM')",
    },
}
_KEYS: dict[str, str] = {
    "model": "u.model",
    "agent": "u.agent",
    "project": "s.project_root",
    "session": "u.session_id",
    "all": "''",
}
_TIMES = frozenset({"day", "week", "month"})
_SUMS = (
    "COUNT(DISTINCT u.session_id), COUNT(*), SUM(u.input_tokens), SUM(u.output_tokens), SUM(u.reasoning_tokens),"
    " SUM(u.cache_read_tokens), SUM(u.cache_write_tokens), SUM(u.cost),"
    " SUM(CASE WHEN u.cost IS NULL AND u.input_tokens + u.output_tokens > 0 THEN 1 ELSE 0 END)"
)


def _key(by: str, dialect: Dialect) -> str:
    """The grouping's SQL expression; a time is the local day, week (its Monday) or month."""
    return _TIME_KEYS[dialect.name][by] if by in _TIMES else _KEYS[by]


def _row(_cursor: Any, r: tuple[Any, ...]) -> UsageRow:
    return UsageRow(
        key=r[0] or "",
        label=r[1],
        sessions=r[2],
        steps=r[3],
        input_tokens=int(r[4] or 0),  # PostgreSQL's SUM of a BIGINT is a NUMERIC (a Decimal)
        output_tokens=int(r[5] or 0),
        reasoning_tokens=int(r[6] or 0),
        cache_read_tokens=int(r[7] or 0),
        cache_write_tokens=int(r[8] or 0),
        cost=r[9],
        unpriced_steps=int(r[10] or 0),
    )


def report_sql(
    by: UsageGrouping | str, since_ms: int | None, until_ms: int | None, dialect: Dialect = SQLITE
) -> tuple[str, tuple[Any, ...]]:
    """The report's statement: time groups in time order, the others by tokens spent, most first."""
    key = _key(by, dialect)
    label = "max(s.title)" if by == "session" else "NULL"  # one title per session; PostgreSQL wants an aggregate
    where, params = [], []
    if since_ms is not None:
        where.append("u.at >= ?")
        params.append(since_ms)
    if until_ms is not None:
        where.append("u.at < ?")
        params.append(until_ms)
    order = "key" if by in _TIMES else "SUM(u.input_tokens + u.output_tokens) DESC, key"
    join = " JOIN session s ON s.id = u.session_id" if by in ("project", "session") else ""  # else: not paid for
    sql = (
        f"SELECT {key} AS key, {label}, {_SUMS} FROM step_usage u{join}"
        f"{' WHERE ' + ' AND '.join(where) if where else ''} GROUP BY key ORDER BY {order}"
    )
    return sql, tuple(params)


async def usage_report(
    conn: Connection, by: UsageGrouping, since_ms: int | None, until_ms: int | None
) -> list[UsageRow]:
    sql, params = report_sql(by, since_ms, until_ms, dialect(conn))
    return await fetch(conn, sql, params, _row)


_TREE = (  # the session and every session spawned under it, at any depth
    "WITH RECURSIVE tree (id) AS (SELECT id FROM session WHERE id = ?"
    " UNION SELECT s.id FROM session s JOIN tree ON s.spawned_by = tree.id)"
)


_ALONE = "WITH tree (id) AS (SELECT CAST(? AS TEXT))"


def _tree_sql(by: str, subagents: bool = True) -> str:
    order = "SUM(u.input_tokens + u.output_tokens) DESC, key"
    return (
        f"{_TREE if subagents else _ALONE} SELECT {_key(by, SQLITE)} AS key, NULL, {_SUMS} FROM step_usage u"
        f" WHERE u.session_id IN (SELECT id FROM tree) GROUP BY key ORDER BY {order}"
    )


async def session_usage(conn: Connection, session_id: str, subagents: bool = True) -> SessionUsage:
    """The session and (unless not ``subagents``) its subagents' sessions, in one snapshot."""
    tree = _TREE if subagents else _ALONE
    async with consistent_read(conn):
        count = await fetch(conn, f"{tree} SELECT COUNT(*) FROM tree", (session_id,))
        total = await fetch(conn, _tree_sql("all", subagents), (session_id,), _row)
        by_model = await fetch(conn, _tree_sql("model", subagents), (session_id,), _row)
        by_agent = await fetch(conn, _tree_sql("agent", subagents), (session_id,), _row)
    return SessionUsage(
        session_id=session_id,
        sessions=count[0][0],
        total=total[0] if total else UsageRow(key=""),
        by_model=by_model,
        by_agent=by_agent,
    )
