"""Execution ownership across hosts: one lease row per session, on the database's clock.

A lease names its owner, an expiry and a fencing token. ``acquire`` takes a free, released or
expired lease and bumps the token (a takeover); ``renew`` extends it only while the token is still
the row's; ``release`` frees it (the token stops being accepted at once). Every time is the
database's ``clock_timestamp()``, so hosts with skewed clocks agree on who holds what.

Expiry decides only *when another host may take over*; what keeps a paused owner from writing is
the token, which ``event_fenced`` (schema.py) checks on every insert. An owner whose lease ran out
but that nobody took over still holds the current token, and may renew and go on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from agent_tui.core.errors import LeaseHeld, StaleFence

if TYPE_CHECKING:
    from psycopg import AsyncConnection

_EXPIRES_MS = "(extract(epoch FROM expires_at) * 1000)::bigint"


class Lease(BaseModel):
    """A held lease: the token every write of this tenure carries."""

    model_config = ConfigDict(frozen=True)
    session_id: str
    owner: str
    token: int
    expires_ms: int


async def acquire(conn: AsyncConnection[tuple[Any, ...]], session_id: str, owner: str, ttl_ms: int) -> Lease:
    """Take the session's lease, or raise :class:`LeaseHeld` naming the live holder.

    One statement: an ``INSERT … ON CONFLICT DO UPDATE … WHERE`` re-checks the condition on the
    locked, latest row, so of two hosts racing for an expired lease exactly one wins.
    """
    row = await (
        await conn.execute(
            "INSERT INTO session_lease AS l (session_id, owner, token, expires_at)"
            " VALUES (%(sid)s, %(owner)s, 1, clock_timestamp() + %(ttl)s * interval '1 millisecond')"
            " ON CONFLICT (session_id) DO UPDATE"
            " SET owner = EXCLUDED.owner, token = l.token + 1, expires_at = EXCLUDED.expires_at"
            " WHERE l.owner IS NULL OR l.expires_at <= clock_timestamp()"
            f" RETURNING token, {_EXPIRES_MS}",
            {"sid": session_id, "owner": owner, "ttl": ttl_ms},
        )
    ).fetchone()
    if row is not None:
        return Lease(session_id=session_id, owner=owner, token=row[0], expires_ms=row[1])
    holder = await current(conn, session_id)
    if holder is None:  # released between our statement and this read: try once more
        return await acquire(conn, session_id, owner, ttl_ms)
    raise LeaseHeld(session_id, holder.owner, holder.expires_ms)


async def renew(conn: AsyncConnection[tuple[Any, ...]], lease: Lease, ttl_ms: int) -> Lease:
    """Extend a lease this owner still holds; :class:`StaleFence` once another host took over."""
    row = await (
        await conn.execute(
            "UPDATE session_lease SET expires_at = clock_timestamp() + %s * interval '1 millisecond'"
            f" WHERE session_id = %s AND token = %s AND owner IS NOT NULL RETURNING {_EXPIRES_MS}",
            (ttl_ms, lease.session_id, lease.token),
        )
    ).fetchone()
    if row is None:
        raise StaleFence(lease.session_id, lease.token)
    return lease.model_copy(update={"expires_ms": row[0]})


async def release(conn: AsyncConnection[tuple[Any, ...]], lease: Lease) -> bool:
    """Give the lease up (the next ``acquire`` succeeds at once); False if it was no longer ours."""
    cursor = await conn.execute(
        "UPDATE session_lease SET owner = NULL, expires_at = clock_timestamp()"
        " WHERE session_id = %s AND token = %s AND owner IS NOT NULL",
        (lease.session_id, lease.token),
    )
    return cursor.rowcount == 1


async def current(conn: AsyncConnection[tuple[Any, ...]], session_id: str) -> Lease | None:
    """The live (held, unexpired) lease of a session, or None."""
    row = await (
        await conn.execute(
            f"SELECT owner, token, {_EXPIRES_MS} FROM session_lease"
            " WHERE session_id = %s AND owner IS NOT NULL AND expires_at > clock_timestamp()",
            (session_id,),
        )
    ).fetchone()
    return None if row is None else Lease(session_id=session_id, owner=row[0], token=row[1], expires_ms=row[2])


async def live(conn: AsyncConnection[tuple[Any, ...]]) -> list[Lease]:
    """Every held, unexpired lease: which sessions run on which host, by the database's clock."""
    return await _held(conn, "expires_at > clock_timestamp() ORDER BY session_id")


async def abandoned(conn: AsyncConnection[tuple[Any, ...]]) -> list[Lease]:
    """Leases that ran out without a release: their owner died or stalled mid-drain, so the session
    may have work (pending input, a tool left running) for whichever host takes it over."""
    return await _held(conn, "expires_at <= clock_timestamp() ORDER BY expires_at")


async def _held(conn: AsyncConnection[tuple[Any, ...]], where: str) -> list[Lease]:
    cursor = await conn.execute(
        f"SELECT session_id, owner, token, {_EXPIRES_MS} FROM session_lease WHERE owner IS NOT NULL AND {where}"
    )
    return [Lease(session_id=row[0], owner=row[1], token=row[2], expires_ms=row[3]) for row in await cursor.fetchall()]
