"""``agent-tui db copy SRC DST``: sessions between SQLite and PostgreSQL, both ways.

The event log is the truth, so the copy moves events and nothing else: each session's rows in seq
order, in batches, each batch one destination transaction (``LogEndpoint.write``). A session's
destination head says where it stopped, so a copy that was interrupted resumes after its last
committed batch and a second run copies nothing. What is already there must be the source's own
beginning, row for row; a different session under the same id, or one that went on at the
destination, is refused, never overwritten. After each session, its count and checksum over
``(seq, type, data_json)`` (``log_rows.Digest``) are compared on both sides.

Sessions are copied oldest first, a fork after its parent: a fork's projections start as a copy
of its parent's as it stood when the fork was taken (``projections/fork.py``), so the parent is
copied up to that point (``LogEndpoint.fork_points``, from the source's commit order), then the
fork, then the rest of the parent.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from agent_tui.core.errors import (
    CopyConflict,
    CopyMismatch,
    CorruptEvent,
    DatabaseUnavailable,
    EventRejected,
    LeaseHeld,
    StaleFence,
    StoreError,
    UnknownSession,
)
from agent_tui.core.settings import paths
from agent_tui.core.settings.config_sections import StorageSettings
from agent_tui.core.store.log_rows import Digest, FirstRow, LogEndpoint, LogRow, digest

DEFAULT_BATCH = 500
State = Literal["copied", "resumed", "present", "would copy", "conflict", "mismatch"]
_REFUSALS = (CopyConflict, LeaseHeld, StaleFence, EventRejected, CorruptEvent)


class SessionCopy(BaseModel):
    """What the copy did with one session."""

    session_id: str
    state: State
    events: int
    """The source's events (up to its head when the copy of the session began)."""
    copied: int = 0
    """Events this run wrote (or, in a dry run, would write)."""
    checksum: str | None = None
    """The verified SHA-256 over ``(seq, type, data_json)``, equal on both sides."""
    problem: str | None = None


class CopyReport(BaseModel):
    source: str
    destination: str
    dry_run: bool
    sessions: list[SessionCopy]
    parents_added: list[str]
    """Sessions copied although not asked for: the parents of forks that were."""

    def count(self, *states: State) -> int:
        return sum(1 for s in self.sessions if s.state in states)

    @property
    def events_copied(self) -> int:
        return sum(s.copied for s in self.sessions)

    @property
    def verified(self) -> int:
        return sum(1 for s in self.sessions if s.checksum is not None)

    @property
    def problems(self) -> list[SessionCopy]:
        return [s for s in self.sessions if s.problem is not None]


Location = str | Path
"""A ``postgresql://`` URL or a SQLite file."""


def parse_location(spec: str | None) -> Location:
    """``default`` (or nothing) is the configured store's file; a URL must be PostgreSQL's."""
    if spec is None or spec.strip() in ("", "default"):
        return paths.database_path()
    if spec.startswith(("postgresql://", "postgres://")):
        return spec
    if "://" in spec:
        raise DatabaseUnavailable(spec, "not a SQLite file or a postgresql:// URL")
    return Path(spec).expanduser()


async def copy_log(
    source: str | None,
    destination: str | None,
    *,
    session_ids: Sequence[str] = (),
    batch: int = DEFAULT_BATCH,
    dry_run: bool = False,
    storage: StorageSettings | None = None,
) -> CopyReport:
    """Copy the sessions (all, or ``session_ids`` and their fork parents) from ``source`` to ``destination``.

    Raises a :class:`StoreError` for what stops the whole copy (an unreachable or bad location, a
    missing driver, an unknown session); a session that is refused or does not verify is reported
    in its :class:`SessionCopy` and the others go on.
    """
    if batch < 1:
        raise ValueError(f"the batch size must be at least 1, not {batch}")
    src_at, dst_at = parse_location(source), parse_location(destination)
    if _same(src_at, dst_at):
        raise StoreError(f"source and destination are the same database ({src_at})")
    src = await _open(src_at, storage, create=False, may_be_missing=False)
    try:
        dst = await _open(dst_at, storage, create=not dry_run, may_be_missing=dry_run)
        try:
            firsts = await src.first_rows()
            order, added = _copy_order(firsts, session_ids, src.location)
            run = _Copy(src, dst, batch, dry_run, _forks_by_parent(firsts, await src.fork_points(), order))
            done = [await run.session(sid) for sid in order]
            return CopyReport(
                source=src.location,
                destination=dst.location,
                dry_run=dry_run,
                sessions=done,
                parents_added=added,
            )
        finally:
            await dst.close()
    finally:
        await src.close()


