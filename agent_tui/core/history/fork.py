"""Fork a session: a new session whose history is the parent's up to a point.

``fork`` checks first (the point is a prompt of the parent, or its head; the
parent is not running here or elsewhere when forked at its head), then
publishes the fork's first two events in one transaction: ``session.created``
naming the parent, numbered ``point + 1``, and ``session.forked`` whose
projector copies the history (``project_fork``).
"""

from __future__ import annotations

from agent_tui.core.errors import SessionBusy
from agent_tui.core.history.rewind import Rewinder
from agent_tui.core.log import events as ev
from agent_tui.core.log import ids
from agent_tui.core.log.records import SessionRecord
from agent_tui.core.run import lease
from agent_tui.core.run.executor import Executor
from agent_tui.core.store.store import Store
from agent_tui.core.store.writer import Tx


async def fork(
    store: Store, executor: Executor, rewinder: Rewinder, parent: SessionRecord, at: str | None = None
) -> str:
    """The new session's id; ``at`` (a prompt's message id) forks from just before that prompt."""
    if at is not None:
        point = (await rewinder.target(parent, at)).seq - 1
    else:
        if parent.id in executor.active() or lease.current_owner(parent.id) is not None:
            raise SessionBusy(f"session {parent.id} is running; interrupt it or fork from an earlier prompt")
        point = parent.head_seq
    child = ids.session_id()
    created = ev.SessionCreated(
        location=parent.location,
        project_root=parent.project_root,
        title=parent.title,
        agent=parent.agent,
        model=parent.model,
        parent_id=parent.id,
    )

    def job(tx: Tx) -> None:
        tx.append(child, created, first_seq=point + 1)
        tx.append(child, ev.SessionForked(parent_id=parent.id, parent_seq=point))

    await store.transact(job)
    return child
