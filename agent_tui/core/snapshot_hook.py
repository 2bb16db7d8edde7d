"""Snapshot the location before each tool call that may change its files.

``bash`` and ``apply_patch`` may change files; before either runs, the
location's snapshot id becomes durable in the log (``session.snapshot.taken``),
so a later rewind knows what the files were. A store that cannot snapshot
(no git, a broken snapshot dir) says so once per session and process, in the
same event with ``error`` in place of the id; the tool still runs. Without git,
an ``apply_patch`` call records the pre-images of the files it names instead
(``preimages``), and the session says once that bash changes are not covered.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.core import events as ev
from agent_tui.core.publisher import SessionPublisher
from agent_tui.core.preimages import PreimageStore, patch_paths
from agent_tui.core.snapshots import SnapshotError, WorkspaceSnapshots, git_available
from agent_tui.core.step import ToolInvocation

FILE_CHANGING_TOOLS = frozenset({"bash", "apply_patch"})
NO_GIT = ("git is not installed: a file rewind restores only the files apply_patch changed "
          "(from their pre-images), not what bash commands changed")


class SnapshotBeforeChange:
    def __init__(self, snapshots: WorkspaceSnapshots, publish: SessionPublisher, location: Path) -> None:
        self._snapshots = snapshots
        self._publish = publish
        self._location = location
        self._said_why = False
        self._preimages = PreimageStore()
        self._git: bool | None = None  # looked up once, off the loop

    async def __call__(self, call: ToolInvocation) -> None:
        if call.name not in FILE_CHANGING_TOOLS:
            return
        if self._git is None:
            self._git = await asyncio.to_thread(git_available)
        if not self._git:
            await self._say_once(call, NO_GIT)
            if call.name == "apply_patch":  # the fallback: the files the patch names, as they are now
                names = patch_paths(str(call.input.get("patch", "")))
                snapshot = await self._preimages.record(self._location, names)
                await self._publish(ev.WorkspaceSnapshotted(
                    assistant_message_id=call.assistant_message_id, call_id=call.call_id, snapshot_id=snapshot))
            return
        try:
            snapshot = await self._snapshots.take(
                self._location, pin=f"{call.session_id}/{call.assistant_message_id}-{call.call_id}")
        except SnapshotError as error:
            await self._say_once(call, str(error))
            return
        await self._publish(ev.WorkspaceSnapshotted(
            assistant_message_id=call.assistant_message_id, call_id=call.call_id, snapshot_id=snapshot))

    async def _say_once(self, call: ToolInvocation, why: str) -> None:
        if self._said_why:
            return
        self._said_why = True
        await self._publish(ev.WorkspaceSnapshotted(
            assistant_message_id=call.assistant_message_id, call_id=call.call_id, error=why))