def _same(a: Location, b: Location) -> bool:
    if isinstance(a, Path) and isinstance(b, Path):
        return a.resolve() == b.resolve()
    return a == b


async def _open(at: Location, storage: StorageSettings | None, *, create: bool, may_be_missing: bool) -> LogEndpoint:
    if isinstance(at, str):
        from agent_tui.core.store.pg.log_copy import PgLog

        return await PgLog.open(at, create=create)
    if may_be_missing and not at.exists():
        return _NoLog(str(at))
    from agent_tui.core.store.sqlite_log import SqliteLog

    return await SqliteLog.open(at, storage, create=create)


def _copy_order(firsts: list[FirstRow], wanted: Sequence[str], where: str) -> tuple[list[str], list[str]]:
    """Oldest first, each fork after its parent; with ``wanted``, those plus their parents here."""
    by_id = {first.session_id: first for first in firsts}
    for session_id in wanted:
        if session_id not in by_id:
            raise UnknownSession(f"{session_id} (not in {where})")
    chosen = set(wanted) or set(by_id)
    ordered: list[str] = []

    def visit(session_id: str) -> None:
        if session_id in ordered:
            return
        parent = by_id[session_id].parent_id
        if parent is not None and parent in by_id and parent != session_id:
            chosen.add(parent)
            visit(parent)
        ordered.append(session_id)

    for session_id in sorted(chosen, key=lambda sid: (by_id[sid].row.created_ms, sid)):
        visit(session_id)
    added = [sid for sid in ordered if wanted and sid not in wanted]
    return ordered, added


def _forks_by_parent(
    firsts: list[FirstRow], points: dict[str, int], order: list[str]
) -> dict[str, list[tuple[int, str]]]:
    """For each parent being copied, ``(its seq when the fork was taken, fork)`` of its forks being copied."""
    parents = {first.session_id: first.parent_id for first in firsts}
    copied = set(order)
    forks: dict[str, list[tuple[int, str]]] = {}
    for fork, point in points.items():
        parent = parents.get(fork)
        if fork in copied and parent in copied and parent is not None:
            forks.setdefault(parent, []).append((point, fork))
    return {parent: sorted(points_) for parent, points_ in forks.items()}


