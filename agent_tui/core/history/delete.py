"""Delete a session: its events and projections in one transaction, then its snapshots.

The one place an event row is ever deleted. Refused while the session runs
here or in another process (its lease is held for the delete) and while forks
of it exist (their views fold its log). Saved approvals belong to the
project, not the session, and stay.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.errors import SessionBusy, UnknownSession
from agent_tui.core.log import events as ev
from agent_tui.core.log.records import SessionRecord
from agent_tui.core.projections.rewind import clear_session
from agent_tui.core.run.executor import Executor
from agent_tui.core.store.store import Store
from agent_tui.core.store.writer import Tx
from agent_tui.core.workspace.preimages import PreimageStore
from agent_tui.core.workspace.snapshots import SnapshotError, WorkspaceSnapshots


async def delete(store: Store, executor: Executor, snapshots: WorkspaceSnapshots, session: SessionRecord) -> int:
    """Delete ``session``; returns how many events went."""
    sid = session.id
    if sid in executor.active():
        raise SessionBusy(f"session {sid} is running; interrupt it before deleting it")
    held = await executor.hold(sid)  # SessionOwnedElsewhere while another process (or host) runs it
    try:

        def job(tx: Tx) -> tuple[int, list[str]]:
            if tx.head(sid) is None:
                raise UnknownSession(sid)
            forks = [
                row[0] for row in tx.conn.execute("SELECT id FROM session WHERE parent_id = ? ORDER BY id", (sid,))
            ]
            if forks:
                raise SessionBusy(f"session {sid} has forks ({', '.join(forks)}); delete them first")
            snapshot_id = tx.dialect.json_field("data_json", "snapshot_id")
            pre = [
                row[0]
                for row in tx.conn.execute(
                    f"SELECT {snapshot_id} FROM event WHERE session_id = ? AND type = ? AND {snapshot_id} LIKE 'pre:%'",
                    (sid, ev.WorkspaceSnapshotted.TYPE),
                )
            ]
            count = tx.forget_log(sid)
            clear_session(tx.conn, sid)
            return count, pre

        count, pre = await store.transact(job)
    finally:
        await held.close()
    try:
        await snapshots.forget(Path(session.location), sid)
    except SnapshotError:
        pass  # a missing or broken store holds nothing of it to remove
    await PreimageStore().forget(pre)
    return count
