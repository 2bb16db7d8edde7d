"""Inbox promotion: which admitted inputs become visible at a step boundary.

Steers: all pending, in admission order, at every boundary. Queued inputs: one,
only when the session would otherwise go idle. A pending compaction barrier
holds back every input admitted after it; so does a pending ``!`` command,
which runs when the session would go idle.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.core.records import InboxRecord


@dataclass(frozen=True)
class Eligible:
    steers: list[InboxRecord]
    next_queued: InboxRecord | None
    barrier: InboxRecord | None
    shell: InboxRecord | None = None
    """The first ``!`` command; like a barrier, it holds back what was admitted after it."""


def eligible(pending: list[InboxRecord]) -> Eligible:
    steers: list[InboxRecord] = []
    queued: InboxRecord | None = None
    barrier: InboxRecord | None = None
    shell: InboxRecord | None = None
    for row in sorted(pending, key=lambda r: r.admitted_seq):
        if row.kind == "compaction":
            barrier = barrier or row
            continue
        if row.kind == "shell":
            if barrier is None and shell is None:
                shell = row
            continue
        if shell is not None:
            continue
        if barrier is not None:
            continue  # held back until the barrier settles
        if row.delivery == "queue":
            queued = queued or row
        else:
            steers.append(row)
    return Eligible(steers, queued, barrier, shell)
