"""Snapshot the location before each tool call that may change its files.

``bash``, ``apply_patch`` and every MCP server tool may change files (a
server's tool runs in the location and can write anything; the registry does
not carry the servers' ``readOnlyHint``, so no MCP tool is taken at its word).
Before any of them runs, the location's snapshot id becomes durable in the log
(``session.snapshot.taken``), so a later rewind knows what the files were.
When no snapshot can be taken (snapshots turned off, no git, a broken
snapshot dir) the session says why once per reason and process, in the same
event with ``error`` in place of the id; the tool still runs, and a rewind
names the calls that ran uncovered. Without git, an ``apply_patch`` call
records the pre-images of the files it names instead (``preimages``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_tui.core.host.port import ToolInvocation
from agent_tui.core.log import events as ev
from agent_tui.core.log.publisher import SessionPublisher
from agent_tui.core.workspace.preimages import PreimageStore, patch_paths
from agent_tui.core.workspace.snapshots import SnapshotError, WorkspaceSnapshots, git_available
from agent_tui.vocab.mcp_names import TOOL_PREFIX

FILE_CHANGING_TOOLS = frozenset({"bash", "apply_patch"})
NO_GIT = (
    "git is not installed: a file rewind restores only the files apply_patch changed "
    "(from their pre-images), not what bash commands or MCP tools changed"
)
SNAPSHOTS_OFF = "snapshots are off ([snapshots] enabled = false): a file rewind cannot restore what tools changed"


def may_change_files(name: str) -> bool:
    """Whether a call of the tool ``name`` may change the location's files (built-in writers, MCP tools)."""
    return name in FILE_CHANGING_TOOLS or name.startswith(TOOL_PREFIX)


class SnapshotBeforeChange:
    def __init__(self, snapshots: WorkspaceSnapshots, publish: SessionPublisher, location: Path) -> None:
        self._snapshots = snapshots
        self._publish = publish
        self._location = location
        self._said: set[str] = set()
        self._preimages = PreimageStore()
        self._git: bool | None = None  # looked up once, off the loop

    async def __call__(self, call: ToolInvocation, enabled: bool = True) -> None:
        if not may_change_files(call.name):
            return
        if not enabled:
            await self._say_once(call, SNAPSHOTS_OFF)
            return
        if self._git is None:
            self._git = await asyncio.to_thread(git_available)
        if not self._git:
            await self._say_once(call, NO_GIT)
            if call.name == "apply_patch":  # the fallback: the files the patch names, as they are now
                names = patch_paths(str(call.input.get("patch", "")))
                snapshot = await self._preimages.record(self._location, names)
                await self._publish(
                    ev.WorkspaceSnapshotted(
                        assistant_message_id=call.assistant_message_id, call_id=call.call_id, snapshot_id=snapshot
                    )
                )
            return
        try:
            snapshot = await self._snapshots.take(
                self._location, pin=f"{call.session_id}/{call.assistant_message_id}-{call.call_id}"
            )
        except SnapshotError as error:  # a failure, not a setting: every call it leaves uncovered says so
            await self._publish(
                ev.WorkspaceSnapshotted(
                    assistant_message_id=call.assistant_message_id, call_id=call.call_id, error=str(error)
                )
            )
            return
        await self._publish(
            ev.WorkspaceSnapshotted(
                assistant_message_id=call.assistant_message_id, call_id=call.call_id, snapshot_id=snapshot
            )
        )

    async def _say_once(self, call: ToolInvocation, why: str) -> None:
        if why in self._said:
            return
        self._said.add(why)
        await self._publish(
            ev.WorkspaceSnapshotted(assistant_message_id=call.assistant_message_id, call_id=call.call_id, error=why)
        )
