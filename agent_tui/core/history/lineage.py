"""A session's ancestry: the forks walked back to the first session.

A plain read over ``session.forked`` events, used by views that fold a fork's log
(its history is its ancestors' logs up to each fork point) and by rewind.
"""

from __future__ import annotations

from agent_tui.core.log import events as ev
from agent_tui.core.store.store import Store


async def lineage(store: Store, session_id: str) -> list[tuple[str, int]]:
    """``[(ancestor, last seq it gave), ...]``, the first session first; empty for a session that is no fork."""
    chain: list[tuple[str, int]] = []
    current = session_id
    while True:
        found = await store.events_of_type(current, [ev.SessionForked.TYPE], limit=1)
        if not found:
            return list(reversed(chain))
        event = found[0].event
        assert isinstance(event, ev.SessionForked)
        chain.append((event.parent_id, event.parent_seq))
        current = event.parent_id
