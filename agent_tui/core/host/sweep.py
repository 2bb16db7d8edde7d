"""Crash recovery at drain start: fail what a dead process left running.

Only runs under the session's lease, so the owner of those tools is known to
be gone. Processes those tools started that are still running are killed
(found by the mark in their environment: they run in process groups of their
own, so the owner's death did not stop them). Tools are failed (never re-run),
attributed to their original assistant message; then each orphaned step is
closed as aborted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.log.records import MessageRecord, PermissionRecord, ToolCallRecord
from agent_tui.tools.process_group import kill_marked, marked_processes, tool_mark
from agent_tui.vocab.error_info import ErrorInfo
from agent_tui.vocab.kinds import TOOL_INTERRUPTED, ErrorType, PermissionReply


class StaleReads(Protocol):
    """What the sweep reads of a session (the store's reads; the host room never imports the store)."""

    async def pending_permissions(self, session_id: str) -> list[PermissionRecord]: ...

    async def tool_calls(
        self, session_id: str, states: Sequence[str] | None = None, name: str | None = None
    ) -> list[ToolCallRecord]: ...

    async def messages(self, session_id: str) -> list[MessageRecord]: ...


async def sweep_stale(store: StaleReads, session_id: str, publish: SessionPublisher) -> int:
    stale = ErrorInfo(type=ErrorType.TOOL_STALE, message=TOOL_INTERRUPTED)
    events: list[ev.DurableEvent] = [
        ev.PermissionReplied(request_id=ask.request_id, reply=PermissionReply.REJECT, message=TOOL_INTERRUPTED)
        for ask in await store.pending_permissions(session_id)
    ]  # asks of a dead owner: nobody can act on the answer any more
    running = await store.tool_calls(session_id, states=["running"])
    if running:
        await asyncio.to_thread(kill_marked, {tool_mark(session_id, call.call_id) for call in running})
    for call in running:
        events.append(ev.ToolFailed(assistant_message_id=call.assistant_message_id, call_id=call.call_id, error=stale))
    for message in await store.messages(session_id):
        if message.kind != "assistant" or message.data.get("state") != "running":
            continue
        for part in message.data.get("parts", []):
            if part.get("type") in ("text", "reasoning") and not part.get("text"):  # started, never ended
                ended = ev.TextEnded if part["type"] == "text" else ev.ReasoningEnded
                events.append(
                    ended(assistant_message_id=message.id, ordinal=part["ordinal"], text=part.get("text", ""))
                )
        events.append(
            ev.StepFailed(
                assistant_message_id=message.id,
                error=ErrorInfo(type=ErrorType.ABORTED, message="The process running this step stopped."),
            )
        )
    await publish.many(events)
    return len(events)


async def reap_stale_processes(store: StaleReads) -> int:
    """Kill this machine's processes of tool calls already failed as stale; how many.

    On a shared database the host that takes a dead owner's session over fails its running call
    (:func:`sweep_stale`) and kills the call's processes, but only on its own machine: a command the
    dead owner started on *its* machine keeps running there. Every host looks at its machine's
    marked processes now and then; those whose call this database has failed as ``tool.stale`` are
    killed. A mark of a call that is still running, succeeded, failed otherwise, or belongs to a
    session this database does not hold (another agent-tui's) is left alone.
    """
    found = await asyncio.to_thread(marked_processes)
    calls_by_session: dict[str, set[str]] = {}
    for mark in found:
        session_id, _, call_id = mark.partition("/")
        calls_by_session.setdefault(session_id, set()).add(call_id)
    stale = {
        tool_mark(session_id, call.call_id)
        for session_id, call_ids in calls_by_session.items()
        for call in await store.tool_calls(session_id, states=["failed"])
        if call.call_id in call_ids and (call.error or {}).get("type") == ErrorType.TOOL_STALE
    }
    return await asyncio.to_thread(kill_marked, stale) if stale else 0