class _Copy:
    """One run's sessions, in the source's commit order where a fork needs it.

    A fork's projections start as a copy of its parent's as they stood when it was taken
    (``projections/fork.py``), so the parent is written up to that seq, then the fork (and, within
    it, its own forks the same way), then the rest of the parent. A parent already further on at
    the destination (an earlier copy) cannot be taken back: its forks follow it.
    """

    def __init__(
        self, src: LogEndpoint, dst: LogEndpoint, batch: int, dry_run: bool, forks: dict[str, list[tuple[int, str]]]
    ) -> None:
        self._src, self._dst, self._batch, self._dry_run = src, dst, batch, dry_run
        self._forks = forks
        self._done: dict[str, SessionCopy] = {}

    async def session(self, session_id: str) -> SessionCopy:
        if session_id not in self._done:
            self._done[session_id] = await self._copy_session(session_id)
        return self._done[session_id]

    async def _copy_session(self, session_id: str) -> SessionCopy:
        src, dst, batch = self._src, self._dst, self._batch
        src_head = await src.head(session_id)
        try:
            present = await _check_present(src, dst, session_id, src_head, batch)
            if self._dry_run:
                events = (await digest(src, session_id, src_head, batch)).count
                state: State = "would copy" if present < events else "present"
                return SessionCopy(session_id=session_id, state=state, events=events, copied=events - present)
            copied = await self._append_missing(session_id, src_head)
            verified = await _verify(src, dst, session_id, src_head, batch)
        except _REFUSALS as error:
            return await _refused(src, session_id, src_head, batch, "conflict", error)
        except CopyMismatch as error:
            return await _refused(src, session_id, src_head, batch, "mismatch", error)
        finally:
            await dst.done(session_id)
        state = "present" if not copied else "resumed" if present else "copied"
        return SessionCopy(
            session_id=session_id, state=state, events=verified.count, copied=copied, checksum=verified.checksum
        )

    async def _append_missing(self, session_id: str, src_head: int) -> int:
        """Copy the rows after the destination's head up to ``src_head``, one transaction per batch,
        pausing at each fork point to copy the fork."""
        after = await self._dst.head(session_id)
        forks = [(point, fork) for point, fork in self._forks.get(session_id, []) if point >= after]
        copied = 0
        while True:
            while forks and forks[0][0] <= after:  # the parent stands where the fork was taken
                await self.session(forks.pop(0)[1])
            if after >= src_head:
                return copied
            upto = min(src_head, forks[0][0]) if forks else src_head
            rows = [row for row in await self._src.rows(session_id, after, self._batch) if row.seq <= upto]
            if not rows:
                return copied
            await self._dst.write(session_id, after, rows)
            copied += len(rows)
            after = rows[-1].seq


async def _refused(
    src: LogEndpoint, session_id: str, src_head: int, page: int, state: State, error: StoreError
) -> SessionCopy:
    events = (await digest(src, session_id, src_head, page)).count
    return SessionCopy(session_id=session_id, state=state, events=events, problem=str(error))


async def _check_present(src: LogEndpoint, dst: LogEndpoint, session_id: str, src_head: int, page: int) -> int:
    """How many of the session's events the destination has; they must be the source's first ones."""
    dst_head = await dst.head(session_id)
    if dst_head > src_head:
        raise CopyConflict(
            session_id,
            f"{dst.location} has it up to seq {dst_head}, the source only up to {src_head}: it went on there",
        )
    count, after = 0, 0
    while theirs := await dst.rows(session_id, after, page):
        ours = await src.rows(session_id, after, len(theirs))
        for mine, their in zip_longest(ours, theirs):
            if not _same_row(mine, their):
                if count == 0:
                    raise CopyConflict(session_id, f"{dst.location} holds a different session under this id")
                raise CopyConflict(session_id, f"its event #{their.seq} in {dst.location} differs from the source's")
            count += 1
        after = theirs[-1].seq
    return count


def _same_row(mine: LogRow | None, their: LogRow | None) -> bool:
    if mine is None or their is None:
        return False
    return (mine.seq, mine.type, mine.data_json) == (their.seq, their.type, their.data_json)


async def _verify(src: LogEndpoint, dst: LogEndpoint, session_id: str, src_head: int, page: int) -> Digest:
    """Both sides' count and checksum of the session; :class:`CopyMismatch` unless equal."""
    ours = await digest(src, session_id, src_head, page)
    theirs = await digest(dst, session_id, None, page)
    if ours != theirs:
        raise CopyMismatch(
            session_id,
            f"{dst.location} has {theirs.count} events with checksum {theirs.checksum[:16]},"
            f" the source {ours.count} with {ours.checksum[:16]}",
        )
    return ours


class _NoLog:
    """A SQLite destination that does not exist yet, as a dry run sees it: empty, never created."""

    def __init__(self, location: str) -> None:
        self.location = location

    async def first_rows(self) -> list[FirstRow]:
        return []

    async def head(self, session_id: str) -> int:
        return 0

    async def fork_points(self) -> dict[str, int]:
        return {}

    async def rows(self, session_id: str, after: int, limit: int) -> list[LogRow]:
        return []

    async def write(self, session_id: str, after: int, rows: Sequence[LogRow]) -> None:
        raise AssertionError("a dry run writes nothing")

    async def done(self, session_id: str) -> None:
        return None

    async def close(self) -> None:
        return None
