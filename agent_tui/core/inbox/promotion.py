"""Inbox promotion: which admitted inputs become visible at a step boundary.

Steers: all pending, in admission order, at every boundary. Queued inputs: one,
only when the session would otherwise go idle, the first in the queue's order
(admission order, unless the user reordered it: ``queue.reordered``). A pending compaction barrier
holds back every unpromoted prompt, whenever it was admitted; a pending ``!`` command holds back
what was admitted after it, and runs when the session would go idle.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.core.log.records import InboxRecord


@dataclass(frozen=True)
class Eligible:
    steers: list[InboxRecord]
    next_queued: InboxRecord | None
    barrier: InboxRecord | None
    shell: InboxRecord | None = None
    """The first ``!`` command; like a barrier, it holds back what was admitted after it."""


def _place(row: InboxRecord) -> int:
    return row.queue_rank if row.queue_rank is not None else row.admitted_seq


def queue_order(pending: list[InboxRecord]) -> list[InboxRecord]:
    """The queued inputs in the order they will be promoted."""
    return sorted((r for r in pending if r.kind == "prompt" and r.delivery == "queue"), key=_place)


def eligible(pending: list[InboxRecord]) -> Eligible:
    """What may be promoted now. A pending compaction barrier holds back every unpromoted
    prompt, admitted before or after it (the spec: it "blocks all unpromoted prompts"); a
    ``!`` command admitted before the barrier still runs first, in admission order."""
    steers: list[InboxRecord] = []
    queued: InboxRecord | None = None
    barrier = next((row for row in sorted(pending, key=lambda r: r.admitted_seq) if row.kind == "compaction"), None)
    shell: InboxRecord | None = None
    for row in sorted(pending, key=lambda r: r.admitted_seq):
        if row.kind == "compaction":
            continue
        if row.kind == "shell":
            if shell is None and (barrier is None or row.admitted_seq < barrier.admitted_seq):
                shell = row
            continue
        if shell is not None or barrier is not None:
            continue  # held back until the command ran or the barrier settled
        if row.delivery == "queue":
            if queued is None or _place(row) < _place(queued):
                queued = row
        else:
            steers.append(row)
    return Eligible(steers, queued, barrier, shell)
