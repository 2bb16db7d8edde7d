"""Permission asks of the shown session's subagents, answered from the parent's screen.

A subagent runs as a session of its own, so its asks are in its own log; while it
runs, ``active()`` names its parent. Every poll the feed collects the asks of the
running sessions that descend from the shown one, and the view offers the first in
its permission panel, naming the child ("the explore subagent (find the config)").
The reply goes to ``permissions.reply`` like any other: it finds the ask by its id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.tui.transcript.records import PermissionAsk


@dataclass(frozen=True)
class ChildAsk:
    ask: PermissionAsk
    session_id: str
    who: str
    """The child as the panel names it: ``the build subagent (look around)``."""


def descendants(active: dict[str, dict[str, Any]], session_id: str | None) -> list[str]:
    """The running sessions under ``session_id``: its children, theirs, … (through ``active()``'s ``parent``)."""
    if session_id is None:
        return []
    out: list[str] = []
    for sid in active:
        seen: set[str] = set()
        parent = active[sid].get("parent")
        while parent is not None and parent not in seen:
            if parent == session_id:
                out.append(sid)
                break
            seen.add(parent)
            parent = active.get(parent, {}).get("parent")
    return out


async def child_asks(sessions: Any, children: list[str]) -> list[ChildAsk]:
    """The asks waiting in ``children``, oldest child first."""
    out: list[ChildAsk] = []
    for child in children:
        waiting = await sessions.permissions.pending(child) or []
        if not waiting:
            continue
        record = await sessions.get(child)
        who = f"the {record.agent} subagent" + (f" ({record.title})" if record.title else "")
        for asked in waiting:
            ask = PermissionAsk(
                request_id=asked.request_id,
                action=asked.action,
                resources=list(asked.resources),
                call_id=asked.call_id,
                detail=dict(asked.detail),
                seq=asked.seq,
                assistant_message_id=asked.assistant_message_id,
                save=list(asked.save),
            )
            out.append(ChildAsk(ask, child, who))
    return out
