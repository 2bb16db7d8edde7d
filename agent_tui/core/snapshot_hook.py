"""Snapshot the location before each tool call that may change its files.

``bash`` and ``apply_patch`` may change files; before either runs, the
location's snapshot id becomes durable in the log (``session.snapshot.taken``),
so a later rewind knows what the files were. A store that cannot snapshot
(no git, a broken snapshot dir) says so once per session and process, in the
same event with ``error`` in place of the id; the tool still runs.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.core import events as ev
from agent_tui.core.publisher import SessionPublisher
from agent_tui.core.snapshots import SnapshotError, WorkspaceSnapshots
from agent_tui.core.step import ToolInvocation

FILE_CHANGING_TOOLS = frozenset({"bash", "apply_patch"})


class SnapshotBeforeChange:
    def __init__(self, snapshots: WorkspaceSnapshots, publish: SessionPublisher, location: Path) -> None:
        self._snapshots = snapshots
        self._publish = publish
        self._location = location
        self._said_why = False

    async def __call__(self, call: ToolInvocation) -> None:
        if call.name not in FILE_CHANGING_TOOLS:
            return
        try:
            snapshot = await self._snapshots.take(
                self._location, pin=f"{call.session_id}/{call.assistant_message_id}-{call.call_id}")
        except SnapshotError as error:
            if self._said_why:
                return
            self._said_why = True
            await self._publish(ev.WorkspaceSnapshotted(
                assistant_message_id=call.assistant_message_id, call_id=call.call_id, error=str(error)))
            return
        await self._publish(ev.WorkspaceSnapshotted(
            assistant_message_id=call.assistant_message_id, call_id=call.call_id, snapshot_id=snapshot))
