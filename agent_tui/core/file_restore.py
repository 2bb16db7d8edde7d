"""One door for a rewind's files: git snapshots, or (without git) ``apply_patch`` pre-images.

A restore point is a list of snapshot ids from the log after a prompt: for git
the first tree (the state before the first tool), for pre-images every one of
them (per path the earliest wins).
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.core import events as ev
from agent_tui.core.preimages import PREFIX, PreimageStore
from agent_tui.core.snapshots import FileChange, SnapshotError, WorkspaceSnapshots


def restore_point(taken: list[ev.WorkspaceSnapshotted]) -> list[str] | None:
    """What to restore, from the snapshot events after a prompt (oldest first); None: nothing changed files."""
    if not taken:
        return None
    usable = [e.snapshot_id for e in taken if e.snapshot_id]
    if usable and usable[0].startswith(PREFIX):  # the note that git is missing may come first
        return [s for s in usable if s.startswith(PREFIX)]
    if taken[0].snapshot_id is None:
        raise SnapshotError(f"no snapshot was taken before the first tool after this prompt: {taken[0].error}")
    return [taken[0].snapshot_id]


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
