"""One door for a rewind's files: git snapshots, or (without git) ``apply_patch`` pre-images.

A restore point (``restore_plan.RestorePlan.point``) is a list of snapshot ids
from the log after a prompt: for git the first tree (the state before the
first tool), for pre-images every one of them (per path the earliest wins).
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.workspace.preimages import PREFIX, PreimageStore
from agent_tui.core.workspace.snapshots import FileChange, WorkspaceSnapshots


class FileStores:
    def __init__(self, snapshots: WorkspaceSnapshots, preimages: PreimageStore | None = None) -> None:
        self.snapshots = snapshots
        self.preimages = preimages or PreimageStore()

    async def preview(self, location: Path, point: list[str]) -> tuple[list[FileChange], str]:
        if point[0].startswith(PREFIX):
            return await self.preimages.changes(location, point), ""
        await self.snapshots.check(location, point[0])
        now = await self.snapshots.take(location)
        changed = await self.snapshots.diff(location, now, point[0])
        return changed, await self.snapshots.patch(location, now, point[0]) if changed else ""

    async def restore(self, location: Path, point: list[str], pin: str) -> tuple[str, list[FileChange]]:
        if point[0].startswith(PREFIX):
            return await self.preimages.restore(location, point)
        return await self.snapshots.restore(location, point[0], pin)
