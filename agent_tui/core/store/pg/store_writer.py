"""The ``Store`` facade's write transactions on PostgreSQL: its ``Tx``, and the thread that runs them.

A job (``Store.transact``) sees the same :class:`~agent_tui.core.store.writer.Tx` on both engines:
``tx.conn`` speaks the projectors' portable SQL (``PgProjectionConn``), ``tx.append`` claims the
next seq under the session's head row (``write.append_projected``, the statement ``PgEventLog``
appends with) and projects in the same transaction. Each append carries the token of the fence
``Store.transact`` resolved for its session (``tx.fence_for``: the drain's period, or this host's
period of that session); a write nobody here runs goes unfenced, and the database lets it in while
nobody holds the lease, or, while another host does, for the steering events ``schema._V4`` lists.
A refused token is :class:`StaleFence`: the facade tells the holder, whose drain stops.

One blocking psycopg connection on one thread, as SQLite's writer (the projectors are plain
functions). Two hosts admitting one input id at once: the unique ``input_id`` index refuses the
second insert; the job runs again and finds the first admission (an exact retry, or a conflict).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.core.errors import DatabaseUnreachable, StaleFence, StoreError
from agent_tui.core.log import events as ev
from agent_tui.core.store.pg import write
from agent_tui.core.store.pg.connect import first_line
from agent_tui.core.store.pg.projection_conn import PgProjectionConn
from agent_tui.core.store.pg.schema import STALE_FENCE
from agent_tui.core.store.writer import Job, TransactionThread, Tx
from agent_tui.vocab.clock import Clock

if TYPE_CHECKING:
    from psycopg import Connection

_ADMISSION_INDEX = "event_input"
_ATTEMPTS = 3


@dataclass
class PgTx(Tx):
    """``Tx`` on PostgreSQL: the head comes from ``session_head``, appends go through it."""

    raw: Any = None
    """The psycopg connection in the transaction (``rebuild`` streams through it)."""
    fenced_with: tuple[str, int] | None = None
    """The session and token of the last fenced append: what a refusal (``AT409``) names."""

    def head(self, session_id: str) -> int | None:
        row = self.raw.execute("SELECT head FROM session_head WHERE session_id = %s", (session_id,)).fetchone()
        return None if row is None else int(row[0])

    def forget_log(self, session_id: str) -> int:
        """The events, and the head row (a session made again under this id starts at 1)."""
        count = super().forget_log(session_id)
        self.raw.execute("DELETE FROM session_head WHERE session_id = %s", (session_id,))
        return count

    def append(
        self, session_id: str, event: ev.DurableEvent, first_seq: int = 1, at_ms: int | None = None
    ) -> ev.StoredEvent:
        at = self.clock.now_ms() if at_ms is None else at_ms
        input_id = event.input_id if isinstance(event, ev.PromptAdmitted | ev.CompactionAdmitted) else None
        fence = self.fence_for(session_id)
        token = None if fence is None else fence.token
        self.fenced_with = None if token is None else (session_id, token)
        stored = write.append_projected(self.raw, session_id, [event], token, input_id, at, first_seq)[0]
        self.heads[session_id] = stored.seq
        return stored


def rebuild(tx: Tx) -> int:
    """The facade's ``rebuild`` on PostgreSQL (``write.rebuild`` in the writer's transaction)."""
    assert isinstance(tx, PgTx)
    return write.rebuild(tx.raw)


class PgWriter(TransactionThread):
    """Runs the facade's write jobs, one transaction at a time, on one psycopg connection."""

    def __init__(self, conn: Connection[tuple[Any, ...]], clock: Clock, where: str) -> None:
        import psycopg

        self.driver_error = psycopg.Error
        self._conn = conn
        self._clock = clock
        super().__init__(lambda error: translate(error, where), name="agent-tui-pg-writer")

    def _transact(self, job: Job) -> tuple[Any, dict[str, int]]:
        import psycopg

        for attempt in range(1, _ATTEMPTS + 1):
            tx = PgTx(PgProjectionConn(self._conn), self._clock, raw=self._conn)
            try:
                with self._conn.transaction():
                    result = job(tx)
            except psycopg.errors.UniqueViolation as error:
                if error.diag.constraint_name != _ADMISSION_INDEX or attempt == _ATTEMPTS:
                    raise
                continue  # another host admitted this input id first: run again, and find it
            except psycopg.Error as error:
                if error.sqlstate == STALE_FENCE and tx.fenced_with is not None:
                    raise StaleFence(*tx.fenced_with) from None  # another host took the session over
                raise
            if tx.heads and self._after_commit is not None:
                self._after_commit()
            return result, tx.heads
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _close_connection(self) -> None:
        self._conn.close()


def translate(error: Exception, where: str) -> StoreError:
    """A psycopg error as the store error a person should see, in one line."""
    import psycopg

    text = first_line(error)
    if isinstance(error, psycopg.Error) and error.sqlstate == STALE_FENCE:
        return StoreError(f"database {where}: {text}: another host runs this session")
    if isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        return DatabaseUnreachable(where, text)
    return StoreError(f"database {where}: {text}")
